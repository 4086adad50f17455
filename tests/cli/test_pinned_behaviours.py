"""Behaviours no test pinned before (issue 21), each against an independent value.

The values come from mpmath (the formula written out here), a number derived by hand in the
comment beside it, or a table made by transformers' own code (tests/fixtures/libraries/rope,
tools/library_fixtures/generate_rope.py). Tables fed to ``identify`` are written from the
libraries' formulas in plain NumPy, never by pecli.
"""

from __future__ import annotations

import json

import mpmath
import numpy as np
import pytest
import slow_formulas
from library_fixtures import load
from safetensors.numpy import save_file

from pecli.core.rope import RopeSpec, rope_frequencies
from pecli.core.rope.config import spec_from_config
from pecli.core.rope.permute import permute_rows, qk_permutation

mpmath.mp.dps = 40
FIXTURES = {f.name: f for f in load("rope")}


def _from_fixture(name: str):
    fixture = FIXTURES[f"{name}_inv_freq"]
    spec, notes = spec_from_config(fixture.params["config"], seq_len=fixture.params.get("seq_len"))
    return fixture, rope_frequencies(spec), notes


def _mp_default(theta: float, dim: int, count: int | None = None) -> list[mpmath.mpf]:
    """θ^(-2i/dim) for i < count (default dim/2)."""
    count = dim // 2 if count is None else count
    return [mpmath.power(mpmath.mpf(theta), -mpmath.mpf(2 * i) / dim) for i in range(count)]


def _close_to(values: np.ndarray, exact: list[mpmath.mpf]) -> bool:
    """Every float64 value within 2 ulp of the exact one."""
    want = np.array([float(e) for e in exact])
    ulps = 2 * np.spacing(want)
    return want.shape == values.shape and bool(np.all(np.abs(values - want) <= ulps))


# -- rotary frequencies ---------------------------------------------------------------------


def test_yarn_with_a_degenerate_correction_range_widens_it_by_0_001():
    # L_orig = 6 < 2π: correction dims 64·ln(6/(2π·β))/(2 ln 10^4) are -13.2 (β = 32) and
    # -0.16 (β = 1); floor/ceil and the clamp to [0, 63] give low = high = 0, and transformers'
    # linear_ramp_factor adds 0.001: pair 0 kept, every other pair divided by 4 (no 0/0 = NaN)
    fixture, freqs, _ = _from_fixture("yarn_degenerate")
    assert freqs.notes["ramp_low"] == 0 and freqs.notes["ramp_high"] == pytest.approx(0.001)
    assert freqs.scaling == ("unchanged",) + ("interpolated",) * 31
    exact = _mp_default(10000.0, 64)
    assert _close_to(freqs.inv_freq, [exact[0]] + [w / 4 for w in exact[1:]])
    assert np.allclose(fixture.table, freqs.inv_freq, rtol=15 * 2.0**-24, atol=0)
    assert freqs.attention_factor == pytest.approx(float(0.1 * mpmath.log(4) + 1), rel=1e-15)


def test_yarn_clamps_the_correction_range_to_dim_minus_1():
    # θ = 10, L_orig = 1024, d = 32: correction dims 32·ln(1024/(2π·β))/(2 ln 10) are 11.31
    # (β = 32) and 35.39 (β = 1); floor/ceil give (11, 36) and find_correction_range clamps
    # high to dim − 1 = 31: pairs 12 … 15 on the ramp (j − 11)/20, in both arithmetics
    from pecli.core.rope.framework import transformers_inv_freq

    fixture, freqs, _ = _from_fixture("yarn_high_clamp")
    assert (freqs.notes["ramp_low"], freqs.notes["ramp_high"]) == (11, 31)
    exact = _mp_default(10.0, 32)
    ramp = [min(max(mpmath.mpf(j - 11) / 20, 0), 1) for j in range(16)]
    mixed = [w / 4 * r + w * (1 - r) for w, r in zip(exact, ramp, strict=True)]
    assert _close_to(freqs.inv_freq, mixed)
    ours = transformers_inv_freq(freqs.spec)
    assert np.array_equal(ours.view(np.int32), fixture.table.view(np.int32))


def test_wavelengths_are_2_pi_over_omega_and_infinite_where_a_pair_does_not_turn():
    # proportional, head 8, partial 0.5: pairs 0, 1 turn at ω = 1, 10^4^(-2/8) = 0.1; 2, 3 do not
    spec = RopeSpec(rope_type="proportional", theta=1e4, head_dim=8, partial_rotary_factor=0.5)
    wavelengths = rope_frequencies(spec).wavelengths
    assert wavelengths[:2] == pytest.approx([2 * np.pi, 20 * np.pi], rel=1e-15)
    assert wavelengths[2:].tolist() == [np.inf, np.inf]


def test_linear_with_a_factor_of_1_leaves_every_pair_unchanged():
    freqs = rope_frequencies(RopeSpec(rope_type="linear", factor=1.0, head_dim=8))
    assert freqs.scaling == ("unchanged",) * 4 and _close_to(freqs.inv_freq, _mp_default(1e4, 8))


def test_yarn_mscale_all_dim_other_than_one_scales_the_attention():
    fixture, freqs, _ = _from_fixture("yarn_mscale_all_dim")
    ln40 = mpmath.log(40)
    exact = (0.1 * 1.0 * ln40 + 1) / (0.1 * mpmath.mpf("0.8") * ln40 + 1)  # 1.05697 by hand
    assert freqs.attention_factor == pytest.approx(float(exact), rel=1e-15)
    assert fixture.params["attention_scaling"] == pytest.approx(float(exact), rel=1e-15)
    assert round(freqs.attention_factor, 5) == 1.05697


def test_proportional_without_a_factor_keeps_the_unscaled_frequencies():
    # head 128, partial 0.25: int(0.25·128 // 2) = 16 rotated pairs with θ^(-2i/128) over the
    # whole head (not over the rotated 32), then 48 zero frequencies
    fixture, freqs, _ = _from_fixture("proportional_unscaled")
    assert _close_to(freqs.inv_freq, _mp_default(1e6, 128, 16) + [mpmath.mpf(0)] * 48)
    assert freqs.scaling == ("unchanged",) * 16 + ("pass-through",) * 48
    assert np.allclose(fixture.table, freqs.inv_freq, rtol=15 * 2.0**-24, atol=0)


def test_partial_rotary_factor_in_rope_parameters_wins_over_the_top_level():
    fixture, freqs, notes = _from_fixture("partial_both")  # 0.5 at the top, 0.25 inside
    assert freqs.spec.partial_rotary_factor == 0.25 and freqs.spec.rotary_dim == 32
    assert _close_to(freqs.inv_freq, _mp_default(10000.0, 32))
    assert fixture.table.shape == (16,)
    assert any("partial_rotary_factor 0.25" in n for n in notes)


@pytest.mark.parametrize(("factor", "said"), [(1.0, False), (0.5, True)])
def test_a_partial_rotary_factor_is_said_only_when_it_leaves_channels_unrotated(factor, said):
    config = {"head_dim": 64, "rope_theta": 10000.0, "partial_rotary_factor": factor}
    spec, notes = spec_from_config(config)
    assert spec.rotary_dim == int(64 * factor)
    assert any("channels rotate" in n for n in notes) == said


def test_a_config_without_theta_takes_10000():
    fixture, freqs, notes = _from_fixture("no_theta")
    assert freqs.spec.theta == 10000.0
    assert any("no rope_theta" in n and "10000" in n for n in notes)
    assert _close_to(freqs.inv_freq, _mp_default(10000.0, 64))
    assert np.allclose(fixture.table, freqs.inv_freq, rtol=15 * 2.0**-24, atol=0)


@pytest.mark.parametrize(("inside", "said"), [(2.0, False), (4.0, True)])
def test_rope_scaling_wins_over_rope_parameters_and_a_disagreement_is_said(inside, said):
    config = {
        "head_dim": 64,
        "rope_theta": 10000.0,
        "rope_scaling": {"rope_type": "linear", "factor": 2.0},
        "rope_parameters": {"rope_type": "linear", "factor": inside},
    }
    spec, notes = spec_from_config(config)
    assert spec.factor == 2.0
    assert [n for n in notes if "disagree" in n] == ([notes[0]] if said else [])


@pytest.mark.parametrize(("name", "long"), [("at_original", False), ("past_original", True)])
def test_longrope_uses_long_factors_only_past_the_original_length(name, long):
    fixture, freqs, _ = _from_fixture(f"phi3_longrope_{name}")
    config = fixture.params["config"]["rope_parameters"]
    factors = config["long_factor" if long else "short_factor"]
    exact = [w / mpmath.mpf(f) for w, f in zip(_mp_default(10000.0, 96), factors, strict=True)]
    assert _close_to(freqs.inv_freq, exact)
    assert freqs.notes["long_factors_used"] == long
    assert np.allclose(fixture.table, freqs.inv_freq, rtol=15 * 2.0**-24, atol=0)
    # attention: sqrt(1 + ln(131072/4096)/ln 4096) = sqrt(1 + 5/12), either side
    assert freqs.attention_factor == pytest.approx(float(mpmath.sqrt(1 + mpmath.mpf(5) / 12)))


# -- the q/k permutation ---------------------------------------------------------------------


def test_permute_names_heads_when_the_rows_do_not_divide(run_cli, tmp_path):
    save_file({"q": np.arange(24, dtype=np.float32).reshape(6, 4)}, tmp_path / "w.safetensors")
    args = ["--input", str(tmp_path / "w.safetensors"), "--tensor", "q", "--heads", "4"]
    result = run_cli("rope", "permute", *args, "-o", str(tmp_path / "out.safetensors"))
    assert result.exit_code == 2
    line = result.output.strip()
    assert "\n" not in line and "'--heads'" in line
    assert "must divide the 6 rows into heads of even width (got 4)" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.safetensors"]


def test_head_dim_2_is_the_identity_and_the_smallest_width(run_cli):
    # one pair per head: Meta's (0, 1) is HF's (0, d/2) = (0, 1): nothing moves
    assert qk_permutation(3, 2).tolist() == [0, 1, 2, 3, 4, 5]
    assert qk_permutation(3, 2, "hf-to-meta").tolist() == [0, 1, 2, 3, 4, 5]
    w = np.arange(12.0).reshape(6, 2)
    assert np.array_equal(permute_rows(w, 3), w)
    data = json.loads(
        run_cli("rope", "permute", "--heads", "3", "--head-dim", "2", "--format", "json").stdout
    )
    assert data["head_dim"] == 2 and data["perm"] == [0, 1, 2, 3, 4, 5]
    result = run_cli("rope", "permute", "--heads", "3", "--head-dim", "0")
    assert result.exit_code == 2 and "'--head-dim'" in result.output


# -- diffusers' base_size ----------------------------------------------------------------------


def test_grid_base_size_positions_are_k_base_size_over_n_scale(run_cli, tmp_path):
    out = tmp_path / "g.npy"
    args = ["grid", "3", "5", "--d", "8", "--base-size", "4", "--interpolation-scale", "2"]
    assert run_cli(*args, "--dtype", "float64", "-o", str(out)).exit_code == 0
    table = np.load(out)
    assert table.shape == (15, 8)
    omega = [mpmath.mpf(1), mpmath.power(10000, -mpmath.mpf(1) / 2)]  # 10000^(-j/2), j < 2
    for k in range(15):
        r, c = divmod(k, 5)
        rows = []
        # mae: the column block first; positions c·4/(5·2) and r·4/(3·2)
        for p in (mpmath.mpf(c) * 4 / (5 * 2), mpmath.mpf(r) * 4 / (3 * 2)):
            rows += [mpmath.sin(p * w) for w in omega] + [mpmath.cos(p * w) for w in omega]
        assert np.allclose(table[k], [float(v) for v in rows], rtol=0, atol=2e-16)
    assert table[1, 0] == pytest.approx(0.3894183423086505, abs=1e-16)  # sin(0.4)


# -- identify: grids, degenerate shapes, files without their suffix ----------------------------


def mae_table(h: int, w: int, d: int) -> np.ndarray:
    """MAE's get_2d_sincos_pos_embed (util/pos_embed.py), without a class token, float64."""
    omega = 1.0 / 10000 ** (np.arange(d // 4, dtype=np.float64) / (d / 4.0))
    grid = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    halves = []
    for axis in grid:  # grid[0] (the column index) makes emb_h, the first half
        out = np.einsum("m,d->md", axis.reshape(-1), omega)
        halves.append(np.concatenate([np.sin(out), np.cos(out)], axis=1))
    return np.concatenate(halves, axis=1)


def mocov3_table(h: int, w: int, d: int) -> np.ndarray:
    """MoCo v3's build_2d_sincos_position_embedding (vits.py): torch.meshgrid's 'ij' order."""
    grid_w, grid_h = np.meshgrid(
        np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64), indexing="ij"
    )
    omega = 1.0 / 10000 ** (np.arange(d // 4, dtype=np.float64) / (d // 4))
    out_w = np.einsum("m,d->md", grid_w.flatten(), omega)
    out_h = np.einsum("m,d->md", grid_h.flatten(), omega)
    return np.concatenate([np.sin(out_w), np.cos(out_w), np.sin(out_h), np.cos(out_h)], axis=1)


def _identify(run_cli, tmp_path, table, *args):
    np.save(tmp_path / "t.npy", table)
    return run_cli("identify", str(tmp_path / "t.npy"), *args)


@pytest.mark.parametrize("shape", [(5, 2), (2, 5), (7, 2)])
def test_identify_reads_a_grid_with_a_side_of_two(run_cli, tmp_path, shape):
    result = _identify(run_cli, tmp_path, mae_table(*shape, 16).astype(np.float32), "--json")
    assert result.exit_code == 0, result.output
    best = json.loads(result.stdout)["grid"]["best"]
    assert (best["preset"], tuple(best["shape"]), best["first"]) == ("mae", shape, "column first")
    assert best["command"] == f"pecli grid {shape[0]} {shape[1]} --d 16 --preset mae"


def test_identify_reads_mocov3_screen_as_the_transposed_grid(run_cli, tmp_path):
    # MoCo v3's code on a 9 × 16 screen enumerates the tokens column by column: it is the
    # row-major table of the transposed 16 × 9 grid, and identify says so
    result = _identify(run_cli, tmp_path, mocov3_table(9, 16, 32).astype(np.float32), "--json")
    assert result.exit_code == 0, result.output
    best = json.loads(result.stdout)["grid"]["best"]
    assert tuple(best["shape"]) == (16, 9) and best["first"] == "row first"
    assert "MoCo v3's own code gives this table for a 9 × 16 grid" in best["note"]


@pytest.mark.parametrize("shape", [(1, 64), (64, 1), (5, 1), (1, 1)])
def test_identify_refuses_a_table_with_a_side_of_one_in_one_line(run_cli, tmp_path, shape):
    table = np.sin(np.arange(np.prod(shape), dtype=np.float64)).reshape(shape)
    result = _identify(run_cli, tmp_path, table)
    assert result.exit_code == 2
    line = result.output.strip()
    assert "\n" not in line and "'FILE'" in line
    assert f"(got {shape[0]} × {shape[1]})" in line and "at least 2 rows" in line


def test_rope_identify_reads_a_column_vector_as_inv_freq(run_cli, tmp_path):
    inv = np.array([1e4 ** (-i / 5) for i in range(5)])[:, None]  # θ^(-2i/10), shape (5, 1)
    np.save(tmp_path / "inv.npy", inv)
    result = run_cli("rope", "identify", str(tmp_path / "inv.npy"), "--format", "json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert (found["rope_type"], found["theta"], found["rotary_dim"]) == ("default", 1e4, 10)


def test_a_safetensors_file_without_its_suffix_is_read_by_its_header(run_cli, tmp_path):
    whisper = np.array(slow_formulas.preset_table("whisper", 150, 64, 10000.0), np.float32)
    learned = (0.02 * np.random.default_rng(3).standard_normal((150, 64))).astype(np.float32)
    save_file({"enc.pos": whisper, "dec.pos": learned}, tmp_path / "model")
    result = run_cli("identify", str(tmp_path / "model"), "--json")
    assert result.exit_code == 0, result.output
    found = {f["key"]: f for f in json.loads(result.stdout)}
    assert found["enc.pos"]["verdict"] == "identified"
    assert "whisper" in found["enc.pos"]["identification"]["presets"]
    assert found["dec.pos"]["verdict"] == "not sinusoidal"


# -- rope identify: the yarn / llama3 tie -----------------------------------------------------


@pytest.mark.parametrize("smoothed", [0, 1])
def test_fewer_than_two_smoothed_pairs_leave_the_type_unknown_with_its_counts(smoothed):
    # d = 16, θ = 10^4: pairs 0 … 3 kept, 5 … 7 divided by 4, pair 4 divided or half-way
    from pecli.analysis.rope.inv_freq import identify_inv_freq

    w = 1e4 ** (-np.arange(0, 16, 2) / 16)
    w[4:] /= 4
    w[4] *= 1 if not smoothed else (1 + 4) / 2  # (1 − s)·ω/4 + s·ω at s = 1/2: 5/8 of ω
    guess = identify_inv_freq(w)
    assert (guess.rope_type, guess.theta) == ("unknown", 10000.0)
    assert guess.parameters == {
        "factor": 4.0,
        "unchanged": 4,
        "smoothed": smoothed,
        "interpolated": 4 - smoothed,
    }
    assert guess.findings == ["too few smoothed pairs to tell yarn from llama3"]


def test_longrope_below_its_original_length_keeps_an_attention_factor_of_1():
    # factor = 2048/4096 = 0.5 <= 1: transformers' _compute_longrope_parameters takes 1.0
    spec = RopeSpec(
        rope_type="longrope",
        head_dim=8,
        original_max_position_embeddings=4096,
        max_position_embeddings=2048,
        short_factor=(1, 1, 1, 1),
        long_factor=(2, 2, 2, 2),
    )
    assert rope_frequencies(spec).attention_factor == 1.0


def test_two_smoothed_pairs_do_not_tell_llama3_from_yarn_without_integer_bounds():
    from pecli.analysis.rope.inv_freq import identify_inv_freq

    # llama3 with high_freq_factor 1.6: wavelengths 2π·5e5^(i/64) fall between 8192/1.6 and
    # 8192 for exactly two pairs; a line through two points fits yarn's ramp as well
    spec = RopeSpec(
        rope_type="llama3",
        theta=500000.0,
        head_dim=128,
        factor=8.0,
        low_freq_factor=1.0,
        high_freq_factor=1.6,
        original_max_position_embeddings=8192,
    )
    guess = identify_inv_freq(rope_frequencies(spec).inv_freq)
    assert guess.rope_type == "unknown" and guess.parameters["smoothed"] == 2
    assert any("not determined" in f and "high_freq_factor 1.6" in f for f in guess.findings)
    # yarn (truncated) with two smoothed pairs: integer bounds floor/ceil of the correction
    # dims 16·ln(8192/(2π·β))/(2 ln 10^6) = 2.23 (β = 32) and 4.77 (β = 1): 2 and 5
    low = 16 * mpmath.log(8192 / (2 * mpmath.pi * 32)) / (2 * mpmath.log(10**6))
    high = 16 * mpmath.log(8192 / (2 * mpmath.pi)) / (2 * mpmath.log(10**6))
    assert (int(mpmath.floor(low)), int(mpmath.ceil(high))) == (2, 5)
    spec = RopeSpec(
        rope_type="yarn", theta=1e6, head_dim=16, factor=4.0, original_max_position_embeddings=8192
    )
    guess = identify_inv_freq(rope_frequencies(spec).inv_freq)
    assert guess.rope_type == "yarn" and guess.parameters["smoothed"] == 2
    assert (guess.parameters["ramp_low"], guess.parameters["ramp_high"]) == (2.0, 5.0)


# -- found by the mutation run (tools/mutation) -----------------------------------------------


@pytest.mark.parametrize(
    ("names", "shape", "dtype"),
    [
        (["pos_embed"], (100, 64), np.float32),
        (["cos", "sin"], (7, 3), "bfloat16"),
        (["位置编码" * 50], (3, 4), np.float64),
    ],  # a key of 600 UTF-8 bytes in 200 characters
)
def test_the_room_needed_for_a_safetensors_file_is_the_size_written(tmp_path, names, shape, dtype):
    import ml_dtypes

    from pecli.io.tensors import safetensors_bytes, write_safetensors

    stored = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    meta = {"pecli": "compute --d 64", "format": "pt"} | {f"k{i}": "é" * i for i in range(40)}
    out = tmp_path / "pe.safetensors"
    write_safetensors({k: np.zeros(shape, stored) for k in names}, output=out, metadata=meta)
    needed = safetensors_bytes([(k, stored, shape) for k in names], meta)
    assert needed == out.stat().st_size  # before: 8 + 256 + characters, short by 211 bytes here


def test_identify_names_a_three_axis_grid_in_row_major_order():
    from pecli.analysis.grids.identify import identify_grid

    fixture = next(f for f in load("grids") if f.name == "t2t_nd_2x3x4_c26")  # tensor2tensor
    found = identify_grid(fixture.table)
    assert found.matched and found.best.shape == (2, 3, 4)
    assert found.best.note == "tokens in row-major order of a 2 × 3 × 4 grid"


def test_grid_refuses_an_empty_shape_and_names_the_knob_given_to_another_preset():
    from pecli import ParameterError
    from pecli.core.grids import grid_table

    rule = "must be 1 to 4 integers >= 1 (rows, columns, …) with at most 2^40 tokens"
    for shape in [(), (3, 0), (0, 3), (1, 1, 1, 1, 1)]:
        with pytest.raises(ParameterError) as caught:
            grid_table(shape, d=8)
        assert (caught.value.parameter, caught.value.rule) == ("shape", rule)
    with pytest.raises(ParameterError, match="applies only to `preset` mae") as caught:
        grid_table((3, 3), d=8, preset="timm", base_size=4.0)
    assert (caught.value.parameter, caught.value.value) == ("base_size", 4.0)
    with pytest.raises(ParameterError, match="applies only to `preset` mae") as caught:
        grid_table((3, 3), d=8, preset="timm", interpolation_scale=2.0)
    assert (caught.value.parameter, caught.value.value) == ("interpolation_scale", 2.0)


def test_dynamic_and_longrope_name_each_pair_s_scaling():
    # dynamic: θ' = θ·(f·L/max − (f − 1))^(d/(d−2)) changes only past max_position_embeddings:
    # at 4096 the growth is 2·4096/4096 − 1 = 1, at 8192 it is 3
    _, at_max, _ = _from_fixture("dynamic_4096")
    _, past, _ = _from_fixture("dynamic_8192")
    assert at_max.scaling == ("unchanged",) * 64 and past.scaling == ("rescaled",) * 64
    assert past.notes["theta_effective"] == pytest.approx(10000 * 3 ** (128 / 126), rel=1e-15)
    # longrope: the short factors are 1.0, 1.01, …: only pair 0 keeps its frequency
    _, longrope, _ = _from_fixture("phi3_longrope_at_original")
    assert longrope.scaling == ("unchanged",) + ("rescaled",) * 47


def test_config_fields_a_type_does_not_use_are_named_and_ignored():
    config = {
        "head_dim": 64,
        "max_position_embeddings": 8192,
        "rope_parameters": {
            "rope_type": "yarn",
            "rope_theta": 10000.0,
            "factor": 4.0,
            "low_freq_factor": 1.0,
            "original_max_position_embeddings": 2048,
            "partial_rotary_factor": 1.0,
        },
    }
    spec, notes = spec_from_config(config)
    assert spec.low_freq_factor is None and spec.factor == 4.0
    assert "low_freq_factor is not used by rope_type 'yarn' (ignored)" in notes
    used = ("rope_type", "factor", "partial_rotary_factor", "rope_theta", "original_max")
    assert not any(n.startswith(used) and "is not used" in n for n in notes)


@pytest.mark.parametrize(
    "values",
    [[1.0, 0.5], [[1.0, 0.5, 0.25]], [1.0, -0.5, 0.25], [1.0, np.nan, 0.25], [0.0, 0.5, 0.25]],
    ids=["two", "2-D", "negative", "nan", "first-zero"],
)
def test_rope_identify_refuses_what_is_not_an_inv_freq_vector(values):
    from pecli import ParameterError
    from pecli.analysis.rope.inv_freq import identify_inv_freq

    with pytest.raises(ParameterError, match=">= 3 finite numbers >= 0, the first > 0"):
        identify_inv_freq(np.array(values))


def test_rope_identify_says_why_no_theta_fits():
    from pecli.analysis.rope.inv_freq import identify_inv_freq

    rising = identify_inv_freq(np.array([1.0, 2.0, 4.0, 8.0]))  # θ^(-2i/8) = 2^i: θ = 1/16
    assert rising.rope_type == "unknown"
    assert any("increase with the pair index (θ = 0.06" in f for f in rising.findings)
    three = identify_inv_freq(np.array([1.0, 2.0, 4.0]))  # the shortest run: 3 values
    assert any("increase with the pair index" in f for f in three.findings)
    equal = identify_inv_freq(np.full(4, 0.5))  # ω_i = θ^(-2i/8) = 1 for all i: θ = 1
    assert equal.rope_type == "unknown"
    assert equal.findings == [
        "the frequencies are all equal (θ = 1): not an inv_freq vector, whose ω_i = θ^(-2i/dim) "
        "fall"
    ]  # it said "increase with the pair index (θ = 1 < 1)"
    varying = identify_inv_freq(np.array([1.0, 0.5, 0.4, 0.1]))  # ratios 0.5, 0.8, 0.25
    assert any("vary from the first pairs on" in f for f in varying.findings)
