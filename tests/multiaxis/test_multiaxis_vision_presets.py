"""Vision-encoder axial presets against their reference code's own formulas.

RoPE-ViT (naver-ai/rope-vit, models/vit_rope.py ``compute_axial_cis``, default ``theta=100``):
``freqs_x = freqs_y = 1 / theta ** (arange(0, dim, 4)[: dim // 4] / dim)``, dim the head
width; x's pairs then y's. The frequencies below come from mpmath and that formula alone.
"""

from __future__ import annotations

import mpmath

from pecli.core.multiaxis import axis_preset
from pecli.core.multiaxis.plan import plan_frequencies

mpmath.mp.dps = 40


def test_rope_vit_axial_is_theta_100_over_steps_of_4_of_the_head():
    preset = axis_preset("rope-vit-axial")
    dim = preset.head_dim
    plan = preset.plan()
    w, _ = plan_frequencies(plan)
    exact = [mpmath.power(100, -mpmath.mpf(4 * k) / dim) for k in range(dim // 4)]
    assert dim == 64 and plan.axes == ("x", "y")
    for axis in range(2):
        ours = [w[j] for j in range(plan.pairs) if plan.axis[j] == axis]
        assert ours == [float(e) for e in exact]
