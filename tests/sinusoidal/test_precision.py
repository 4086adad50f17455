"""precision: the numerics of docs/encoding.md#numerics, exact-position limits and the command."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from reference import mp_table

from pecli import convention, encoding_table
from pecli.analysis.sinusoidal.precision import framework_blocks, precision_report


def test_float32_angles_at_position_100000_err_near_6e_3():
    # docs/encoding.md#numerics: angles in float32 at position 100000, d = 512
    report = precision_report(
        d=512, n=11, convention=convention("vaswani", start=99_995), base=1e4, dtype="float32"
    )
    at_100000 = report.framework_error[report.positions == 100_000][0]
    assert 3e-3 < at_100000 < 1.2e-2
    assert 3e-3 < report.framework_error.mean() < 1.2e-2
    assert report.pecli_error.max() <= 2.0**-25  # rounding once to float32


def test_pecli_float32_at_100000_is_within_3e_8_of_mpmath():
    positions = 99_995 + np.arange(11)
    got = encoding_table(d=512, n=11, start=99_995, dtype="float32")[:, :32]
    exact = mp_table(positions, 512)[:, :32]
    assert np.max(np.abs(got - exact)) <= 3e-8


def test_framework_float32_matches_a_hand_written_pytorch_tutorial():
    # written from the tutorial: div_term = exp(arange(0, d, 2) * (-ln 10000 / d)) in float32
    d, n = 64, 500
    position = np.arange(n, dtype=np.float32)[:, None]
    div = np.exp(np.arange(0, d, 2, dtype=np.float32) * np.float32(-np.log(10000.0) / d))
    expected = np.zeros((n, d), dtype=np.float32)
    expected[:, 0::2], expected[:, 1::2] = np.sin(position * div), np.cos(position * div)
    got = np.concatenate(
        list(
            framework_blocks(d=d, n=n, convention=convention("pytorch"), base=1e4, dtype="float32")
        )
    )
    np.testing.assert_array_equal(got, expected.astype(np.float64))


@pytest.mark.parametrize("d", [2, 4, 10])
def test_framework_tensor2tensor_divides_by_max_of_h_minus_1_and_1(d):
    """tensor2tensor's get_timing_signal_1d, written by hand in float32: log_timescale_increment
    = ln C / max(num_timescales - 1, 1), so at d = 2 (h = 1) the one frequency is exp(0) = 1 and
    at d = 4 the two are 1 and exp(-ln C) = 1/C; [all sines | all cosines]."""
    h, n = d // 2, 40
    increment = np.float32(-np.log(10000.0) / max(h - 1, 1))
    div = np.exp(np.arange(h, dtype=np.float32) * increment)
    angles = np.arange(n, dtype=np.float32)[:, None] * div
    expected = np.concatenate([np.sin(angles), np.cos(angles)], axis=1).astype(np.float64)
    got = framework_blocks(
        d=d, n=n, convention=convention("tensor2tensor"), base=1e4, dtype="float32"
    )
    np.testing.assert_array_equal(np.concatenate(list(got)), expected)


@pytest.mark.parametrize("rows", [4096, 1])
def test_framework_fairseq_odd_d_is_the_d_minus_1_table_a_zero_column_and_a_zero_padding_row(
    rows,
):
    """fairseq's SinusoidalPositionalEmbedding.get_embedding, written by hand in float32 for
    d = 5: half_dim = 5 // 2 = 2, ln C / (half_dim - 1), [sin | cos], one zero column appended
    for the odd d, then row padding_idx = 1 zeroed (in one block, or in blocks of one row)."""
    n = 30
    div = np.exp(np.arange(2, dtype=np.float32) * np.float32(-np.log(10000.0) / 1))
    angles = np.arange(n, dtype=np.float32)[:, None] * div
    expected = np.concatenate([np.sin(angles), np.cos(angles), np.zeros((n, 1))], axis=1)
    expected[1] = 0
    fairseq = convention("fairseq")
    got = framework_blocks(d=5, n=n, convention=fairseq, base=1e4, dtype="float32", rows=rows)
    np.testing.assert_array_equal(np.concatenate(list(got)), expected.astype(np.float64))


@pytest.mark.parametrize(("dtype", "exact"), [("bfloat16", 256), ("float16", 2048)])
def test_largest_exact_position(dtype, exact):
    kind = np.float16 if dtype == "float16" else ml_dtypes.bfloat16
    integers = np.arange(exact + 2, dtype=np.float64)
    back = integers.astype(kind).astype(np.float64)
    assert np.all(back[: exact + 1] == integers[: exact + 1]) and back[exact + 1] != exact + 1
    report = precision_report(d=16, n=10, convention=convention("pytorch"), base=1e4, dtype=dtype)
    assert report.largest_exact == exact


def test_half_precision_errors_grow_and_cross_the_threshold():
    report = precision_report(
        d=64, n=3000, convention=convention("pytorch"), base=1e4, dtype="bfloat16", threshold=0.1
    )
    ranges = report.ranges()
    assert [r[0] for r in ranges] == [0, 10, 100, 1000]
    assert ranges[-1][2] > ranges[0][2] and ranges[-1][2] > 0.5
    first = report.first_exceeding
    assert first is not None and report.framework_error[int(first)] > 0.1
    assert np.all(report.framework_error[: int(first)] <= 0.1)
    assert report.pecli_error.max() <= 2.0**-8  # bf16 half-ulp at 1


def test_cli_precision_table_and_figure(run_cli, tmp_path):
    out = tmp_path / "err.png"
    result = run_cli(
        "precision", "--d", "64", "--n", "3000", "--compute-dtype", "float16", "-o", str(out)
    )
    assert result.exit_code == 0, result.output
    assert "1000 … 3000" in result.stdout and "2048" in result.stdout
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--compute-dtype", "int8"], "--compute-dtype"),
        (["--threshold", "0"], "--threshold"),
        (["--threshold", "nan"], "--threshold"),
        (["--d", "7"], "--d"),
        (["-o", "err.txt"], "--output"),
        (["--convention", "bert"], "--convention"),
    ],
)
def test_cli_precision_usage_errors(run_cli, tmp_path, monkeypatch, args, option):
    monkeypatch.chdir(tmp_path)
    result = run_cli("precision", "--n", "10", *args)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and option in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_report_spans_many_blocks_and_matches_spec_at_100000(run_cli):
    # the default --n 100000 spans many blocks; docs/encoding.md#numerics: ~6e-3 near 100000
    report = precision_report(
        d=512, n=100_000, convention=convention("vaswani"), base=1e4, dtype="float32"
    )
    assert report.framework_error.shape == (100_000,)
    assert 3e-3 < report.framework_error[-1] < 1e-2
    assert report.pecli_error.max() <= 2.0**-25
    result = run_cli("precision")
    assert result.exit_code == 0, result.stderr
    assert "first position with error > 0.001" in result.stdout


def test_cli_precision_ranges_are_written_as_positions(run_cli):
    result = run_cli("precision", "--d", "8", "--n", "1000000")
    assert result.exit_code == 0, result.stderr
    assert "100000 … 999999" in result.stdout and "1000000 … 1000000" in result.stdout
    assert "e+" not in result.stdout


def test_precision_refuses_more_rows_than_it_can_keep_before_any_work(run_cli):
    result = run_cli("precision", "--n", str(2**53))  # before: ran for days, then out of memory
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "'--n': must be at most 100,000,000 for precision" in result.stderr


def test_cli_precision_says_none_when_no_position_crosses(run_cli):
    """float32 angles of positions 1 … 10 are off by at most 10 · 2^-24 ≈ 6e-7 before sin
    and cos (each then within 2^-24 more): far under 1e-3, so no first position."""
    result = run_cli("precision", "--d", "8", "--n", "10", "--convention", "vaswani")
    assert result.exit_code == 0, result.stderr
    assert "first position with error > 0.001: none" in result.stdout
    assert "largest position exact in float32: 16777216" in result.stdout  # 2^24


def test_track_sees_the_reference_in_blocks_of_4096_rows_unchanged():
    """`track` wraps the reference's row blocks, of 4096 rows as its docstring says: n = 4097
    is one block of 4096 and one of 1. The last row of each (positions 4095 and 4096, the
    pytorch convention from 0, d = 2: sin and cos of the position) is mpmath's, rounded once."""
    heights, last = [], []

    def track(blocks):
        for block in blocks:
            heights.append(block.shape[0])
            last.append(block[-1].copy())
            yield block

    pytorch = convention("pytorch")
    assert pytorch.start == 0
    report = precision_report(
        d=2, n=4097, convention=pytorch, base=1e4, dtype="float32", threshold=0.5, track=track
    )
    assert heights == [4096, 1] and report.positions.size == 4097
    np.testing.assert_array_equal(last, mp_table([4095, 4096], 2))
