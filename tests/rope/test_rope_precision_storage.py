"""``rope precision``'s storage scenarios: exact cos/sin stored in bf16 / fp16 (issue 22).

Before, only arithmetic in bf16 was modelled. Each expected value here is computed from
mpmath's cos and sin of ``p·θ^(-2i/d)`` (40 digits) rounded once by ml_dtypes / NumPy, over
every position of each decade (n = 1000, so no sampling); rounded to nearest as ``rope cache
--dtype`` stores a cache (``pecli.core.dtypes.round_once``).
"""

from __future__ import annotations

import json

import ml_dtypes
import mpmath
import numpy as np
import pytest

DTYPES = {"bf16-storage": np.dtype(ml_dtypes.bfloat16), "fp16-storage": np.dtype(np.float16)}


def nearest(x: mpmath.mpf, dtype: np.dtype) -> float:
    """The value of ``dtype`` nearest to ``x``: a cast and its two neighbours, compared in mpmath
    (a cast from float64 to bfloat16 may round twice, through float32)."""
    cast = np.array(float(x)).astype(dtype)
    near = [
        cast,
        np.nextafter(cast, np.array(np.inf, dtype)),
        np.nextafter(cast, np.array(-np.inf, dtype)),
    ]
    return min((float(v) for v in near), key=lambda v: abs(mpmath.mpf(v) - x))


def expected(dtype: np.dtype, theta: float, dim: int, first: int, last: int, a: float = 1.0):
    """Largest phase and cos error of exact values stored in ``dtype``, from mpmath."""
    mpmath.mp.dps = 40
    omega = [mpmath.mpf(theta) ** (-mpmath.mpf(2 * i) / dim) for i in range(dim // 2)]
    phase = cos_error = 0.0
    for p in range(first, last + 1):
        for w in omega:
            c, s = mpmath.cos(p * w) * a, mpmath.sin(p * w) * a
            sc, ss = (nearest(x, dtype) for x in (c, s))
            cos_error = max(cos_error, abs(float(sc - c)))
            turned = mpmath.atan2(ss * c - sc * s, sc * c + ss * s)  # arg(stored · conj(exact))
            phase = max(phase, abs(float(turned)))
    return phase, cos_error


@pytest.mark.parametrize("scenario", sorted(DTYPES))
def test_storage_errors_per_decade_match_mpmath(run_cli, scenario):
    result = run_cli(
        "rope",
        "precision",
        "--theta",
        "10000",
        "--head-dim",
        "8",
        "--n",
        "1000",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    rows = [r for r in json.loads(result.stdout) if r["scenario"] == scenario]
    assert [(r["first"], r["last"]) for r in rows] == [(0, 9), (10, 99), (100, 999)]
    for row in rows:
        phase, cos = expected(DTYPES[scenario], 10000.0, 8, row["first"], row["last"])
        assert row["max_cos_error"] == pytest.approx(cos, rel=1e-9, abs=1e-15)
        assert row["max_phase_error"] == pytest.approx(phase, rel=1e-6, abs=1e-12)


def test_storage_error_does_not_grow_with_the_position_unlike_arithmetic(run_cli):
    result = run_cli("rope", "precision", "--theta", "500000", "--n", "131072", "--format", "json")
    rows = json.loads(result.stdout)
    stored = [r["max_cos_error"] for r in rows if r["scenario"] == "bf16-storage"]
    fp32 = [r["max_cos_error"] for r in rows if r["scenario"] == "fp32"]
    # half a bf16 ulp of values below 1: each value rounded once
    assert max(stored) <= 2.0**-9 and min(stored[1:]) >= 0.99 * 2.0**-9
    assert fp32[-1] > 10 * fp32[1]  # float32 angles: error grows as 2^-24·p


@pytest.mark.parametrize(
    "scenario",
    ["fp32", "bf16-inv-freq", "bf16-positions", "bf16-angles", "bf16-storage", "fp16-storage"],
)
def test_errors_at_negative_positions_mirror_the_positive_ones(scenario):
    """Why rope precision refuses --start < 0 (rope cache takes it): nothing new is measured."""
    from pecli.analysis.rope.precision import _decade
    from pecli.core.rope import RopeSpec, rope_frequencies

    freqs = rope_frequencies(RopeSpec(head_dim=16, theta=500000.0))
    for first, last in ((1, 9), (10, 99), (100, 999), (1000, 4095)):
        ahead, behind = (
            _decade(freqs, scenario, first, last),
            _decade(freqs, scenario, -last, -first),
        )
        assert (behind.phase, behind.cos) == (ahead.phase, ahead.cos), (first, last)


@pytest.mark.parametrize(
    ("start", "n", "rule"),
    [
        ("-5", "10", "must be >= 0: the errors at -p are those at p"),
        (str(2**60), "1", "must be an integer, in digits, from 0, with start + n - 1 <= 2^53"),
        (str(2**53), "2", "must be an integer, in digits, from 0, with start + n - 1 <= 2^53"),
    ],
)
def test_start_is_refused_in_one_line_saying_why(run_cli, tmp_path, start, n, rule):
    out = tmp_path / "p.csv"
    result = run_cli("rope", "precision", "--start", start, "--n", n, "-o", str(out))
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "'--start'" in lines[0] and rule in lines[0], lines
    assert not out.exists()
