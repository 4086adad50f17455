"""``pecli alibi identify``: a tensor of no ALiBi says so on stderr; a masked causal bias reads.

* A sinusoidal table was reported as the least-bad convention ("mpt … rebuilt within 1.07")
  with status 1 and nothing on stderr: a log of stderr showed no failure at all.
* A causal bias masked with ``masked_fill(-1e9)`` or with ``torch.finfo(float16).min``
  (-65504) was read as ``symmetric`` (status 1): only ``-inf`` and values <= -1e30 counted as
  a mask, so the causal rebuild saw finite values above the diagonal and failed.

Every tensor here is written with NumPy: the slopes by the ALiBi paper's rule ``2^(-8k/n)``,
``k = 1 … n`` (Press et al., power-of-two ``n``), the bias ``-m·(i - j)`` for keys ``j <= i``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

HEADS = 8
SLOPES = 2.0 ** (-8.0 * np.arange(1, HEADS + 1) / HEADS)  # 1/2, 1/4, … 1/256


def _causal(keys: int, fill: float, dtype, queries: int | None = None) -> np.ndarray:
    """``(HEADS, q, k)``: the queries the last ``q`` of ``k`` positions, ``fill`` above."""
    q = keys if queries is None else queries
    i = np.arange(keys - q, keys)[:, None]  # query positions
    j = np.arange(keys)[None, :]
    bias = -SLOPES[:, None, None] * (i - j)
    return np.where(j <= i, bias, fill).astype(dtype)


def _sinusoidal(n: int, d: int) -> np.ndarray:
    """The article's table: ``sin(p·ω_i), cos(p·ω_i)`` interleaved, ``ω_i = 10000^(-2i/d)``."""
    angles = np.outer(np.arange(float(n)), 10000.0 ** (-np.arange(0, d, 2) / d))
    table = np.empty((n, d))
    table[:, 0::2], table[:, 1::2] = np.sin(angles), np.cos(angles)
    return table.astype(np.float32)


def test_a_sinusoidal_table_is_said_on_stderr_to_be_no_alibi_bias(run_cli, tmp_path):
    path = tmp_path / "pe.npy"
    np.save(path, _sinusoidal(16, 16))
    result = run_cli("alibi", "identify", str(path))
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()  # the report as before: the closest reading first
    assert lines[0].startswith("ALiBi bias of shape (16, 16): convention ")
    assert (
        lines[-1] == "no ALiBi convention rebuilds the tensor within the tolerance: not determined"
    )
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 1 and "Traceback" not in result.stderr, result.stderr
    assert str(path) in errors[0] and "no ALiBi convention rebuilds it (the closest" in errors[0]
    as_json = run_cli("alibi", "identify", str(path), "--json")
    assert as_json.exit_code == 1 and json.loads(as_json.stdout)["matched"] is False
    assert as_json.stderr.strip().splitlines() == errors


def test_slopes_of_no_series_get_their_stderr_line_too(run_cli, tmp_path):
    path = tmp_path / "s.npy"
    np.save(path, np.array([0.5, 0.3, 0.01]))  # ratios 0.6 and 0.033: no geometric series
    result = run_cli("alibi", "identify", str(path))
    assert result.exit_code == 1 and "not determined" in result.stdout
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 1 and "no ALiBi series fits its slopes" in errors[0], result.stderr


@pytest.mark.parametrize(
    ("fill", "dtype"),
    [
        (-1e9, np.float32),
        (float(np.finfo(np.float16).min), np.float16),  # -65504: HF's masked_fill in float16
        (float(np.finfo(np.float32).min), np.float32),  # read as a mask before too
        (-np.inf, np.float32),
    ],
    ids=["-1e9", "float16-min", "float32-min", "-inf"],
)
@pytest.mark.parametrize("queries", [None, 4], ids=["square", "last-4-queries"])
def test_a_causal_bias_masked_with_a_large_negative_constant_reads_as_causal(
    run_cli, tmp_path, fill, dtype, queries
):
    path = tmp_path / "b.npy"
    np.save(path, _causal(12, fill, dtype, queries))
    result = run_cli("alibi", "identify", str(path), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["convention"], report["relative_error"]) == ("causal", 0.0)
    assert report["slopes"] == SLOPES.tolist()  # powers of two: exact in float16 too
    fit = report["slope_fit"]
    assert (fit["heads"], fit["max_bias"], fit["series"]) == (HEADS, 8.0, "press")


@pytest.mark.parametrize(
    "change",
    ["mild constant", "two constants", "above a bias value"],
)
def test_what_is_no_unambiguous_mask_is_not_read_as_causal(run_cli, tmp_path, change):
    """-1e3 (above -1e4) is no mask; neither are two constants above the diagonal, nor a
    constant that some unmasked value lies below."""
    bias = _causal(12, -1e9, np.float64)
    if change == "mild constant":
        bias = _causal(12, -1e3, np.float64)
    elif change == "two constants":
        bias[:, 0, -1] = -2e9
    else:
        bias[:, -1, 0] = -3e9  # the bias at distance 11 of the last query, below the mask
    path = tmp_path / "b.npy"
    np.save(path, bias)
    result = run_cli("alibi", "identify", str(path), "--json")
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["convention"] != "causal"
    assert "no ALiBi convention rebuilds it" in result.stderr


def test_a_symmetric_bias_still_reads_as_symmetric(run_cli, tmp_path):
    i, j = np.arange(12)[:, None], np.arange(12)[None, :]
    path = tmp_path / "b.npy"
    np.save(path, (-SLOPES[:, None, None] * np.abs(i - j)).astype(np.float32))
    result = run_cli("alibi", "identify", str(path), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["convention"] == "symmetric"


@pytest.mark.parametrize(
    ("fill", "dtype"),
    [(-1e9, np.float32), (float(np.finfo(np.float16).min), np.float16)],
    ids=["-1e9", "float16-min"],
)
@pytest.mark.parametrize("keys", [2, 12], ids=["2x2", "last-2-of-12"])
def test_a_causal_bias_of_two_queries_masked_with_a_constant_reads_as_causal(
    run_cli, tmp_path, fill, dtype, keys
):
    """Two queries (a decoding step of two tokens) hold one cell above the diagonal: it was no
    mask (3 queries were asked for), so the bias read as ``symmetric`` off by 5e10 (status 1)
    while the same bias masked with -inf read as causal."""
    path = tmp_path / "b.npy"
    np.save(path, _causal(keys, fill, dtype, 2))
    result = run_cli("alibi", "identify", str(path), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["convention"], report["relative_error"]) == ("causal", 0.0)
    assert report["slopes"] == SLOPES.tolist()


def test_a_symmetric_bias_of_two_queries_is_not_read_as_masked(run_cli, tmp_path):
    """Slopes 5e4 … put -5e4 (<= -1e4) above the diagonal at distance 1, but the same value
    lies below it at distance 1: no mask, the bias stays symmetric (its max_bias is out of
    range: status 1)."""
    i, j = np.arange(10, 12)[:, None], np.arange(12)[None, :]
    path = tmp_path / "b.npy"
    np.save(path, -1e5 * SLOPES[:, None, None] * np.abs(i - j))
    result = run_cli("alibi", "identify", str(path), "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert (report["convention"], report["relative_error"]) == ("symmetric", 0.0)


def test_the_mask_is_found_a_few_rows_at_a_time():
    """The mask's search copied the head's cells above and below the diagonal whole (1.5
    times the head: 400 MB more for an 8192 × 8192 float32 head); a few rows at a time it
    holds a few hundred KB, and the constant is the one written."""
    from traced import traced_peak

    from pecli.analysis.zoo.alibi_rebuild import mask_level

    head = _causal(1024, -1e9, np.float64)[:1]  # 8 MB
    level, peak = traced_peak(lambda: mask_level(head))
    assert level == -1e9
    assert peak < head.nbytes // 8, peak


@pytest.mark.parametrize("first", ["-inf", "-1e9"])
def test_heads_masked_with_different_constants_read_as_causal_whichever_comes_first(
    run_cli, tmp_path, first
):
    """Head 0 masked with -inf and the others with -1e9 was "no ALiBi bias in any convention"
    (status 2), while head 0 with -1e9 and the others with -inf read as causal: only head 0's
    mask was sought. Each head's own mask is now."""
    bias = _causal(6, -1e9 if first == "-inf" else -np.inf, np.float32)
    bias[0] = _causal(6, float(first), np.float32)[0]
    path = tmp_path / "b.npy"
    np.save(path, bias)
    result = run_cli("alibi", "identify", str(path), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["convention"], report["relative_error"]) == ("causal", 0.0)
    assert report["slopes"] == SLOPES.tolist()


def test_a_head_0_error_of_exactly_the_bfloat16_tolerance_is_in_the_running():
    """A BLOOM bias (``m·j``) whose head 0 is off by exactly 2^-7 (bfloat16's tolerance, which
    ``matched`` takes inclusively) stays in the running: MPT, out of it, keeps its head-0 error.

    By hand, keys j = 0 … 3: head 0 (m = 1/2, last key 1.5 + 1.5/128) rebuilds in BLOOM within
    (1.5/128)/1.5 = 2^-7 exactly; MPT reads m' = 1.51171875 - 1 and rebuilds m'·(j - 3), off by
    at most 1.53515625 = |m'·(0 - 3)|: error 1.0. Head 1 (m = 1/4, last key 0.75 - 2^-9) is
    within 2^-9/0.75 in BLOOM, and MPT's error there is 0.748046875/0.744140625 > 1.
    """
    from pecli.analysis.zoo.alibi import identify_alibi_bias

    t = np.array([[[0, 0.5, 1, 1.5 + 1.5 / 128]], [[0, 0.25, 0.5, 0.75 - 2.0**-9]]])
    fit = identify_alibi_bias(t)
    assert (fit.convention, fit.error) == ("bloom", 2.0**-7)
    assert fit.errors["mpt"] == 1.0
