"""rope probe on bfloat16 dumps whose slowest pairs hide in the rounding (issue 32, probe).

The hypothesis example that failed: head 32, the last 16 channels rotated half-split, θ 5e6,
positions 0, 1 and 100, q and its rotation (the float64 formula of tests/rope/test_rope_probe.py,
not pecli's) stored in bfloat16. Pairs 5…7 turn by less than 0.007 rad at p = 100, pair 4 by
0.045: within bf16's rounding of a pair's norm. Channels 12…27 paired half-split then keep
their norms as well as 16…31 do, and the probe took the first of the two (12…27). RoPE's pair
0 turns fastest (ω_0 = 1), so a slice whose first channels stay still while later ones turn
is none: the slice starts at the first changed channel. (Interleaved, the still pairs at the
end leave the width open: a true limit of bf16 at these positions, which the reading says.)
"""

from __future__ import annotations

import numpy as np
import pytest
from test_rope_probe import BF16, rotated, stored

from pecli.analysis.rope.probe import probe_rope


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("layout", ["half-split", "interleaved"])
def test_the_slice_starts_at_its_fastest_pair_in_bfloat16(seed, layout):
    positions = np.array([0.0, 1.0, 100.0])
    q = stored(np.random.default_rng(seed).standard_normal((3, 4, 32)), BF16)
    post = rotated(q.astype(np.float64), positions, 5e6, layout, 16, 16)
    reading = probe_rope(q, stored(post, BF16), positions[:, None])
    assert reading.pairing.layout == layout
    assert reading.pairing.start == 16
    if layout == "half-split":  # pairs (16 + j, 24 + j): the turned ones pin the width
        assert reading.pairing.stop == 32
    else:  # (16 + 2j, 17 + 2j): the still pairs at the end are the limit of bf16, said so
        assert reading.pairing.stop < 32 and not reading.width_sure
        assert any("may be wider" in f for f in reading.findings)


def test_a_float32_just_below_a_bfloat16_number_is_nearest_that_number():
    """ω one float32 step under a bfloat16 number (low 16 bits 0xFFFF), off by that step.

    The nearest bfloat16 is the number above, one step away: within 3× an error of 0.6
    step. A mask that kept the float32's last bit would round to 2 steps off and miss.
    """
    from pecli.analysis.rope.probe.frequencies import inv_freq_dtype

    bf16 = np.array([1.0, 0.81640625, 0.6640625, 0.5390625], np.float32)  # 8 bits each
    w = np.nextafter(bf16, np.float32(0)).astype(np.float64)
    step = bf16.astype(np.float64) - w
    assert inv_freq_dtype(w, 0.6 * step) == "bfloat16"
