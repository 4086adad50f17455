"""``pecli rope axes`` (multi-axis caches) under the certificate, in every output dtype.

Expected values: mpmath at 200 bits, ``ω = θ^(-2k/D)`` by hand, rounded by mpmath to the
dtype's significand (tests/planted.py). The tie of ``cos(205618·10000^(-253/256))``
(1.5e-16 from a float32 boundary, tests/certificate/test_certificate.py) is a real one.
"""

from __future__ import annotations

import json
import re
import struct

import mpmath
import numpy as np
import pytest
from planted import odd_tie, plant_tie, rounded

from pecli.core import angles, direct
from pecli.core.certificate import ErrorBound, counting
from pecli.core.dtypes import float_dtype
from pecli.core.multiaxis.cache import AxesSpec, axes_cache
from pecli.core.multiaxis.plan import per_axis

DTYPES = ("float32", "float16", "bfloat16")


def _cos_sin(position: float, theta: float, k: int, width: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    with mpmath.workprec(200):
        angle = mpmath.mpf(position) * mpmath.mpf(theta) ** (-mpmath.mpf(2 * k) / width)
        return mpmath.cos(angle), mpmath.sin(angle)


def test_a_real_float32_tie_in_a_multi_axis_cache_is_recomputed():
    plan = per_axis([512], theta=10000.0, axes=("t",))
    with counting() as tally:
        cache = axes_cache(AxesSpec(plan, np.array([[205618.0]]), form="half"))
    exact = _cos_sin(205618, 10000.0, 253, 512)[0]
    assert tally.recomputed >= 1 and tally.checked == 512
    assert float(cache[0, 253]) == rounded(exact, "float32")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("form", ["full", "half", "matrix"])
def test_every_value_through_the_fallback_matches_mpmath(monkeypatch, dtype, form):
    monkeypatch.setattr(direct, "DIRECT_BOUND", ErrorBound(relative=0.05))  # all undecided
    plan = per_axis([4, 4], theta=100.0, axes=("h", "w"))  # ω = 1, 0.1 on each axis
    ids = np.array([[1.0, 2.0], [3.0, 1.5], [2.0, 2.0]])
    with counting() as tally:
        cache = axes_cache(AxesSpec(plan, ids, form=form, dtype=float_dtype(dtype)))
    assert tally.recomputed > 0 and tally.checked == tally.recomputed
    for r, row in enumerate(ids):
        pairs = [_cos_sin(row[a], 100.0, k, 4) for a in (0, 1) for k in (0, 1)]
        cos = [rounded(c, dtype) for c, _ in pairs]
        sin = [rounded(s, dtype) for _, s in pairs]
        got = np.asarray(cache[r], dtype=np.float64)
        if form == "half":
            assert got.tolist() == cos + sin
        elif form == "full":  # interleaved: each value on both channels of its pair
            assert got.tolist() == [v for v in cos for _ in (0, 1)] + [
                v for v in sin for _ in (0, 1)
            ]
        else:
            assert got.tolist() == [[[c, -s], [s, c]] for c, s in zip(cos, sin, strict=True)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_value_planted_on_a_tie_is_recomputed_to_mpmath(monkeypatch, dtype):
    plan = per_axis([8], theta=100.0, axes=("t",))  # ω_k = 100^(-k/4)
    positions = np.arange(1.0, 40.0)
    entry = next(  # an entry whose correct rounding is odd: its tie rounds the other way
        (p, k, odd_tie(_cos_sin(p, 100.0, k, 8)[0], dtype))
        for p in positions
        for k in range(4)
        if odd_tie(_cos_sin(p, 100.0, k, 8)[0], dtype) is not None
    )
    p, k, tie = entry
    omega = 100.0 ** (-k / 4)
    planted = plant_tie(monkeypatch, angles, lambda hi: np.isclose(hi, p * omega, rtol=1e-12), tie)
    stored = float_dtype(dtype)
    assert float(np.array([tie]).astype(np.float32).astype(stored)[0]) != rounded(
        _cos_sin(p, 100.0, k, 8)[0], dtype
    )  # the tie rounds to the even neighbour: wrong without the fallback
    with counting() as tally:
        cache = axes_cache(AxesSpec(plan, positions[:, None], form="half", dtype=stored))
    assert planted and tally.recomputed >= 1
    row = int(np.flatnonzero(positions == p)[0])
    assert float(cache[row, k]) == rounded(_cos_sin(p, 100.0, k, 8)[0], dtype)


def test_rope_axes_reports_the_certificate(run_cli, tmp_path):
    out = tmp_path / "wan.npy"
    done = run_cli("rope", "axes", "--preset", "wan", "--grid", "3x4x5", "-o", str(out))
    assert done.exit_code == 0, done.stderr
    said = done.stderr.splitlines()[-1]
    assert said == "pecli: every value correctly rounded to float32: 0 undecided"
    half = tmp_path / "wan16.safetensors"
    args = ["--preset", "wan", "--grid", "3x4x5", "--dtype", "float16", "-o", str(half)]
    done = run_cli("rope", "axes", *args)
    assert done.exit_code == 0, done.stderr
    said = done.stderr.splitlines()[-1]
    assert re.fullmatch(r"pecli: every value correctly rounded to float16: 0 undecided", said)
    raw = half.read_bytes()
    header = json.loads(raw[8 : 8 + struct.unpack("<Q", raw[:8])[0]])
    assert header["__metadata__"]["pecli_certificate"] == said.removeprefix("pecli: ")
    model = run_cli("rope", "axes", "--preset", "wan", "--grid", "3x4x5", "--arithmetic", "model")
    assert model.exit_code == 0 and "correctly rounded" not in model.stderr
