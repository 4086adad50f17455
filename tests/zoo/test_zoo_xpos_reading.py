"""An xPos scale table read back (pecli.analysis.zoo.xpos) and told apart by ``pecli diff``.

The libraries' own tables (tests/fixtures/libraries/zoo, torchscale 0.3.0's ``XPOS`` and
rotary-embedding-torch's xPos applied to unit vectors: each scale is the length of a rotated
basis vector) are read back to the γ, side and first centred position of the call that made
them, the position worked out by hand from each library's source: torchscale keeps the last
``L`` of ``arange(-(L + offset) // 2, …)``, so ``p_0 = offset − ceil((L + offset)/2)``;
rotary-embedding-torch uses ``t − L // 2``, so ``p_0 = −floor(L/2)``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from library_fixtures import load

from pecli.analysis.zoo.xpos import read_xpos
from pecli.core.zoo.xpos import xpos_scales

XPOS = [f for f in load("zoo") if f.params["kind"] == "xpos"]


def _library_scales(fixture) -> np.ndarray:
    """The (L, d) interleaved scale table a library applied: |rotated e_2i| per pair."""
    i = np.arange(fixture.params["head_dim"] // 2)
    pairs = np.hypot(fixture.table[2 * i, :, 2 * i], fixture.table[2 * i, :, 2 * i + 1]).T
    return np.repeat(pairs.astype(np.float32), 2, axis=1)


@pytest.mark.parametrize("fixture", XPOS, ids=lambda f: f.name)
def test_each_librarys_table_is_read_back_to_its_call(fixture):
    p = fixture.params
    rows, offset = p["n"], p["offset"]
    torchscale = fixture.library == "torchscale"
    first = offset - (rows + offset + 1) // 2 if torchscale else -(rows // 2)  # see above
    found = read_xpos(_library_scales(fixture))
    assert found is not None
    assert (found.layout, found.scale_base, found.keys) == (
        "interleaved",
        p["scale_base"],
        p["keys"],
    )
    assert found.first_position == first
    named = set(found.centres)
    assert (p["centre"] in named) == (offset == 0)  # an offset is no library's centring
    assert named == ({"torchscale", "lucidrains"} if rows % 2 == 0 and not offset else named)


def test_half_precision_tables_give_gamma_to_three_digits():
    for dtype in ("float16", "bfloat16"):
        found = read_xpos(xpos_scales(300, 128, keys=True, dtype=dtype))
        assert found is not None and found.keys and found.first_position == -150
        assert found.scale_base == 512.0


@pytest.mark.parametrize(
    "table",
    [
        np.cos(np.arange(20.0)[:, None] * np.array([1.0, 1.0, 0.1, 0.1])),  # a rotary table
        np.ones((4, 4)),  # ζ^0: no step, no γ
        np.full((1, 8), 0.5),  # one row: no step
        np.random.default_rng(0).uniform(0.5, 2, (6, 8)).repeat(2, axis=1),  # pairs, no law
        xpos_scales(9, 8, dtype="float32")[:, :7],  # an odd width
    ],
)
def test_other_tables_are_not_xpos(table):
    assert read_xpos(table) is None


def test_one_scale_off_by_a_part_in_a_thousand_is_no_xpos_table():
    table = xpos_scales(16, 8, dtype="float32")
    table[3, 2:4] *= np.float32(1.001)
    assert read_xpos(table) is None


@pytest.mark.parametrize(
    ("b_args", "cause"),
    [
        (["--scale-base", "256"], "xPos: γ (scale_base) 512 in A, 256 in B"),
        (["--keys"], "xPos: A holds the queries' scales, B the keys'"),
        (
            ["--centre", "lucidrains"],
            "xPos: first centred position -9 in A (torchscale), -8 in B (lucidrains)",
        ),
        (
            ["--offset", "3"],  # 3 − ceil(20/2); an offset of 2 would give lucidrains' −8
            "xPos: first centred position -9 in A (torchscale), -7 in B (an offset)",
        ),
        (["--layout", "half-split"], "pair layout swapped"),
    ],
)
def test_diff_names_what_differs_between_two_xpos_tables(run_cli, tmp_path, b_args, cause):
    a, b, report = tmp_path / "a.npy", tmp_path / "b.npy", tmp_path / "r.json"
    common = ["xpos", "--n", "17", "--head-dim", "8", "-q"]
    assert run_cli(*common, "-o", str(a)).exit_code == 0
    assert run_cli(*common, *b_args, "-o", str(b)).exit_code == 0
    result = run_cli("diff", str(a), str(b), "-o", str(report))
    assert result.exit_code == 1, result.output
    found = json.loads(report.read_text())
    assert found["reading_a"] == {
        "kind": "xpos",
        "layout": "interleaved",
        "scale_base": 512.0,
        "side": "queries",
        "first_position": -9,  # 17 rows, torchscale: −ceil(17/2)
        "centre": "torchscale",
        "storage": "float32",
    }
    assert any(c.startswith(cause) for c in found["causes"]), found["causes"]


def _half_table(gamma: float, rows: int = 17, d: int = 8) -> np.ndarray:
    """torchscale's query scales by hand, ζ_i^(p_t/γ) with p_t = t − ceil(L/2), in float16."""
    zeta = (2 * np.arange(d // 2) + 0.4 * d) / (1.4 * d)
    positions = np.arange(rows) - (rows + 1) // 2
    return np.repeat(zeta ** (positions[:, None] / gamma), 2, axis=1).astype(np.float16)


def test_diff_names_gamma_512_against_256_in_float16_tables(run_cli, tmp_path):
    """float16 reads γ = 512 to within 5 % (504 … 514); 256 is half of it, far past that
    spread: the cause names both readings."""
    a, b, report = tmp_path / "a.npy", tmp_path / "b.npy", tmp_path / "r.json"
    np.save(a, _half_table(512.0))
    np.save(b, _half_table(256.0))
    result = run_cli("diff", str(a), str(b), "-o", str(report))
    assert result.exit_code == 1, result.output
    found = json.loads(report.read_text())
    assert found["reading_a"]["storage"] == found["reading_b"]["storage"] == "float16"
    gamma_a = found["reading_a"]["scale_base"]
    assert 504 <= gamma_a <= 514 and found["reading_b"]["scale_base"] == 256
    assert found["causes"] == [f"xPos: γ (scale_base) {gamma_a:g} in A, 256 in B"]


def test_diff_of_an_xpos_table_and_a_rotary_cache_names_the_kinds(run_cli, tmp_path):
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    assert run_cli("xpos", "--n", "16", "--head-dim", "8", "-q", "-o", str(a)).exit_code == 0
    assert (
        run_cli("rope", "cache", "--n", "16", "--head-dim", "8", "-q", "-o", str(b)).exit_code == 0
    )
    result = run_cli("diff", str(a), str(b))
    assert "A is an xPos scale table, B a cos/sin cache" in result.output


@pytest.mark.parametrize(
    ("rows", "d", "layout"), [(2, 8, "interleaved"), (3, 2, "interleaved"), (5, 8, "half-split")]
)
def test_small_tables_and_both_layouts_are_read(rows, d, layout):
    """Two rows are a step; d = 2 is one pair; half-split repeats the first half's scales."""
    table = xpos_scales(rows, d, scale_base=64, layout=layout, dtype="float32")
    found = read_xpos(table)
    assert found is not None and (found.layout, found.scale_base) == (layout, 64.0)
    assert found.first_position == -((rows + 1) // 2)  # torchscale, no offset: −ceil(L/2)


@pytest.mark.parametrize(
    ("gamma", "dtype", "read"),
    [
        (300.5, "float32", 300.5),  # not an integer: kept as measured (to float32's digits)
        (123.456, "float64", 123.456),
        (123.456, "float16", 123.0),  # three digits of what half precision holds
        (0.9999, "float64", 0.9999),  # γ < 1: kept, not rounded to 1 (or to 0)
        (0.1, "float64", 0.1),  # exponents up to ±20 per row
    ],
)
def test_a_gamma_that_is_no_integer_is_read_to_the_digits_the_table_holds(gamma, dtype, read):
    rows = 300 if gamma > 1 else 4  # ζ_0^(150/γ) stays finite
    found = read_xpos(xpos_scales(rows, 128, scale_base=gamma, dtype=dtype))
    assert found is not None
    assert found.scale_base == pytest.approx(read, rel=1e-6)


@pytest.mark.parametrize(
    ("gamma", "dtype", "read"),
    [
        (123.4567, "float32", 123.457),  # 6 significant digits from float32
        (123.45678912, "float64", 123.4567891),  # 10 from float64
        (123.4567, "float16", 123.0),  # 3 from half precision
    ],
)
def test_gamma_is_rounded_to_exactly_the_documented_digits(gamma, dtype, read):
    """The documented digits (10 from float64, 6 from float32, 3 from float16), each a digit
    short of γ's own, so the reading is γ rounded there by hand, exactly, not a digit more."""
    found = read_xpos(xpos_scales(300, 128, scale_base=gamma, dtype=dtype))
    assert found is not None and found.scale_base == read


@pytest.mark.parametrize(
    "table",
    [
        xpos_scales(1, 8, dtype="float32"),  # one row: no step to measure
        np.ones((4, 0)),  # no column
        np.random.default_rng(1).uniform(0.5, 2, (6, 8)),  # positive, channels not in pairs
        np.vstack([xpos_scales(4, 8), np.zeros((1, 8))]),  # a zero scale
        np.vstack([np.zeros((1, 8)), xpos_scales(4, 8)]),  # a zero in the first row
    ],
)
def test_tables_an_xpos_layer_cannot_make_are_refused_without_a_warning(table):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no log of zero, no fit of one point
        assert read_xpos(table) is None


def test_two_half_precision_tables_differing_in_side_only_name_the_side_only(run_cli, tmp_path):
    """bfloat16 reads γ = 512 as 509 and 516 here (docs/zoo.md: within 10 %): no γ cause,
    and no rotary move (layout, start) read into the looser bfloat16 comparison."""
    q, k, report = tmp_path / "q.safetensors", tmp_path / "k.safetensors", tmp_path / "r.json"
    common = ["xpos", "--n", "17", "--head-dim", "64", "--dtype", "bfloat16", "-q"]
    assert run_cli(*common, "-o", str(q)).exit_code == 0
    assert run_cli(*common, "--keys", "-o", str(k)).exit_code == 0
    assert run_cli("diff", str(q), str(k), "-o", str(report)).exit_code == 1
    found = json.loads(report.read_text())
    assert found["reading_a"]["storage"] == found["reading_b"]["storage"] == "bfloat16"
    assert [c.split(":")[0] for c in found["causes"]] == ["xPos"]
    assert "scale_base" not in found["causes"][0] and "keys" in found["causes"][0]


def test_a_float16_table_read_from_csv_is_an_xpos_table_of_float16(run_cli, tmp_path):
    f16, f32 = tmp_path / "h.csv", tmp_path / "s.csv"
    common = ["xpos", "--n", "17", "--head-dim", "8", "-q"]
    assert run_cli(*common, "--dtype", "float16", "-o", str(f16)).exit_code == 0
    assert run_cli(*common, "-o", str(f32)).exit_code == 0
    result = run_cli("diff", str(f16), str(f32))
    assert "reading of A: kind xpos" in result.output and "storage float16" in result.output
    assert "likely cause: stored in fp16" in result.output and "xPos" not in result.output
    refused = run_cli("rope", "identify", str(f16))
    assert refused.exit_code == 2 and "not an xPos scale table" in refused.output


def test_a_one_pair_table_names_the_xpos_cause_not_a_temperature(run_cli, tmp_path):
    q, k = tmp_path / "q.npy", tmp_path / "k.npy"
    common = ["xpos", "--n", "17", "--head-dim", "2", "-q"]
    assert run_cli(*common, "-o", str(q)).exit_code == 0
    assert run_cli(*common, "--keys", "-o", str(k)).exit_code == 0
    causes = [
        line for line in run_cli("diff", str(q), str(k)).output.splitlines() if "cause" in line
    ]
    assert causes == [
        "likely cause: xPos: A holds the queries' scales, B the keys' (keys: ζ_i^(−p/γ), the "
        "queries' inverse)"
    ]
