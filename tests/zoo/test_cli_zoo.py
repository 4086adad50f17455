"""``pecli alibi …`` and ``pecli t5-buckets``: output against the core and the libraries' own
tensors, and the guarantees every command keeps (one-line usage errors, nothing written)."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import shlex
from fractions import Fraction

import numpy as np
import pytest
from library_fixtures import load
from test_zoo_alibi import exact_slope

from pecli.core.zoo.alibi import alibi_bias, alibi_slopes

FIXTURES = {f.name: f for f in load("zoo")}


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_slopes_csv_and_npy(run_cli, tmp_path):
    result = run_cli("alibi", "slopes", "--heads", "12", "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = _rows(result.stdout)
    assert [float(r["log2_slope"]) for r in rows] == [
        -1,
        -2,
        -3,
        -4,
        -5,
        -6,
        -7,
        -8,
        -0.5,
        -1.5,
        -2.5,
        -3.5,
    ]
    out = tmp_path / "s.npy"
    assert (
        run_cli("alibi", "slopes", "--heads", "40", "--dtype", "float64", "-o", str(out)).exit_code
        == 0
    )
    # ALiBi's geometric series for 40 heads (32 and every other of 64), in mpmath, rounded once
    exact = [float(exact_slope(40, h, 8.0)) for h in range(40)]
    assert np.array_equal(np.load(out), np.array(exact))


def test_slopes_table_names_the_series(run_cli):
    result = run_cli("alibi", "slopes", "--heads", "12", "--variant", "next-power-of-two")
    assert result.exit_code == 0 and "WRONG" in result.stdout
    assert ["8", "0.044194173", "-4.5"] in [line.split() for line in result.stdout.splitlines()]


def test_bias_npy_is_the_core_tensor_and_csv_one_head(run_cli, tmp_path):
    out = tmp_path / "b.npy"
    args = ("alibi", "bias", "--heads", "6", "--n", "9", "--queries", "4", "--max-bias", "4")
    assert run_cli(*args, "-o", str(out)).exit_code == 0
    expected = alibi_bias(alibi_slopes(6, max_bias=4), 9, n_query=4)
    assert np.array_equal(np.load(out), expected.astype(np.float32))
    rows = _rows(run_cli(*args, "--head", "2", "--format", "csv").stdout)
    assert [float(v) for v in rows[3].values()] == expected[2, 3].astype(np.float32).tolist()


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ((), "pecli: every value correctly rounded to float32: 0 undecided"),
        (("--convention", "mpt"), "pecli: every value correctly rounded to float32: 0 undecided"),
        (("--dtype", "float64"), "pecli: float64 values within the kernels' error bounds"),
        (("--convention", "falcon"), None),  # Falcon's bfloat16 arithmetic, on purpose
    ],
)
def test_bias_states_its_certificate(run_cli, tmp_path, options, said):
    out = tmp_path / "b.npy"
    result = run_cli("alibi", "bias", "--heads", "12", "--n", "40", *options, "-o", str(out))
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert lines[0] == f"pecli: wrote {out}"
    assert (lines[1].split(" (")[0] if len(lines) > 1 else None) == said


def test_bias_certificate_recomputes_a_planted_near_tie(run_cli, tmp_path):
    """fl(m·d) is a float32 midpoint (tests/zoo/test_zoo_alibi_blocks.py): mpmath decides it."""
    import mpmath

    out = tmp_path / "b.npy"
    args = ("--heads", "64", "--max-bias", "6", "--head", "48", "--convention", "mpt")
    result = run_cli("alibi", "bias", *args, "--n", "4442238", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "every value correctly rounded to float32: 1 recomputed" in result.stderr
    with mpmath.workprec(300):
        exact = exact_slope(64, 48, 6.0) * 4442237
    with mpmath.workprec(24):
        assert float(np.load(out)[0, 0]) == -float(+exact) == -183969.21875


def test_bias_reproduces_bloom_with_left_padding(run_cli, tmp_path):
    fixture = FIXTURES["falcon_bias_leftpad_h12"]
    out = tmp_path / "f.npy"
    result = run_cli(
        "alibi",
        "bias",
        "--heads",
        "12",
        "--n",
        "12",
        "--convention",
        "falcon",
        "--left-padding",
        "3",
        "-o",
        str(out),
    )
    assert result.exit_code == 0, result.output
    assert np.array_equal(np.load(out), fixture.table)


@pytest.mark.parametrize(
    "name",
    [
        "bloom_bias_plain_h32",
        "falcon_bias_plain_h12",
        "mpt_bias_h71_b8",
        "mpt_bias_h12_b16",
        "bloom_slopes_h20",
    ],
)
def test_identify_library_tensors(run_cli, tmp_path, name):
    fixture = FIXTURES[name]
    path = tmp_path / "t.npy"
    np.save(path, fixture.table[None] if fixture.name.startswith("mpt") else fixture.table)
    result = run_cli("alibi", "identify", str(path), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    fit = report if report["kind"] == "slopes" else report["slope_fit"]
    assert (fit["heads"], fit["max_bias"], fit["series"]) == (
        fixture.params["heads"],
        fixture.params["max_bias"],
        "press",
    )
    if report["kind"] == "bias":
        assert report["convention"] == fixture.params["convention"]


def test_identify_flags_the_wrong_variant(run_cli, tmp_path):
    path = tmp_path / "s.npy"
    np.save(path, alibi_slopes(16)[:12].astype(np.float32))  # get_slopes(16)[:12]
    result = run_cli("alibi", "identify", str(path))
    assert result.exit_code == 0
    assert (
        "series: next-power-of-two, WRONG" in result.stdout
        and "12 heads, max_bias 8" in result.stdout
    )


def test_identify_no_alibi_is_status_1_or_2(run_cli, tmp_path):
    path = tmp_path / "s.npy"
    np.save(path, np.array([0.5, 0.3, 0.01]))
    result = run_cli("alibi", "identify", str(path))
    assert result.exit_code == 1 and "not determined" in result.stdout
    np.save(path, np.random.default_rng(0).normal(size=(3, 4, 5)))
    result = run_cli("alibi", "identify", str(path))
    assert result.exit_code == 2 and "no ALiBi bias" in result.stderr


def test_t5_buckets_csv_and_grid(run_cli, tmp_path):
    rows = _rows(run_cli("t5-buckets", "--span", "200", "--format", "csv").stdout)
    golden = {-200: 15, -128: 15, -20: 10, -8: 8, -1: 1, 0: 0, 1: 17, 8: 24, 20: 26, 128: 31}
    got = {int(r["relative_position"]): int(r["bucket"]) for r in rows}
    assert {k: got[k] for k in golden} == golden and len(rows) == 401
    out = tmp_path / "g.npy"
    fixture = FIXTURES["t5_compute_bias_decoder_past7"]
    args = ("t5-buckets", "--causal", "--keys", "200", "--queries", "5", "--past", "7")
    assert run_cli(*args, "-o", str(out)).exit_code == 0
    assert np.array_equal(np.load(out), fixture.table)


def test_t5_buckets_table_lists_bucket_ranges(run_cli):
    result = run_cli("t5-buckets")
    assert result.exit_code == 0
    # bucket 15, the last of the causal side: n from 8·16^(7/8) rounded up (91) to the span's
    # 136, relative positions -136 … -91, 136 - 91 + 1 = 46 of them
    assert any(line.split() == ["15", "-136", "-91", "46"] for line in result.stdout.splitlines())


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["alibi", "slopes", "--heads", "0"], "--heads"),
        (["alibi", "slopes", "--heads", "8", "--max-bias", "0"], "--max-bias"),
        (["alibi", "bias", "--heads", "8"], "--head"),  # CSV of a 3-D tensor
        (["alibi", "bias", "--heads", "8", "--head", "8"], "--head"),
        (["alibi", "bias", "--heads", "8", "--left-padding", "2"], "--left-padding"),
        (
            ["alibi", "bias", "--heads", "8", "--convention", "bloom", "--left-padding", "16"],
            "--left-padding",
        ),
        (["alibi", "bias", "--heads", "64", "--n", "4096", "--format", "npy"], "--n"),
        (["alibi", "bias", "--heads", "1", "--n", "9000", "--head", "0"], "--n"),
        (["alibi", "bias", "--heads", "12", "--n", "0"], "'--n'"),  # not '--head' (CSV's need)
        (["alibi", "bias", "--heads", "8", "--convention", "mpt", "--queries", "2"], "--queries"),
        (["t5-buckets", "--num-buckets", "3"], "--num-buckets"),
        (["t5-buckets", "--max-distance", "4"], "--max-distance"),
        (["t5-buckets", "--keys", "100000"], "--keys"),
        (["t5-buckets", "--span", "-1"], "--span"),
        (["t5-buckets", "--queries", "-1"], "'--queries': applies only with --keys"),  # was ignored
        (["t5-buckets", "--past", "3"], "'--past': applies only with --keys"),
        (["t5-buckets", "--keys", "4", "--span", "3"], "'--span': applies only without --keys"),
    ],
)
def test_bad_input_is_one_line_status_2_no_file(run_cli, tmp_path, args, option):
    out = tmp_path / "x.csv"
    result = run_cli(*args, "-o", str(out))
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and option in lines[0] and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_existing_output_survives_a_refusal(run_cli, tmp_path):
    out = tmp_path / "keep.npy"
    out.write_bytes(b"precious")
    result = run_cli("alibi", "bias", "--heads", "64", "--n", "4096", "-o", str(out))
    assert result.exit_code == 2 and out.read_bytes() == b"precious"


def _transcripts() -> list[str]:
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent.parent / "docs" / "zoo.md").read_text("utf-8")
    return [b for b in re.findall(r"^```\n(.*?)^```", page, re.M | re.S) if b.startswith("$ ")]


TRANSCRIPTS = _transcripts()


def test_transcripts_found():
    assert len(TRANSCRIPTS) >= 2


@pytest.mark.parametrize("transcript", TRANSCRIPTS)
def test_docs_transcripts_print_what_they_show(transcript, tmp_path, pecli_cmd):
    """Each ``$ …`` line of docs/zoo.md (pecli, or python with this environment), run in order
    in a scratch folder, prints the lines below it."""
    import sys

    from shell import bash

    script = "\n".join(
        line[2:] if line.startswith("$ ") else f": {shlex.quote(line)}"
        for line in transcript.splitlines()
    )
    pecli = " ".join(map(shlex.quote, pecli_cmd))
    python = shlex.quote(sys.executable)
    result = bash(f'pecli() {{ {pecli} "$@"; }}\npython() {{ {python} "$@"; }}\n{script}', tmp_path)
    assert result.returncode == 0, result.stderr
    shown = [line for line in transcript.splitlines() if not line.startswith("$ ")]
    assert result.stdout.splitlines() == shown


def test_xpos_csv_and_npy(run_cli, tmp_path):
    from pecli.core.zoo.xpos import xpos_scales

    args = ("xpos", "--head-dim", "8", "--n", "3", "--scale-base", "1", "--centre", "lucidrains")
    rows = list(csv.reader(io.StringIO(run_cli(*args, "--format", "csv").stdout)))
    # one name per column (a pair's two channels hold the same scale): channel c, pair c // 2
    assert rows[0] == [
        "ch0_pair0",
        "ch1_pair0",
        "ch2_pair1",
        "ch3_pair1",
        "ch4_pair2",
        "ch5_pair2",
        "ch6_pair3",
        "ch7_pair3",
    ]
    assert [round(float(v), 6) for v in rows[3][::2]] == [0.285714, 0.464286, 0.642857, 0.821429]
    fixture = FIXTURES["xpos_torchscale_d16_L9_off4_k"]
    out = tmp_path / "x.npy"
    args = ("xpos", "--head-dim", "16", "--n", "9", "--offset", "4", "--scale-base", "16")
    assert run_cli(*args, "--keys", "--dtype", "float64", "-o", str(out)).exit_code == 0
    # float64 end to end (the fixture below holds to float32 only): the core's very values
    assert np.array_equal(np.load(out), xpos_scales(9, 16, scale_base=16, offset=4, keys=True))
    i = np.arange(8)
    library = np.hypot(fixture.table[2 * i, :, 2 * i], fixture.table[2 * i, :, 2 * i + 1]).T
    np.testing.assert_allclose(np.load(out)[:, ::2], library, rtol=4e-7)


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--head-dim", "7"], "--head-dim"),
        (["--centre", "lucidrains", "--offset", "2"], "--offset"),
        (["--scale-base", "-1"], "--scale-base"),
        (["--n", "1048576", "--head-dim", "128"], "--n"),
    ],
)
def test_xpos_refusals(run_cli, tmp_path, args, option):
    out = tmp_path / "x.npy"
    result = run_cli("xpos", *args, "-o", str(out))
    assert result.exit_code == 2 and option in result.stderr and not out.exists()


def test_timestep_is_the_library_table(run_cli, tmp_path):
    fixture = load("timesteps")
    (flux,) = [f for f in fixture if f.name == "flux_diffusers_bfloat16_emb"]
    out = tmp_path / "t.npy"
    values = [str(v) for v in flux.params["values"]]
    args = ("timestep", "--model", "flux", "--input-dtype", "bfloat16", "-o", str(out))
    assert run_cli(*args, "--", *values).exit_code == 0
    np.testing.assert_allclose(np.load(out), flux.table, atol=5e-5)
    inputs = _rows(run_cli("timestep", "--model", "consistency", "--inputs", "80", "0.002").stdout)
    # consistency models: c_noise = 250·ln σ, so 250·ln 80 and 250·ln 0.002, as float32
    assert [r["input"] for r in inputs] == [str(np.float32(250 * math.log(s))) for s in (80, 0.002)]


def test_timestep_inputs_as_csv_say_two_columns(run_cli, tmp_path):
    """--inputs to a CSV file: a row per value, two columns (value, input); --json says so."""
    out = tmp_path / "inputs.csv"
    args = ("--model", "consistency", "--inputs", "80", "0.002", "0.5", "-o", str(out), "--json")
    said = run_cli("timestep", *args)
    assert said.exit_code == 0
    report = json.loads(said.stderr)  # a file written: the report on stderr
    assert (report["format"], report["shape"], report["certificate"]) == ("csv", [3, 2], None)
    rows = _rows(out.read_text(encoding="utf-8"))
    assert len(rows) == 3 and all(list(r) == ["value", "input"] for r in rows)


def test_timestep_reads_a_column_and_a_linspace(run_cli, tmp_path):
    column = tmp_path / "sigma.csv"
    column.write_text("0.5\n2\n", encoding="utf-8")
    from_file = _rows(run_cli("timestep", "--model", "edm", "--d", "4", "-i", str(column)).stdout)
    from pecli.core.zoo.timesteps import timestep_table

    got = np.array([[float(v) for v in r.values()] for r in from_file], dtype=np.float32)
    assert np.array_equal(got, timestep_table([0.5, 2.0], "edm", d=4))
    rows = _rows(
        run_cli("timestep", "--model", "dit", "--d", "8", "--linspace", "0", "999", "4").stdout
    )
    assert len(rows) == 4 and list(rows[0]) == [
        "cos_1",
        "cos_2",
        "cos_3",
        "cos_4",
        "sin_1",
        "sin_2",
        "sin_3",
        "sin_4",
    ]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--model", "edm", "0"], "'VALUES...'"),
        (["--model", "sdxl", "1"], "--model"),
        ([], "give exactly one source"),
        (["--linspace", "0", "1", "3", "0.5"], "give exactly one source"),
        (["--input-dtype", "int8", "1"], "--input-dtype"),
        (["--d", "1000000", "--linspace", "0", "1", "100"], "--d"),
        (["--", "abc"], "'abc' is not a number"),
    ],
)
def test_timestep_refusals(run_cli, tmp_path, args, needle):
    out = tmp_path / "t.csv"
    result = run_cli("timestep", *args, "-o", str(out))
    assert result.exit_code == 2 and needle in result.stderr and not out.exists()
    assert len(result.stderr.strip().splitlines()) == 1


def test_xpos_half_split_columns_name_pair_c_mod_half(run_cli):
    """half-split: channel c and c + d/2 share pair c mod d/2 (d = 8: 0 1 2 3 0 1 2 3)."""
    args = ("xpos", "--head-dim", "8", "--n", "2", "--layout", "half-split", "--format", "csv")
    result = run_cli(*args)
    assert result.exit_code == 0, result.output
    header = next(csv.reader(io.StringIO(result.stdout)))
    assert header == [f"ch{c}_pair{i}" for c, i in enumerate((0, 1, 2, 3, 0, 1, 2, 3))]


@pytest.mark.parametrize(
    ("offset", "position"),
    # torchscale, L = 1: the one position is offset - ceil((1 + offset)/2), by hand
    [(166, 82), (167, 83), (1 << 30, 1 << 29)],
)
def test_xpos_refuses_an_offset_whose_scales_round_to_0(run_cli, tmp_path, offset, position):
    """ζ_0 = 2/7 at d = 2, γ = 1: the query scale (2/7)^p rounds to 0 in float32 exactly when
    it is below half the smallest subnormal, 2^-150 (exact rationals: p = 82 keeps a
    subnormal, p = 83 does not); such an offset is refused before the table, never a table
    of zeros with status 0."""
    exact = Fraction(2, 7) ** min(position, 200)  # past 200 far below 2^-150 anyway
    out = tmp_path / "x.npy"
    args = ("xpos", "--head-dim", "2", "--n", "1", "--scale-base", "1", "--offset", str(offset))
    result = run_cli(*args, "-o", str(out))
    if exact > Fraction(1, 2**150):
        assert result.exit_code == 0, result.output
        assert np.load(out)[0, 0] == np.float32(float(exact)) > 0
        return
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "'--offset'" in result.stderr, result.stderr
    assert "above 0 in float32" in result.stderr and not out.exists()


@pytest.mark.parametrize(("span", "rows"), [("0", [("0", "0")]), ("1", None)])
def test_t5_buckets_span_0_is_the_one_relative_position_0(run_cli, span, rows):
    """--span 0 is allowed (0 <= S): the single relative position 0, in bucket 0."""
    result = run_cli("t5-buckets", "--span", span, "--format", "csv")
    assert result.exit_code == 0, result.output
    got = [(r["relative_position"], r["bucket"]) for r in _rows(result.stdout)]
    assert got == (rows or [("-1", "1"), ("0", "0"), ("1", "17")])


def test_t5_buckets_span_may_be_2_to_the_22():
    """S <= 2^22 includes 2^22: relative positions -2^22 … 2^22, 2^23 + 1 of them."""
    from pecli.cli.zoo.t5 import _span

    rp = _span(1 << 22, 128)
    assert (rp.size, rp[0], rp[-1]) == (2**23 + 1, -(2**22), 2**22)
