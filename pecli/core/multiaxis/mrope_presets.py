"""The Qwen-VL text models' M-RoPE as presets: ``mrope_section``, θ, head and id rules.

Each value is that of the model's ``config.json`` (``rope_parameters`` or ``rope_scaling``,
``head_dim``); the ids follow the model's ``get_rope_index`` (:func:`.mrope.mrope_ids`; Qwen3.5's
is Qwen3-VL's, line for line, in transformers 5.24). Pure; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from .ids import ArrayIds
from .mrope import KNOBS, Segment, mrope_ids, mrope_plan, parse_tokens
from .plan import AxisPlan

__all__ = ["MROPE_PRESETS", "MropePreset", "readers"]

_T = "transformers models/"


@dataclass(frozen=True)
class MropePreset:
    """One Qwen-VL text model's M-RoPE (see :mod:`.mrope`)."""

    name: str
    title: str
    source: str
    section: tuple[int, int, int]
    theta: float
    head_dim: int
    partial_rotary_factor: float
    interleaved: bool
    rules: str  # whose get_rope_index: qwen2-vl, qwen2.5-vl or qwen3-vl
    dtype: str = "float32"  # the rotary embedding computes in float32 (autocast off)
    grid: str = "TOKENS"
    position_dtype: str = "int64"  # the dtype of get_rope_index's position_ids

    @property
    def borrows(self) -> str | None:
        """Whose ``get_rope_index`` gives its ids, when another model's (else None)."""
        return self.rules if self.rules != self.name else None

    @property
    def reads(self) -> tuple[str, ...]:
        """The knobs its ``get_rope_index`` reads (:data:`.mrope.KNOBS`): ``s``, ``gap``, …."""
        return KNOBS[self.rules]

    def plan(self, head_dim: int | None = None) -> AxisPlan:
        """The channel → axis map for ``head_dim`` (default: the model's)."""
        return mrope_plan(
            self.section,
            theta=self.theta,
            head_dim=head_dim or self.head_dim,
            partial_rotary_factor=self.partial_rotary_factor,
            interleaved=self.interleaved,
        )

    def token_ids(
        self,
        tokens: str,
        *,
        release: str = "5.24",
        tokens_per_second: int | None = None,
        spatial_merge_size: int = 2,
    ) -> tuple[ArrayIds, int]:
        """Ids ``(seq, 3)`` of a token layout (:func:`.mrope.parse_tokens`) and ``rope_deltas``.

        ``tokens_per_second`` (None: 2, the checkpoints') and a video's ``s=`` or ``gap=``
        are refused, naming the presets that read them, unless this preset reads them.
        """
        for name, value in (
            ("tokens_per_second", tokens_per_second),
            ("spatial_merge_size", spatial_merge_size),
        ):
            if value is None:
                continue
            if not isinstance(value, int | np.integer) or not 1 <= value <= 1 << 20:
                raise ParameterError(name, "must be an integer from 1 to 2^20", value)
        segments = parse_tokens(tokens)
        self._check_knobs(segments, tokens_per_second)
        ids, delta = mrope_ids(
            segments,
            model=self.rules,
            release=release,
            spatial_merge_size=spatial_merge_size,
            tokens_per_second=2 if tokens_per_second is None else tokens_per_second,
        )
        return ArrayIds(ids.T.astype(np.float64)), delta

    def _check_knobs(self, segments: list[Segment], tokens_per_second: int | None) -> None:
        """Each knob given is one this preset reads; else refused, naming those that do."""
        if tokens_per_second is not None and "tokens_per_second" not in self.reads:
            rule = f"is read by {readers('tokens_per_second')} only ({self.name} ignores it)"
            raise ParameterError("tokens_per_second", rule, tokens_per_second)
        for segment in segments:
            for knob, value in segment.knobs().items():
                if knob not in self.reads:
                    rule = f"takes {knob}= for {readers(knob)} only ({self.name} ignores it)"
                    raise ParameterError("tokens", rule, f"{knob}={value}")


def readers(knob: str) -> str:
    """The M-RoPE presets that read ``knob`` (:data:`.mrope.KNOBS`), listed.

    >>> readers("gap")
    'qwen3-vl or qwen3.5'
    """
    names = [p.name for p in MROPE_PRESETS.values() if knob in p.reads]
    return " or ".join(names)


MROPE_PRESETS: dict[str, MropePreset] = {
    p.name: p
    for p in (
        MropePreset(
            "qwen2-vl",
            "Qwen2-VL: mrope_section [16, 24, 24] chunked, θ 1e6",
            _T + "qwen2_vl/modeling_qwen2_vl.py Qwen2VLRotaryEmbedding, get_rope_index",
            (16, 24, 24),
            1e6,
            128,
            1.0,
            False,
            "qwen2-vl",
        ),
        MropePreset(
            "qwen2.5-vl",
            "Qwen2.5-VL: as Qwen2-VL, video time = t·seconds·tokens_per_second",
            _T + "qwen2_5_vl/modeling_qwen2_5_vl.py Qwen2_5_VLRotaryEmbedding, get_rope_index",
            (16, 24, 24),
            1e6,
            128,
            1.0,
            False,
            "qwen2.5-vl",
        ),
        MropePreset(
            "qwen3-vl",
            "Qwen3-VL: mrope_section [24, 20, 20] interleaved THW…, θ 5e6",
            _T + "qwen3_vl/modeling_qwen3_vl.py Qwen3VLTextRotaryEmbedding, get_rope_index",
            (24, 20, 20),
            5e6,
            128,
            1.0,
            True,
            "qwen3-vl",
        ),
        MropePreset(
            "qwen3.5",
            "Qwen3.5: [11, 11, 10] interleaved on 0.25 of head 256, θ 1e7",
            _T + "qwen3_5/modeling_qwen3_5.py Qwen3_5TextRotaryEmbedding, get_rope_index",
            (11, 11, 10),
            1e7,
            256,
            0.25,
            True,
            "qwen3-vl",
        ),
    )
}
