"""VL text models whose M-RoPE is not Qwen-VL's layout: GLM-4.xV and ERNIE 4.5 VL.

Their ids are a Qwen-VL ``get_rope_index`` (checked against transformers 5.25's own, in
tests/fixtures/libraries/vl_ids): GLM-4.1V/4.5V/4.6V split a video's frames by 2 timestamp
tokens, as Qwen3-VL does (``video:T,H,W,gap=2``); ERNIE 4.5 VL merges 2 frames in time and
otherwise follows Qwen2-VL (``video:T/2,H,W``). Their channel maps differ:

* GLM-4.1V and GLM-4.6V(-Flash) (``models/glm4v/modeling_glm4v.py``
  ``Glm4vTextRotaryEmbedding.recomposition_frequencies``, ``rotate_half_llm``):
  ``mrope_section`` (8, 12, 12) in chunks over half the head (``partial_rotary_factor`` 0.5),
  each pair on channels ``(2j, 2j+1)`` — interleaved, where Qwen-VL is half-split; the other
  64 channels pass through (llama.cpp permutes the weights at conversion to keep its
  half-split kernel). GLM-4.5V and the MoE GLM-4.6V (``models/glm4v_moe``) keep the same map
  half-split (``cat([freq, freq])``, ``rotate_half``).
* ERNIE 4.5 VL (``models/ernie4_5_vl_moe/modeling_ernie4_5_vl_moe.py``
  ``Ernie4_5_VLMoeTextRotaryEmbedding.compute_default_rope_parameters`` and
  ``recomposition_frequencies``): of the first 44 frequencies the even ``k`` turn by h and
  the odd by w (``HW`` × 22, Pixtral's parity rule inside an LLM), the last 20 by t
  (``T`` × 20), interleaved.

Pure; no I/O.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..errors import ParameterError
from .mrope import mrope_plan
from .mrope_presets import MropePreset
from .plan import AxisPlan, shared

__all__ = ["VL_PRESETS", "VlPreset", "ernie_plan"]

_T = "transformers models/"


def ernie_plan(head_dim: int, section: tuple[int, int, int], theta: float) -> AxisPlan:
    """ERNIE 4.5 VL: even ``k < s_h + s_w`` on h, odd on w, then ``t``; ``k`` in order.

    >>> ernie_plan(128, (22, 22, 20), 5e5).strip()[42:47]
    'HWTTT'

    """
    h, w, t = section
    if h != w or 2 * (h + w + t) != head_dim:
        rule = f"must be 2·(h + w + t) with h = w for ERNIE's section {list(section)}"
        raise ParameterError("head_dim", rule, head_dim)
    assign = [1, 2] * h + [0] * t
    return shared(assign, theta=theta, axes=("t", "h", "w"), layout="interleaved")


@dataclass(frozen=True)
class VlPreset(MropePreset):
    """An M-RoPE preset with GLM's or ERNIE's channel map.

    ``pairs``: ``glm`` (interleaved), ``glm-moe`` (half-split) or ``ernie``.
    """

    pairs: str = "glm"

    def plan(self, head_dim: int | None = None) -> AxisPlan:
        """The channel → axis map for ``head_dim`` (default: the model's)."""
        head = head_dim or self.head_dim
        if self.pairs == "ernie":
            return ernie_plan(head, self.section, self.theta)
        chunked = mrope_plan(
            self.section,
            theta=self.theta,
            head_dim=head,
            partial_rotary_factor=self.partial_rotary_factor,
        )
        return dataclasses.replace(
            chunked, layout="half-split" if self.pairs == "glm-moe" else "interleaved"
        )


def _glm(name: str, title: str, source: str, pairs: str) -> VlPreset:
    return VlPreset(
        name=name,
        title=title,
        source=_T + source,
        section=(8, 12, 12),
        theta=1e4,
        head_dim=128,
        partial_rotary_factor=0.5,
        interleaved=False,
        rules="qwen3-vl",
        pairs=pairs,
    )


VL_PRESETS: dict[str, VlPreset] = {
    p.name: p
    for p in (
        _glm(
            "glm-4.1v",
            "GLM-4.1V / 4.6V(-Flash): [8, 12, 12] chunked on interleaved pairs, half the head",
            "glm4v/modeling_glm4v.py Glm4vTextRotaryEmbedding, Glm4vModel.get_rope_index",
            "glm",
        ),
        _glm(
            "glm-4.5v",
            "GLM-4.5V / 4.6V (MoE): GLM-4.1V's map, half-split",
            "glm4v_moe/modeling_glm4v_moe.py Glm4vMoeTextRotaryEmbedding, get_rope_index",
            "glm-moe",
        ),
        VlPreset(
            name="ernie-4.5-vl",
            title="ERNIE 4.5 VL: HW×22 alternating, then T×20, interleaved, θ 5e5",
            source=_T + "ernie4_5_vl_moe/modeling_ernie4_5_vl_moe.py "
            "Ernie4_5_VLMoeTextRotaryEmbedding, get_rope_index",
            section=(22, 22, 20),
            theta=5e5,
            head_dim=128,
            partial_rotary_factor=1.0,
            interleaved=False,
            rules="qwen2-vl",
            pairs="ernie",
        ),
    )
}
