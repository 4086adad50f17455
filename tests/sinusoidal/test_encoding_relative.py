"""``pecli compute --relative``: Conformer's relative sinusoidal table against transformers'.

tests/fixtures/libraries/speech holds Parakeet's, wav2vec2-conformer's and FastSpeech2-
conformer's tables at positions L−1 … −(L−1) (tools/library_fixtures/generate_speech.py),
computed by the models in float32; pecli's are exact, each value rounded once.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from library_fixtures import load

FIXTURES = {f.name: f for f in load("speech")}
EPS = 2.0**-24


@pytest.mark.parametrize("length", [1, 8, 37])
@pytest.mark.parametrize(
    ("model", "d"),
    [("parakeet_rel", 1024), ("wav2vec2_conformer_rel", 1024), ("fastspeech2_conformer_rel", 384)],
)
def test_relative_table_is_the_models(run_cli, tmp_path, model, d, length):
    out = tmp_path / "rel.npy"
    args = ["compute", "--convention", "pytorch", "--d", str(d), "--n", str(length)]
    result = run_cli(*args, "--relative", "-o", str(out))
    assert result.exit_code == 0, result.output
    ours = np.load(out)
    table = FIXTURES[f"{model}_d{d}_L{length}"].table
    assert ours.shape == table.shape == (2 * length - 1, d)
    positions = np.arange(length - 1, -length, -1)[:, None]
    angles = np.abs(positions * 10000.0 ** (-np.arange(0, d, 2) / d))
    bound = np.repeat(EPS * ((math.log(1e4) + 4) * angles + 4), 2, axis=1) + EPS
    assert np.all(np.abs(ours - table) <= bound)  # the models' float32 arithmetic


def test_rows_run_from_l_minus_1_down_and_are_mpmath_exact(run_cli, tmp_path):
    out = tmp_path / "rel.npy"
    args = ["compute", "--convention", "pytorch", "--d", "8", "--n", "3", "--relative"]
    assert run_cli(*args, "--dtype", "float64", "-o", str(out)).exit_code == 0
    ours = np.load(out)
    mpmath.mp.dps = 40
    for row, p in enumerate((2, 1, 0, -1, -2)):
        for i in range(4):
            angle = p * mpmath.power(10000, -mpmath.mpf(2 * i) / 8)
            assert abs(ours[row, 2 * i] - float(mpmath.sin(angle))) <= 2**-53
            assert abs(ours[row, 2 * i + 1] - float(mpmath.cos(angle))) <= 2**-53


def test_relative_refuses_a_checkpoint_output(run_cli, tmp_path):
    result = run_cli("compute", "--n", "4", "--relative", "-o", str(tmp_path / "pe.safetensors"))
    assert result.exit_code == 2 and "--relative" in result.output
    assert not (tmp_path / "pe.safetensors").exists()


@pytest.mark.parametrize("start", ["5", "0", "1"])  # 1 is vaswani's own default: still typed
def test_relative_refuses_a_first_position(run_cli, tmp_path, start):
    """Its rows are the offsets n−1 … −(n−1): a --start would be dropped without a word."""
    out = tmp_path / "pe.npy"
    result = run_cli("compute", "--n", "3", "--relative", "--start", start, "-o", str(out))
    assert result.exit_code == 2 and "'--start'" in result.output and "--relative" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not out.exists()


def test_relative_refuses_a_padding_row_naming_it(run_cli):
    result = run_cli("compute", "--n", "3", "--relative", "--convention", "fairseq")
    assert result.exit_code == 2 and "without a padding row (got padding row 1)" in result.output


@pytest.mark.parametrize("n", [2**24 + 1, 2**52, 2**52 + 1])
def test_relative_rows_stop_at_2_to_the_24_positions(run_cli, n):
    """2n − 1 rows from n − 1 down to −(n − 1): n is at most 2^24 = 16777216.

    At n = 2^52 (the bound this replaced) the first rows hold cos(4503599627027798) =
    9.2249e-7 (mpmath), 0.0575 of a float32 ulp (2^-44) from a midpoint, 3.3e-15, inside the
    certificate's margin there (p·2^-99 = 7.1e-15): to stdout the table stopped with status 1
    after its work ("a value stays undecided at 256 bits"). Refused now, before any row."""
    result = run_cli("compute", "--relative", "--d", "2", "--n", str(n), "--format", "csv")
    assert result.exit_code == 2, result.output[:300]
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    assert "'--n': must be an integer from 1 to 16777216 (2^24) with --relative" in (result.stderr)
    assert f"(got {n})" in result.stderr


def test_relative_angles_are_bounded_by_the_rows_own_positions(run_cli, tmp_path):
    """docs/cli.md: --angle-scale is refused only for a largest angle past 2^56. Rows 2 … −2
    with k = 2^55 reach 2·2^55 = 2^56 exactly: taken, each value sin/cos(p·2^55) (mpmath).

    It was refused ("up to 1.44e+17 radians"): the blocks' rows were checked as positions
    0 … 4. One position more (n + 1 = 4: 2^57) would be past the bound."""
    out = tmp_path / "rel.npy"
    args = ["compute", "--relative", "--d", "2", "--n", "3", "--angle-scale", str(2**55)]
    result = run_cli(*args, "--dtype", "float64", "-o", str(out))
    assert result.exit_code == 0, result.output
    mpmath.mp.dps = 60
    for row, p in zip(np.load(out), (2, 1, 0, -1, -2), strict=True):
        angle = mpmath.mpf(p) * 2**55
        want = [float(mpmath.sin(angle)), float(mpmath.cos(angle))]
        np.testing.assert_allclose(row, want, rtol=0, atol=2**-52)
