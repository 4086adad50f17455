"""Conformer relative sinusoidal tables made by transformers 5.25 (tests/fixtures/libraries/speech).

No pecli code is under test: these checks keep the fixtures honest for the preset built on them
(tools/library_fixtures/generate_speech.py). Each table is the paper's ``[sin, cos]``
interleaved encoding at the positions ``L−1, L−2, …, −(L−1)`` (2L − 1 rows; the negative half
is ``sin(−p·ω), cos(−p·ω)``), recomputed with mpmath, within float32 frequencies, products and
sin/cos: ``|Δ| ≤ 2^-24 · ((ln 10000 + 4) · |angle| + 4)``. Parakeet computes ``1 /
10000^(2i/d)`` and the ESPnet-style ports ``exp(2i · −ln 10000 / d)``: the same table.
"""

from __future__ import annotations

import functools
import math

import library_fixtures
import mpmath
import numpy as np
import pytest

FIXTURES = {f.name: f for f in library_fixtures.load("speech")}
EPS = 2.0**-24
TABLES = {
    "parakeet_rel_d1024": 1024,
    "wav2vec2_conformer_rel_d1024": 1024,
    "fastspeech2_conformer_rel_d384": 384,
}
LENGTHS = (1, 8, 37)


def test_index_complete_with_provenance():
    names = {f"{t}_L{n}" for t in TABLES for n in LENGTHS}
    names |= {f"parakeet_encoder_{p}" for p in ("subsampled", "scaled", "rel")}
    assert set(FIXTURES) == names
    for fixture in FIXTURES.values():
        assert (fixture.library, fixture.version) == ("transformers", "5.25.0") and fixture.call


@functools.cache
def relative_table(length: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows L−1 … −(L−1), [sin, cos] interleaved, and |angle| per value.

    ω from mpmath; the angle and sin/cos in float64 (1e-16 relative: far below float32).
    """
    positions = np.arange(length - 1, -length, -1, dtype=np.float64)
    with mpmath.workdps(30):
        omega = np.array(
            [float(mpmath.mpf(10000) ** (-mpmath.mpf(2 * i) / d)) for i in range(d // 2)]
        )
    angles = positions[:, None] * omega[None, :]
    table = np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(len(positions), d)
    return table, np.repeat(np.abs(angles), 2, axis=1)


@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("name", list(TABLES))
def test_two_sided_table(name, length):
    d = TABLES[name]
    got = FIXTURES[f"{name}_L{length}"].table.astype(np.float64)
    expected, angles = relative_table(length, d)
    assert got.shape == (2 * length - 1, d)
    assert np.all(np.abs(got - expected) <= EPS * ((math.log(1e4) + 4) * angles + 4))


def test_parakeet_and_espnet_agree():
    """Two roundings of one formula: equal within float32 ulps, position for position."""
    a = FIXTURES["parakeet_rel_d1024_L37"].table
    b = FIXTURES["wav2vec2_conformer_rel_d1024_L37"].table
    _, angles = relative_table(37, 1024)
    assert np.all(np.abs(a.astype(np.float64) - b) <= 2 * EPS * (14 * angles + 4))
    assert np.array_equal(a[36], b[36])  # position 0: sin 0, cos 1 exactly
    assert a[36, 0::2].max() == 0 and a[36, 1::2].min() == 1


def test_input_scaling_sqrt_d():
    """ParakeetEncoder multiplies the subsampled features by √d before the table is made."""
    scaled = FIXTURES["parakeet_encoder_scaled"].table
    subsampled = FIXTURES["parakeet_encoder_subsampled"].table
    assert FIXTURES["parakeet_encoder_scaled"].params["scale_input"] is True
    np.testing.assert_array_equal(scaled, subsampled * np.float32(math.sqrt(64)))
    rel = FIXTURES["parakeet_encoder_rel"].table.astype(np.float64)
    expected, angles = relative_table(len(scaled), 64)
    assert np.all(np.abs(rel - expected) <= EPS * ((math.log(1e4) + 4) * angles + 4))
    fs2 = FIXTURES["fastspeech2_conformer_rel_d384_L8"].params["input_scale"]
    assert fs2 == float(np.float32(math.sqrt(384)))
