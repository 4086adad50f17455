"""``rope probe``'s gain per head: heads differ only past ``tol·√heads`` of their token's mean.

A head's gain is read in float64 here (rounding ~10^-16, nothing next to the bound), so each
head is off its token's mean by exactly the factor put on it. The bound, from the probe's
rule, for 4 heads of 64 channels: ``tol = 8u·√(2/(4·64)) + 4·2^-24`` with u = 2^-53, i.e.
about 2.384·10^-7, times √4 = 2: about 4.77·10^-7.
"""

from __future__ import annotations

import numpy as np
import pytest
from probe_rotations import half_split

from pecli.analysis.rope.probe import probe_rope


@pytest.mark.parametrize(("off", "differs"), [(4.6e-7, False), (4.9e-7, True)])
def test_heads_differ_only_past_tol_times_the_root_of_the_head_count(off, differs):
    """Half-split RoPE (θ 10^4) on 4 heads × 64 channels, heads 0 and 1 then times
    1 + off and 1 − off (mean 1, each of them ``off`` from it): 4.6·10^-7 is under the bound
    4.77·10^-7 (a gain shared by the heads), 4.9·10^-7 over it (the heads differ)."""
    q = np.random.default_rng(7).standard_normal((6, 4, 64))
    p = np.array([0.0, 1, 5, 40, 900, 5000])
    post = half_split(q, p[:, None] * 1e4 ** (-np.arange(32) / 32))
    post[:, 0] *= 1 + off
    post[:, 1] *= 1 - off
    reading = probe_rope(q, post, p[:, None])
    assert reading.gain_per_head is differs
    assert any("differs between the heads" in f for f in reading.findings) is differs


def test_float16_heads_one_percent_apart_differ():
    """The same RoPE on 2 heads × 64 channels stored in float16 (u = 2^-11): the bound is
    ``(8u·√(2/(2·64)) + 4·2^-24)·√2``, about 1.4u ≈ 7·10^-4. Head 1 times 1.01 puts each head
    0.005 off the mean, 7 times the bound: the heads differ; unscaled (float16 rounding, well
    under the bound), they do not."""
    q = np.random.default_rng(2).standard_normal((6, 2, 64))
    p = np.array([0.0, 1, 5, 40, 900, 5000])
    post = half_split(q, p[:, None] * 1e4 ** (-np.arange(32) / 32))
    plain = probe_rope(q.astype(np.float16), post.astype(np.float16), p[:, None])
    post[:, 1] *= 1.01
    scaled = probe_rope(q.astype(np.float16), post.astype(np.float16), p[:, None])
    assert not plain.gain_per_head and scaled.gain_per_head
