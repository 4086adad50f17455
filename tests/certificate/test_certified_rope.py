"""``pecli rope cache`` under the certificate: an attention factor, half dtypes, forms, positions.

Expected values: mpmath at 200 bits, ``float(1.3)·cos(p·10000^(-2i/8))`` by hand (YaRN with
``factor = 1`` keeps the default frequencies; its attention factor is given), rounded by
mpmath to the dtype's significand (tests/planted.py).
"""

from __future__ import annotations

import dataclasses
import re

import mpmath
import numpy as np
import pytest
from planted import BITS, rounded

from pecli.core import direct, kernels
from pecli.core.certificate import ErrorBound, counting
from pecli.core.dtypes import float_dtype
from pecli.core.ports.arithmetic import cache_table
from pecli.core.rope import RopeSpec, rope_frequencies
from pecli.core.rope.cache import CacheSpec

YARN = RopeSpec(
    head_dim=8,
    theta=10000.0,
    rope_type="yarn",
    factor=1.0,
    attention_factor=1.3,
    original_max_position_embeddings=2048,
)


def _expected(position: float, dtype: str, factor: float = 1.3) -> tuple[list, list]:
    """(cos, sin) of the 4 pairs, times ``factor``, rounded to ``dtype`` by mpmath."""
    with mpmath.workprec(200):
        omega = [mpmath.mpf(10000) ** (-mpmath.mpf(2 * i) / 8) for i in range(4)]
        angles = [mpmath.mpf(position) * w for w in omega]
        cos = [rounded(mpmath.mpf(factor) * mpmath.cos(a), dtype) for a in angles]
        sin = [rounded(mpmath.mpf(factor) * mpmath.sin(a), dtype) for a in angles]
    return cos, sin


def _cache(spec: CacheSpec, form: str = "full") -> np.ndarray:
    table = cache_table(spec, form=form)
    return np.concatenate([np.asarray(b, dtype=np.float64) for b in table.blocks()])


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_an_attention_factor_through_the_fallback_matches_mpmath(monkeypatch, dtype):
    monkeypatch.setattr(kernels, "CONSECUTIVE_BOUND", ErrorBound(absolute=0.05))  # all undecided
    freqs = rope_frequencies(YARN)
    with counting() as tally:
        cache = _cache(CacheSpec(freqs, 5, start=3, dtype=float_dtype(dtype)))
    assert tally.checked == 5 * 8 and tally.recomputed == tally.checked
    for r, row in enumerate(cache):
        cos, sin = _expected(3 + r, dtype)
        assert row.tolist() == cos + cos + sin + sin  # half-split, cos part then sin part


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_a_factor_product_planted_past_a_tie_is_recomputed(monkeypatch, dtype):
    freqs = rope_frequencies(YARN)
    real = kernels.fill_sin_cos_consecutive
    cos, _ = _expected(7, dtype)
    r = cos[2]  # pair 2 of position 7: planted just past the tie above its correct rounding
    quantum = 2.0 ** (np.floor(np.log2(abs(r))) - BITS[dtype] + 1)
    target = r + quantum / 2 + 8 * np.spacing(r)  # rounding alone writes r + quantum

    def planted(sin_out, cos_out, first, omega, **kw):
        real(sin_out, cos_out, first, omega, **kw)
        cos_out[7 - int(first) - kw.get("offset", 0), 2] = target / 1.3

    monkeypatch.setattr(kernels, "fill_sin_cos_consecutive", planted)
    assert rounded(mpmath.mpf(float(target / 1.3 * 1.3)), dtype) == r + quantum
    with counting() as tally:
        cache = _cache(CacheSpec(freqs, 8, dtype=float_dtype(dtype)))
    assert tally.recomputed >= 1
    assert cache[7, 2] == cache[7, 6] == r


@pytest.mark.parametrize("form", ["half", "complex", "matrix"])
def test_forms_and_positions_through_the_fallback_match_mpmath(monkeypatch, form):
    monkeypatch.setattr(kernels, "CONSECUTIVE_BOUND", ErrorBound(absolute=1e-3))
    monkeypatch.setattr(direct, "DIRECT_BOUND", ErrorBound(relative=1e-3))
    freqs = rope_frequencies(YARN)
    spec = CacheSpec(freqs, 3, start=2)
    with counting() as tally:
        table = cache_table(spec, form=form)
        cache = np.concatenate(list(table.blocks()))
    assert tally.recomputed > 0
    for r, row in enumerate(cache):
        cos, sin = _expected(2 + r, "float32")
        if form == "half":
            assert row.tolist() == cos + sin
        elif form == "complex":
            assert row.real.tolist() == cos and row.imag.tolist() == sin
        else:
            assert row.tolist() == [[[c, -s], [s, c]] for c, s in zip(cos, sin, strict=True)]
    where = np.array([0.5, -2.0, 7.25])
    with counting() as tally:
        cache = _cache(dataclasses.replace(spec, start=0, positions=where))
    assert tally.recomputed > 0
    for row, p in zip(cache, where, strict=True):
        cos, sin = _expected(p, "float32")
        assert row.tolist() == cos + cos + sin + sin


def test_rope_cache_with_an_attention_factor_reports_the_certificate(run_cli, tmp_path):
    import json
    import struct

    args = ["--theta", "10000", "--head-dim", "64", "--rope-type", "yarn", "--factor", "4"]
    args += ["--original-max-position-embeddings", "2048", "--n", "300", "--start", "1"]
    out = tmp_path / "y.safetensors"
    done = run_cli("rope", "cache", *args, "--dtype", "bfloat16", "-o", str(out))
    assert done.exit_code == 0, done.stderr
    said = done.stderr.splitlines()[-1]
    assert re.fullmatch(r"pecli: every value correctly rounded to bfloat16: 0 undecided", said)
    raw = out.read_bytes()
    header = json.loads(raw[8 : 8 + struct.unpack("<Q", raw[:8])[0]])
    assert header["__metadata__"]["pecli_certificate"] == said.removeprefix("pecli: ")
