"""The zoo commands at the edges of their documented ranges and defaults, worked out by hand:
ALiBi's split of a head count, --left-padding's 4096 sequences, T5's --span, the figures' --n
and --span, xPos's default length, and how many inputs ``random-fourier --read`` shows."""

from __future__ import annotations

import csv
import io
import json
import math

import mpmath
import numpy as np
import pytest
from library_fixtures import ROOT

from pecli.core.errors import ParameterError


@pytest.mark.parametrize(
    ("heads", "split"),
    [
        (12, "(8 heads, then 4 from the 16-head series)"),
        (8, "(8 heads)"),
        (1, "(1 heads)"),
        (40, "(32 heads, then 8 from the 64-head series)"),
    ],
)
def test_slopes_table_says_how_the_heads_split(run_cli, heads, split):
    """ALiBi (Press et al., get_slopes): the largest power of two p <= n heads from the p-head
    series, the other n - p from every other slope of the 2p-head series."""
    result = run_cli("alibi", "slopes", "--heads", str(heads))
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"{heads} heads, max_bias 8 {split}; series press")


@pytest.mark.parametrize(("sequences", "ok"), [(4096, True), (4097, False)])
def test_left_padding_takes_at_most_4096_sequences(run_cli, tmp_path, sequences, ok):
    """The documented batch limit, 4096 sequences: BLOOM's (batch·heads, 1, keys) tensor of
    one head and 2 keys per sequence, all unpadded: each row m·(0, 1), one head's m = 2^-8."""
    out = tmp_path / "b.npy"
    args = ("alibi", "bias", "--heads", "1", "--n", "2", "--convention", "bloom")
    result = run_cli(*args, "--left-padding", ",".join(["0"] * sequences), "-o", str(out))
    if ok:
        assert result.exit_code == 0, result.output
        assert np.array_equal(np.load(out), np.tile(np.float32([0, 2**-8]), (4096, 1, 1)))
        return
    assert result.exit_code == 2 and "'--left-padding'" in result.stderr and not out.exists()


def test_a_batch_of_exactly_2_to_the_26_values_is_allowed():
    """The batch's tensor must stay *within* 2^26 values: 2 sequences of 2 heads of 2^24 keys
    are allowed, a third sequence is refused (checked before any row is built); one key more
    is past one sequence's own bound, 2^24 keys, and refused as --n's."""
    from pecli.cli.zoo.alibi import _masks
    from pecli.core.zoo.alibi.records import ALIBI_CONVENTIONS

    bloom = ALIBI_CONVENTIONS["bloom"]
    assert _masks("0,0", 1 << 24, bloom, 2, None) == [None, None]
    with pytest.raises(ParameterError) as error:
        _masks("0,0,0", 1 << 24, bloom, 2, None)
    assert error.value.parameter == "left_padding" and "3 sequences" in str(error.value)
    with pytest.raises(ParameterError) as error:
        _masks("0,0", (1 << 24) + 1, bloom, 2, None)
    assert error.value.parameter == "n"


@pytest.mark.parametrize("padding", ["\u00b2", "\u0663"])  # superscript 2, Arabic-Indic 3
def test_left_padding_is_ascii_digits_only(run_cli, tmp_path, padding):
    """Whole numbers in ASCII digits: a character str.isdigit() takes that is no ASCII digit
    is refused in one line, like any other bad --left-padding."""
    out = tmp_path / "b.npy"
    args = ("alibi", "bias", "--heads", "1", "--n", "8", "--convention", "bloom")
    result = run_cli(*args, "--left-padding", padding, "-o", str(out))
    assert result.exit_code == 2 and not out.exists(), result.output
    assert "'--left-padding'" in result.stderr and "whole numbers" in result.stderr


def test_left_padding_of_n_names_the_largest_allowed_n_minus_1(run_cli, tmp_path):
    """A sequence of --n 8 keys keeps at least one: its padding is 0 to 7, and --left-padding 8
    is refused with that bound written out, 8 - 1 = 7."""
    out = tmp_path / "b.npy"
    args = ("alibi", "bias", "--heads", "1", "--n", "8", "--convention", "bloom")
    result = run_cli(*args, "--left-padding", "8", "-o", str(out))
    assert result.exit_code == 2 and not out.exists(), result.output
    assert "'--left-padding': must be from 0 to --n - 1 (7) (got 8)" in result.stderr


def test_one_sequence_too_large_is_blamed_on_n_not_on_left_padding(run_cli, tmp_path):
    """BLOOM's key-only rows, 64 heads × (2^20 + 1) keys > 2^26, no --left-padding given: the
    one sequence's refusal names --n (the batch's rule is for two or more sequences)."""
    out = tmp_path / "b.npy"
    args = ("alibi", "bias", "--heads", "64", "--n", str((1 << 20) + 1), "--convention", "bloom")
    result = run_cli(*args, "-o", str(out))
    assert result.exit_code == 2 and not out.exists()
    assert "'--n'" in result.stderr and "left-padding" not in result.stderr


def test_t5_span_stops_at_2_to_the_22():
    """--span is 0 to 2^22 (its help): 2^22 + 1 is refused before any position is made."""
    from pecli.cli.zoo.t5 import _span

    with pytest.raises(ParameterError) as error:
        _span((1 << 22) + 1, 128)
    assert error.value.parameter == "span"


def test_xpos_default_is_16_rows_of_torchscale_centred_at_8(run_cli):
    """Without --n: L = 16; d = 2 (one pair, ζ_0 = 0.8/2.8 = 2/7), γ = 512, torchscale's
    c = ceil(16/2) = 8: row t is (2/7)^((t - 8)/512), exact in mpmath, rounded to float32."""
    result = run_cli("xpos", "--head-dim", "2", "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.reader(io.StringIO(result.stdout)))[1:]
    with mpmath.workdps(40):
        exact = [float((mpmath.mpf(2) / 7) ** (mpmath.mpf(t - 8) / 512)) for t in range(16)]
    assert [[np.float32(v) for v in row] for row in rows] == [[np.float32(e)] * 2 for e in exact]


@pytest.mark.parametrize(("rows", "more"), [(8, ""), (9, " …")])
def test_read_back_shows_eight_inputs_then_an_ellipsis(run_cli, tmp_path, rows, more):
    """--read lists the first 8 inputs; a ninth row or more is an ellipsis. The table is
    score-SDE's GaussianFourierProjection by hand, [sin | cos](2π·x·W), x = 0.5, 1, 1.5, …"""
    from safetensors.numpy import load_file

    path = ROOT / "timesteps" / "rff_gaussianfourierprojection_yang-song.safetensors"
    (w,) = load_file(str(path)).values()
    x = 0.5 * np.arange(1, rows + 1)
    angles = 2 * math.pi * np.outer(x, w.astype(np.float64))
    table = tmp_path / "t.npy"
    np.save(table, np.concatenate([np.sin(angles), np.cos(angles)], axis=1))
    result = run_cli("random-fourier", str(path), "--read", str(table))
    assert result.exit_code == 0, result.output
    shown = "0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4" + more
    assert result.stdout.splitlines()[-1] == f"inputs x of the {rows} rows: {shown}"


@pytest.mark.parametrize("max_bias", [1024, 1024.0, 0.5, 1024.5, 0, True, "8"])
def test_max_bias_is_a_number_above_0_up_to_1024(max_bias):
    """max_bias is documented as a number > 0 and <= 1024, 1024 included (a bool or a string
    is no number). The next-power-of-two series of 3 heads is 2^(-b·(h+1)/4): at b = 1024
    2^-256, 2^-512, 2^-768 exactly; at b = 1/2, 2^(-1/8), 2^(-1/4), 2^(-3/8) (mpmath)."""
    from pecli.core.zoo.alibi import alibi_slopes

    if isinstance(max_bias, bool | str) or not 0 < max_bias <= 1024:
        with pytest.raises(ParameterError) as error:
            alibi_slopes(3, max_bias=max_bias, variant="next-power-of-two")
        assert error.value.parameter == "max_bias"
        return
    slopes = alibi_slopes(3, max_bias=max_bias, variant="next-power-of-two")
    with mpmath.workdps(50):
        exact = [float(mpmath.mpf(2) ** (-mpmath.mpf(max_bias) * h / 4)) for h in (1, 2, 3)]
    assert slopes.tolist() == exact


@pytest.mark.parametrize(
    ("start", "stop", "num"),
    [
        (0.0, 1.0, 1),
        (0.0, 1.0, 1 << 24),
        (0.0, 1.0, 0),
        (0.0, 1.0, (1 << 24) + 1),
        (-math.inf, 1.0, 3),
        (0.0, math.nan, 3),
    ],
)
def test_timestep_linspace_takes_finite_ends_and_1_to_2_to_the_24_values(start, stop, num):
    """--linspace START STOP NUM: finite ends and NUM 1 to 2^24, both ends included (its help).
    NUM = 1 is START alone; NUM = 2^24 runs 0 … 1 in steps of 1/(2^24 - 1)."""
    from pecli.cli.zoo.timestep import read_values

    if not (math.isfinite(start) and math.isfinite(stop) and 1 <= num <= 1 << 24):
        with pytest.raises(ParameterError) as error:
            read_values(None, None, (start, stop, num), 1)
        assert error.value.parameter == "linspace"
        return
    x = read_values(None, None, (start, stop, num), 1)
    assert x.size == num and x[0] == 0.0 and x[-1] == (1.0 if num > 1 else 0.0)
    assert num == 1 or x[1] == 1 / ((1 << 24) - 1)


@pytest.mark.parametrize(
    ("padding", "rows"), [(None, [[0, 1, 2]]), ("1,0", [[0, 0, 1], [0, 1, 2]])]
)
def test_alibi_head_of_a_batch_is_that_heads_row_of_each_sequence(run_cli, padding, rows):
    """BLOOM's key-only m·(cumsum(mask) - 1)·mask, 4 heads of max_bias 8 (press): head 2's
    slope is 2^-6. Left padding 1 masks key 0 of sequence 0: its positions are 0, 0, 1."""
    args = ["alibi", "bias", "--heads", "4", "--n", "3", "--convention", "bloom", "--head", "2"]
    extra = ["--left-padding", padding] if padding else []
    result = run_cli(*args, *extra, "--format", "csv")
    assert result.exit_code == 0, result.output
    got = list(csv.reader(io.StringIO(result.stdout)))
    assert got[0] == ["key_0", "key_1", "key_2"]
    assert [[float(v) for v in row] for row in got[1:]] == [[p * 2**-6 for p in r] for r in rows]


@pytest.mark.parametrize("shape", [(20,), (1, 20), (20, 1)])
def test_identify_reads_one_row_or_column_as_slopes(run_cli, tmp_path, shape):
    """The command's doc: a 1-D input, or one row or column, is a slope vector. BLOOM's own
    20 slopes (library fixture) read so: 20 heads, max_bias 8, the press series."""
    from library_fixtures import load

    fixture = next(f for f in load("zoo") if f.name == "bloom_slopes_h20")
    path = tmp_path / "s.npy"
    np.save(path, np.asarray(fixture.table).reshape(shape))
    result = run_cli("alibi", "identify", str(path), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["kind"] == "slopes"
    assert (report["heads"], report["max_bias"], report["series"]) == (20, 8, "press")


def test_identify_reads_a_2d_matrix_as_one_head_of_bias(run_cli, tmp_path):
    """The command's doc: any other 2-D array is a one-head matrix. The paper's causal
    -m·(i-j), -inf above the diagonal, with m = 2^-8 (Press et al.: one head, max_bias 8)."""
    i, j = np.arange(5)[:, None], np.arange(5)
    path = tmp_path / "b.npy"
    np.save(path, np.where(j <= i, -(2.0**-8) * (i - j), -np.inf))
    result = run_cli("alibi", "identify", str(path), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["kind"], report["convention"]) == ("bias", "causal")
    fit = report["slope_fit"]
    assert (fit["heads"], fit["max_bias"], fit["series"]) == (1, 8, "press")
