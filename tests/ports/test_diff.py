"""pecli diff: each porting mistake made by hand with NumPy (not with pecli), then named.

The reference cache is transformers' formula written out here: ``inv_freq = 1/θ^(2i/d)``,
``emb = cat(freqs, freqs)``, ``[cos | sin]`` (half-split); each mistake is one NumPy edit.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from safetensors.numpy import save_file

GGUF = Path(__file__).parent.parent / "fixtures" / "libraries" / "gguf"


def inv_freq(theta: float = 10000.0, d: int = 64) -> np.ndarray:
    return 1.0 / theta ** (np.arange(0, d, 2) / d)


def llama3(
    inv: np.ndarray, factor: float = 8.0, low: float = 1.0, high: float = 4.0, length: int = 1024
) -> np.ndarray:
    wavelen = 2 * math.pi / inv
    smooth = (length / wavelen - low) / (high - low)
    mixed = (1 - smooth) * inv / factor + smooth * inv
    return np.where(
        wavelen < length / high, inv, np.where(wavelen > length / low, inv / factor, mixed)
    )


def cache(
    inv: np.ndarray, n: int = 2048, start: int = 0, layout: str = "half-split", scale: float = 1.0
) -> np.ndarray:
    freqs = np.outer(np.arange(start, start + n, dtype=np.float64), inv)
    emb = np.concatenate([freqs, freqs], 1) if layout == "half-split" else np.repeat(freqs, 2, 1)
    return (np.concatenate([np.cos(emb), np.sin(emb)], 1) * scale).astype(np.float32)


def _run(run_cli, tmp_path, a: np.ndarray, b: np.ndarray, *options: str):
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    result = run_cli(
        "diff", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "--format", "json", *options
    )
    return result, json.loads(result.stdout) if result.stdout else None


def _causes(run_cli, tmp_path, a, b, *options):
    result, report = _run(run_cli, tmp_path, a, b, *options)
    assert result.exit_code == 1, result.output
    return [cause.split(":")[0] for cause in report["causes"]]


def test_tables_one_ulp_apart_are_equal_within_the_default_tolerance_only(run_cli, tmp_path):
    """Every entry of B one float32 step above A's: 1 ulp everywhere, so equal at --ulps 1
    (the default) and every entry different at --ulps 0."""
    a = cache(inv_freq())
    b = np.nextafter(a, np.float32(np.inf))
    result, report = _run(run_cli, tmp_path, a, b)
    assert result.exit_code == 0 and report["equal"] and report["differing"] == 0
    assert report["causes"] == [] and report["first"] is None
    assert [(d["first"], d["last"], d["max_ulps"]) for d in report["decades"]] == [
        (0, 9, 1.0),
        (10, 99, 1.0),
        (100, 999, 1.0),
        (1000, 2047, 1.0),
    ]
    result, report = _run(run_cli, tmp_path, a, b, "--ulps", "0")
    assert result.exit_code == 1 and report["differing"] == a.size
    assert report["first"] == {"row": 0, "column": 0}


def test_first_difference_and_decades_in_ulps(run_cli, tmp_path):
    a = cache(inv_freq())
    b = a.copy()
    b[345, 17] = np.nextafter(np.nextafter(b[345, 17], np.float32(9)), np.float32(9))
    result, report = _run(run_cli, tmp_path, a, b, "--start", "10")
    assert result.exit_code == 1
    assert report["first"] == {"row": 345, "column": 17} and report["differing"] == 1
    decade = next(d for d in report["decades"] if d["first"] <= 355 <= d["last"])
    assert decade["max_ulps"] == 2 and decade["differing"] == 1
    assert _run(run_cli, tmp_path, a, b, "--ulps", "2")[0].exit_code == 0


ROTATE_HALF = "(rotate_half pairs (i, i + d/2) against interleaved (2i, 2i + 1))"


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_entries_near_zero_are_in_ulps_of_the_largest_finite_magnitude(run_cli, tmp_path, dtype):
    """A NaN entry leaves the floor (2^-10 of the largest finite |x|) a number."""
    a = np.full((20, 4), 0.5, dtype)
    a[4, 0], a[12, 3] = np.nan, 0.0
    b = a.copy()
    b[12, 3] = 2.0**-14  # 2^-14 from 0: 2^-14 / ulp(2^-11) ulps (p significand bits)
    result, report = _run(run_cli, tmp_path, a, b)
    assert result.exit_code == 1 and report["differing"] == 1, result.output
    bits = np.finfo(dtype).nmant
    assert report["decades"][1]["max_ulps"] == 2.0**-14 / 2.0 ** (-11 - bits)


@pytest.mark.parametrize(
    ("make", "cause"),
    [
        (
            lambda a: cache(inv_freq(), layout="interleaved"),
            f"pair layout swapped: B's columns put in the half-split order are A {ROTATE_HALF}",
        ),
        (
            lambda a: a.T.copy(),
            "rows transposed: B is A transposed ((2048, 128) against (128, 2048))",
        ),
        (
            lambda a: cache(inv_freq(), start=3),
            "first position off by 3: A's row 3 is B's row 0 (B starts 3 positions later)",
        ),
        (
            lambda a: cache(inv_freq(500000.0)),
            "θ (base, rope_theta) differs: A reads as θ = 10000, B as θ = 500000",
        ),
        (
            lambda a: np.concatenate([a[:, 64:], a[:, :64]], 1),
            "sin/cos swapped: A's cos half is B's sin half and the other way round",
        ),
        (
            lambda a: np.concatenate([a[:, :32], a[:, 64:96]], 1),
            "half width against full width: A repeats each pair's value twice (half-split, "
            "the whole head), B holds it once per pair",
        ),
        (
            lambda a: (a / 1.25).astype(np.float32),
            "attention factor missing: A = 1.25 × B (the factor transformers puts on cos and "
            "sin for yarn / longrope is in one table only)",
        ),
        (
            lambda a: a.astype(ml_dtypes.bfloat16),
            "stored in bf16: B is A rounded once to bfloat16",
        ),
    ],
)
def test_each_mistake_is_named(run_cli, tmp_path, make, cause):
    """The whole sentence, as the mistake was made here: which table, which way, how much."""
    a = cache(inv_freq())
    result, report = _run(run_cli, tmp_path, a, make(a), "--ulps", "0")
    assert result.exit_code == 1 and cause in report["causes"], report["causes"]


@pytest.mark.parametrize(
    ("a", "b", "cause"),
    [
        (
            cache(inv_freq(), start=1),
            cache(inv_freq()),
            "first position off by 1: B's row 1 is A's row 0 (A starts 1 position later)",
        ),
        (
            cache(inv_freq()).astype(ml_dtypes.bfloat16),
            cache(inv_freq()),
            "stored in bf16: A is B rounded once to bfloat16",
        ),
    ],
)
def test_a_mistake_in_a_is_named_the_other_way_round(run_cli, tmp_path, a, b, cause):
    result, report = _run(run_cli, tmp_path, a, b, "--ulps", "0")
    assert result.exit_code == 1 and cause in report["causes"], report["causes"]


def test_scaling_missing_past_l(run_cli, tmp_path):
    scaled = cache(llama3(inv_freq()), n=4096)
    result, report = _run(run_cli, tmp_path, scaled, cache(inv_freq(), n=4096))
    assert result.exit_code == 1 and report["causes"] == [
        "scaling missing past L: A is llama3 (factor 8, L = 1024), the other unscaled: they "
        "agree at short wavelengths and part past the original context length; or the "
        "scaling applied to the wrong layer type (Gemma 3 scales its full-attention layers "
        "only, not its sliding-window ones)"
    ]


def test_computed_in_bf16(run_cli, tmp_path):
    bf = ml_dtypes.bfloat16
    positions = np.arange(2048).astype(bf).astype(np.float64)
    angles = (np.outer(positions, inv_freq().astype(bf).astype(np.float64))).astype(bf)
    emb = np.concatenate([angles, angles], 1).astype(np.float64)
    b = np.concatenate([np.cos(emb), np.sin(emb)], 1).astype(bf)
    result, report = _run(run_cli, tmp_path, cache(inv_freq()), b)
    assert result.exit_code == 1 and report["causes"] == [
        "computed in bf16: B's values are all bfloat16 numbers but not A's rounded (the error "
        "grows with the position: bf16 arithmetic)"
    ]


def test_safetensors_cos_sin_is_read_as_one_cache(run_cli, tmp_path):
    a = cache(inv_freq())
    save_file({"cos": a[:, :64].copy(), "sin": a[:, 64:].copy()}, str(tmp_path / "c.safetensors"))
    np.save(tmp_path / "a.npy", a)
    result = run_cli("diff", str(tmp_path / "a.npy"), str(tmp_path / "c.safetensors"))
    assert result.exit_code == 0, result.output


def test_gguf_tensors(run_cli):
    good, bad = str(GGUF / "llama31.gguf"), str(GGUF / "bad_llama31_freqs.gguf")
    assert run_cli("diff", good, good).exit_code == 0
    result = run_cli("diff", good, bad, "--format", "json")
    assert result.exit_code == 1 and json.loads(result.stdout)["first"] == {"row": 0, "column": 25}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.npy"], "'A'"),
        (["folder"], "not a folder: an existing .npy, CSV, .safetensors, .npz or .gguf file"),
        (["missing.gguf"], "must be an existing .npy, CSV, .safetensors, .npz or .gguf file"),
        (["several.safetensors"], "holds 2 tensors: name one with --tensor-a"),
        (["a.npy", "--ulps", "-1"], "--ulps"),
        (["a.npy", "--format", "json", "-o", "a.npy"], "must not be the input a.npy"),
    ],
)
def test_usage_errors_are_one_line(run_cli, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    Path("folder").mkdir()
    np.save("a.npy", cache(inv_freq(), n=4))
    save_file({"x": np.zeros(3, np.float32), "y": np.ones(3, np.float32)}, "several.safetensors")
    before = Path("a.npy").read_bytes()
    result = run_cli("diff", args[0], "a.npy", *args[1:])
    assert result.exit_code == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert Path("a.npy").read_bytes() == before


def test_a_few_ulps_are_no_shifted_start(run_cli, tmp_path):
    a = cache(inv_freq())
    b = a.copy()
    b[5, 3] = np.nextafter(np.nextafter(b[5, 3], np.float32(9)), np.float32(9))
    result, report = _run(run_cli, tmp_path, a, b, "--ulps", "0")
    assert result.exit_code == 1 and report["causes"] == []


def test_a_small_attention_factor_is_found(run_cli, tmp_path):
    a = cache(inv_freq())
    assert _causes(run_cli, tmp_path, a, (a / 1.01).astype(np.float32)) == [
        "attention factor missing"
    ]


def test_bf16_against_float32_is_measured_in_bf16_ulps(run_cli, tmp_path):
    a = cache(inv_freq(), n=16)
    b = a.astype(ml_dtypes.bfloat16)
    result, report = _run(run_cli, tmp_path, a, b)
    assert report["dtype"] == "bfloat16" and result.exit_code == 0  # within half a bf16 ulp


def test_rows_past_the_first_block(run_cli, tmp_path):
    a = np.linspace(-1, 1, 32 * 70000, dtype=np.float32).reshape(70000, 32)  # 3 blocks
    b = a.copy()
    b[69001, 1] += 0.5
    result, report = _run(run_cli, tmp_path, a, b)
    assert result.exit_code == 1
    assert report["first"] == {"row": 69001, "column": 1}
    assert [d["differing"] for d in report["decades"]] == [0, 0, 0, 0, 1]


def test_a_vector_against_a_cache_is_named_as_such(run_cli, tmp_path):
    causes = _causes(run_cli, tmp_path, inv_freq(), cache(inv_freq()))
    assert causes == ["not the same kind of table"]


#: (position, column, ulps) of each entry moved, and each decade's (first, last, ulps,
#: entries moved) as the entries were placed; rows 0-32767, 32768-65535, 65536-69999 are
#: compare's three blocks of 32 columns, and 10000-99999 spans all three.
MOVED = [(7, 0, 1), (42, 5, 3), (57, 31, 2), (500, 7, 5), (20000, 1, 7), (40000, 2, 4)]
MOVED += [(69000, 3, 2)]


@pytest.mark.parametrize("start", [0, 5])
def test_each_decade_holds_its_largest_error_and_count(start):
    """Values in [0.5, 1), where float32's spacing is 2^-24: k steps are k ulps, k·2^-24."""
    from pecli.analysis.ports.compare import compare

    a = np.random.default_rng(1).uniform(0.5, 0.9, (70000, 32)).astype(np.float32)
    b = a.copy()
    for position, column, k in MOVED:
        b[position - start, column] += np.float32(k * 2.0**-24)
    last = start + 69999
    spans = [(start, 9), (10, 99), (100, 999), (1000, 9999), (10000, last)]
    expected = []
    for first, end in spans:
        moved = [k for p, _, k in MOVED if first <= p <= end]
        most = max(moved, default=0)
        expected.append((first, end, most, most * 2.0**-24, len(moved)))
    result = compare(a, b, start=start, ulps=0)
    assert [(d.first, d.last, d.max_ulps, d.max_abs, d.differing) for d in result.decades] == (
        expected
    )
    assert result.first == (7 - start, 0) and result.differing == len(MOVED)


def test_the_headline_gives_the_row_and_its_position(run_cli, tmp_path):
    a = cache(inv_freq(), n=400)
    b = a.copy()
    b[345, 17] = np.nextafter(np.nextafter(b[345, 17], np.float32(9)), np.float32(9))
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    result = run_cli("diff", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), "--start", "10")
    assert result.exit_code == 1
    assert "1 entry differs, first at row 345 (position 355), column 17" in result.stdout
    assert "350…409" not in result.stdout and "100…409" in result.stdout  # decades of positions


@pytest.mark.parametrize(("start", "refused"), [(2**53 - 399, False), (2**53 - 398, True)])
def test_a_start_whose_last_row_is_past_2_to_the_53_is_refused(run_cli, tmp_path, start, refused):
    """400 rows from 2^53 − 399 end at 2^53 (exact); one later, the last row's position is
    not an exact integer, and ``--start`` is refused in its one rule, before
    any reading (it had labelled rows up to 2^53 + 70 000)."""
    a = cache(inv_freq(), n=400)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", a * np.float32(0.5))
    files = (str(tmp_path / "a.npy"), str(tmp_path / "b.npy"))
    result = run_cli("diff", *files, "--start", str(start))
    if not refused:
        assert result.exit_code == 1 and f"…{2**53}" in result.stdout
        return
    assert result.exit_code == 2 and result.stdout == ""
    rule = (
        "must be an integer, in digits, from 0, with start + n - 1 <= 2^53 "
        "(where integer positions are exact)"
    )
    assert result.stderr == (
        f"pecli diff: error: Invalid value for '--start': {rule} (got {start})\n"
    )


@pytest.mark.parametrize("value", ["1e3", "2.5", "-1", str(2**53 + 1)])
def test_a_start_of_any_other_kind_is_told_the_same_rule(run_cli, tmp_path, value):
    """``--start 1e3``, ``2.5``, ``-1`` and ``2^53 + 1`` were told "must be an integer from 0
    to 9007199254740992" (click's range), a last row past 2^53 another rule: one now, as
    docs/cli.md says, in the words of rope precision's --start (also from 0)."""
    np.save(tmp_path / "a.npy", cache(inv_freq(), n=4))
    files = (str(tmp_path / "a.npy"), str(tmp_path / "a.npy"))
    result = run_cli("diff", *files, "--start", value)
    assert result.exit_code == 2 and "from 0, with start + n - 1 <= 2^53" in (result.stderr), (
        result.stderr
    )
    assert result.stderr.count("\n") == 1 and f"(got {value})" in result.stderr


def test_two_rows_in_common_are_enough_to_name_an_offset(run_cli, tmp_path):
    """Positions 1-3 against 0-2: B's rows 1 and 2 are A's rows 0 and 1."""
    result, report = _run(
        run_cli, tmp_path, cache(inv_freq(), n=3, start=1), cache(inv_freq(), n=3)
    )
    assert result.exit_code == 1 and report["causes"] == [
        "first position off by 1: B's row 1 is A's row 0 (A starts 1 position later)"
    ]


# --- one reader for every format (pecli.io.reading.arrays) ----------------------------------


def test_an_npz_member_and_a_safetensors_pair_are_read_as_one_table(run_cli, tmp_path):
    """The same [cos | sin] cache as an .npz member, a .safetensors pair and a .npy: equal."""
    table = cache(inv_freq(d=16), n=32)
    half = table.shape[1] // 2
    np.save(tmp_path / "c.npy", table)
    np.savez(tmp_path / "c.npz", pe=table, other=np.zeros(3))
    pair = {"cos": table[:, :half].copy(), "sin": table[:, half:].copy()}
    save_file(pair, str(tmp_path / "c.safetensors"))
    npz, pair = str(tmp_path / "c.npz"), str(tmp_path / "c.safetensors")
    assert run_cli("diff", npz, str(tmp_path / "c.npy"), "--tensor-a", "pe").exit_code == 0
    assert run_cli("diff", pair, npz, "--tensor-b", "pe").exit_code == 0
    refused = run_cli("diff", npz, pair)  # two members, none named
    assert refused.exit_code == 2
    assert "Invalid value for 'A': holds 2 tensors: name one with --tensor-a" in refused.stderr
    missing = run_cli("diff", npz, pair, "--tensor-a", "po")
    assert missing.exit_code == 2 and "'--tensor-a': must name a tensor of" in missing.stderr


def test_the_reader_keeps_a_complex_npy_only_where_asked(tmp_path):
    from pecli.core.errors import ParameterError
    from pecli.io.reading.arrays import read_arrays

    z = np.exp(1j * np.outer(np.arange(4.0), [1.0, 0.1])).astype(np.complex64)
    np.save(tmp_path / "z.npy", z)
    arrays, metadata = read_arrays(str(tmp_path / "z.npy"), table=True)
    assert arrays["table"].dtype == np.complex64 and metadata == {}
    assert np.array_equal(arrays["table"], z)
    with pytest.raises(ParameterError, match="must hold real numbers"):
        read_arrays(str(tmp_path / "z.npy"))
    np.save(tmp_path / "v.npy", np.arange(5.0))  # a table must be 2-D; as stored, any shape
    assert read_arrays(str(tmp_path / "v.npy"))[0]["table"].shape == (5,)
    with pytest.raises(ParameterError, match="must hold a non-empty 2-D table"):
        read_arrays(str(tmp_path / "v.npy"), table=True)


def test_a_gguf_tensor_is_read_by_name_or_as_the_one_frequency_tensor():
    from pecli.core.errors import ParameterError
    from pecli.io.reading.arrays import read_arrays

    arrays, _ = read_arrays(str(GGUF / "llama31.gguf"))
    assert list(arrays) == ["rope_freqs.weight"] and arrays["rope_freqs.weight"].shape == (64,)
    assert arrays["rope_freqs.weight"][0] == 1.0 and arrays["rope_freqs.weight"][-1] == 8.0
    with pytest.raises(ParameterError, match="holds 2 frequency tensors") as refused:
        read_arrays(str(GGUF / "phi3.gguf"), parameter="a", tensor_parameter="tensor_a")
    assert refused.value.parameter == "a" and "`tensor_a`" in refused.value.rule
    long, _ = read_arrays(str(GGUF / "phi3.gguf"), tensor="rope_factors_long.weight")
    assert long["rope_factors_long.weight"].dtype == np.float32
    with pytest.raises(ParameterError, match=r"must be \.npy or CSV, not a GGUF file"):  # named
        read_arrays(str(GGUF / "llama31.gguf"), formats=(".npy", "CSV", ".safetensors"))


def test_no_atol_hint_when_the_cause_is_not_the_arithmetic(run_cli, tmp_path):
    """The `atol` hint goes with the arithmetic cause only: a start off by 3 is no rounding."""
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    np.save(a, cache(inv_freq()))
    np.save(b, cache(inv_freq(), start=3))
    result = run_cli("diff", str(a), str(b))
    assert result.exit_code == 1 and "likely cause: first position off by 3" in result.output
    assert "hint:" not in result.output


def test_stdin_for_both_tables_is_refused_before_reading(run_cli):
    """stdin is read once: B would find it empty ("must hold at least one row")."""
    result = run_cli("diff", "-", "-", input="sin_1,cos_1\n0.0,1.0\n")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "'B': cannot be stdin (-) as well as A" in result.output


@pytest.mark.parametrize("scale", [-1.0, -1.2])
def test_a_negated_cache_is_no_missing_attention_factor(run_cli, tmp_path, scale):
    """B = -A (or -1.2·A) was named "attention factor missing: A = -1 × B": an attention
    factor scales cos and sin, it never flips their sign. 1.2·A still is one."""
    a = cache(inv_freq(), n=64)
    for on, named in ((scale, False), (1.2, True)):
        found = _causes(run_cli, tmp_path, a, (a * np.float32(on)).astype(np.float32))
        assert ("attention factor missing" in found) == named, (on, found)
    half = a.shape[1] // 2
    b = a.copy()
    b[:, :half] *= np.float32(scale)  # cos only, negated
    assert "attention factor on one side only" not in _causes(run_cli, tmp_path, a, b)


@pytest.mark.parametrize(
    "make", [np.zeros_like, lambda a: np.full_like(a, np.inf), lambda a: np.full_like(a, 1e30)]
)
def test_a_zeroed_or_constant_table_is_not_computed_in_bf16(run_cli, tmp_path, make):
    """Zeros, infinities or one constant are bfloat16 numbers by themselves: a zeroed
    buffer against a cache was named "computed in bf16 … the error grows with the
    position". A cache really computed in bfloat16 (rounded after each product) still is."""
    a = cache(inv_freq(), n=64)
    assert not any(
        c.startswith(("computed in", "stored in"))
        for c in _causes(run_cli, tmp_path, a, make(a).astype(np.float32))
    )
    inv = inv_freq().astype(ml_dtypes.bfloat16)
    p = np.arange(64, dtype=np.float64).astype(ml_dtypes.bfloat16)
    freqs = (p[:, None] * inv[None, :]).astype(ml_dtypes.bfloat16).astype(np.float64)
    emb = np.concatenate([freqs, freqs], 1)
    bf16 = np.concatenate([np.cos(emb), np.sin(emb)], 1).astype(ml_dtypes.bfloat16)
    found = _causes(run_cli, tmp_path, a, bf16.astype(np.float32))
    assert "computed in bf16" in found, found


@pytest.mark.parametrize(
    ("start", "dtype", "first"),
    [(5, np.float32, 5), (2048, np.float16, 0), (2**24 + 1, np.float64, 0), (300, np.float64, 300)],
)
def test_rows_are_numbered_from_a_read_position_only_where_the_values_pin_it(
    run_cli, tmp_path, start, dtype, first
):
    """Without --start, a rope cache's rows are numbered from the position both readings
    find, in float32 or float64 and below 2^24; else from 0. A float16 cache at 2048 is read
    as starting at 163 (its values blur large positions), and its rows had been numbered
    163…202 with no word of doubt."""
    inv = 10000.0 ** (-np.arange(0, 8, 2) / 8)
    a = cache(inv, n=40, start=start).astype(dtype)
    b = a.copy()
    b[5, 3] = dtype(0.5)
    result, report = _run(run_cli, tmp_path, a, b)
    assert result.exit_code == 1 and report["start"] == first
    assert report["first"] == {"row": 5, "column": 3}


@pytest.mark.parametrize("option", ["--ulps", "--atol"])
@pytest.mark.parametrize("value", ["inf", "1e400", "nan"])
def test_an_infinite_tolerance_is_refused_as_nan_is(run_cli, tmp_path, option, value):
    """``--ulps inf`` said "equal within the tolerance" of tables 1e6 ulps apart: an
    infinite tolerance makes every entry equal, as NaN would; both are refused."""
    a = cache(inv_freq(), n=8)
    result, report = _run(run_cli, tmp_path, a, a * np.float32(2), option, value)
    assert result.exit_code == 2 and report is None
    assert f"'{option}': must be a finite number >= 0" in result.stderr
