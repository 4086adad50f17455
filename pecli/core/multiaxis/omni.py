"""Qwen2.5-Omni's and Qwen3-Omni's position ids (TMRoPE): text, images, videos and audio.

The thinker's text model is Qwen2.5-VL's M-RoPE (Qwen2.5-Omni: ``mrope_section`` 16, 24, 24,
chunked) or Qwen3-VL's (Qwen3-Omni: 24, 20, 20, interleaved), θ 1e6; its ``get_rope_index``
(transformers ``models/qwen2_5_omni/modeling_qwen2_5_omni.py`` and
``models/qwen3_omni_moe/modeling_qwen3_omni_moe.py``, ``get_rope_index``,
``get_llm_pos_ids_for_vision``) gives every block its ids from the largest id so far + 1:

* text ``arange(n)``; an image, video or audio comes with its start and end tokens (one id
  each, the start before its ids and the end after their largest);
* an image or video ``(t_k, row, col)`` of the merged grid, ``t_k = k · s · P``, ``s`` the
  seconds per grid (1 for an image), ``P`` ``position_id_per_seconds`` — Qwen2.5-Omni
  truncates it to an integer (``.long()``), Qwen3-Omni keeps the float32 value;
* audio ``arange(n_a)`` on all three axes, ``n_a`` its tokens for ``L`` mel frames:
  Qwen2.5-Omni ``((L − 1)//2 + 1 − 2)//2 + 1`` (25 a second), Qwen3-Omni 13 per 100 frames
  plus the rest's convolution (``_get_feat_extract_output_lengths``).

* a video with its audio (``use_audio_in_video``, ``video+audio:T,H,W,s=S,mel=L``): two start
  tokens, then video and audio ids from the same start, interleaved — Qwen2.5-Omni in chunks
  of 2 seconds (50 ids: ``get_chunked_index``), video chunk then audio chunk; Qwen3-Omni token
  by token in order of time (video first on ties) — then two end tokens. Qwen2.5-Omni gives
  both start tokens one id (and both end tokens), Qwen3-Omni two.

Every block starts after the largest id of the block before it (not of the whole sequence).
Pure NumPy; no I/O.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from .ids import ArrayIds
from .mrope import check_layout_size
from .mrope_presets import MropePreset

__all__ = ["OMNI_PRESETS", "OmniPreset", "OmniSegment", "audio_tokens", "omni_ids", "parse_omni"]

_WORD = re.compile(
    r"(text|image|video\+audio|video|audio):([0-9,]+)(?:,s=([0-9.e+-]+))?(?:,mel=(\d+))?$"
)


@dataclass(frozen=True)
class OmniSegment:
    """Text tokens, an image or video grid (patches, before the merge), or mel frames."""

    kind: str
    size: tuple[int, ...]
    seconds: float = 1.0
    mel: int = 0  # video+audio: the audio's mel frames


def parse_omni(text: str) -> list[OmniSegment]:
    """``"text:3 audio:100 image:1,4,4 video:4,4,4,s=0.5 text:2"`` as segments.

    ``video+audio:T,H,W,s=SECONDS,mel=FRAMES`` is a video with its audio track. At most 2^24
    tokens, patches and mel frames in all (:func:`~.mrope.check_layout_size`).

    >>> [(s.kind, s.size) for s in parse_omni("text:2 audio:100")]
    [('text', (2,)), ('audio', (100,))]

    """
    out = []
    for word in str(text).split():
        match = _WORD.match(word.lower())
        sizes = tuple(int(n) for n in match[2].split(",") if n) if match else ()
        kind = match[1] if match else ""
        wanted = 1 if kind in ("text", "audio") else 3
        timed = kind.startswith("video") or not (match and match[3])
        paired = (kind == "video+audio") == bool(match and match[4] and int(match[4]) > 0)
        if not match or len(sizes) != wanted or min(sizes) < 1 or not timed or not paired:
            rule = (
                "must be words text:N, audio:MEL, image:T,H,W, video:T,H,W[,s=SECONDS] or "
                "video+audio:T,H,W,s=SECONDS,mel=MEL"
            )
            raise ParameterError("tokens", rule, word)
        out.append(OmniSegment(kind, sizes, float(match[3] or 1.0), int(match[4] or 0)))
    if not out:
        raise ParameterError("tokens", "must name at least one segment", text)
    check_layout_size(sum(math.prod(s.size) + s.mel for s in out))  # the mel frames too
    return out


def audio_tokens(mel: int, model: str) -> int:
    """Audio tokens of ``mel`` mel frames.

    >>> [audio_tokens(n, "qwen2.5-omni") for n in (50, 100, 1000, 3000, 3001)]
    [12, 25, 250, 750, 750]
    >>> [audio_tokens(n, "qwen3-omni") for n in (50, 100, 1000, 3000, 3001)]
    [7, 13, 130, 390, 391]

    """
    if model == "qwen2.5-omni":
        return ((mel - 1) // 2 + 1 - 2) // 2 + 1
    rest = mel % 100
    feat = (rest - 1) // 2 + 1
    return ((feat - 1) // 2 + 1 - 1) // 2 + 1 + (mel // 100) * 13


def _audio_count(mel: int, model: str) -> int:
    """:func:`audio_tokens`, at least one: a track of none has no ids to place."""
    count = audio_tokens(mel, model)
    if count < 1:
        least = next(m for m in range(1, 200) if audio_tokens(m, model) >= 1)
        rule = f"audio needs at least {least} mel frames for one {model} audio token"
        raise ParameterError("tokens", rule, f"mel={mel}")
    return count


def _vision(seg: OmniSegment, model: str, per_second: int, merge: int) -> np.ndarray:
    """``(3, t·h·w)`` ids of a grid from 0: ``(t_k, row, col)``."""
    t, h, w = seg.size
    if h % merge or w % merge:
        rule = f"grids need H and W multiples of spatial_merge_size {merge}"
        raise ParameterError("tokens", rule, f"{seg.kind}:{t},{h},{w}")
    f = np.float32
    with np.errstate(over="ignore", invalid="ignore"):  # refused below
        times = (np.arange(t, dtype=f) * f(seg.seconds)).astype(f) * f(per_second)
    if not np.isfinite(times).all():  # float32 frame times: inf, then NaN ids
        rule = "s=SECONDS must keep every frame's time finite in float32"
        raise ParameterError("tokens", rule, f"{seg.kind}:{t},{h},{w},s={seg.seconds:g}")
    times = np.trunc(times) if model == "qwen2.5-omni" else times.astype(f)
    mesh = np.meshgrid(times.astype(np.float64), np.arange(h // merge), np.arange(w // merge))
    return np.stack([m.transpose(1, 0, 2).reshape(-1) for m in mesh]).astype(np.float64)


def _chunks(t: np.ndarray, per_chunk: int, start: float) -> list[tuple[int, int]]:
    """Cut where ``t − start`` reaches the next chunk (get_chunked_index)."""
    cuts, first, chunk = [], 0, 1
    for i, value in enumerate(t):
        if value - start >= chunk * per_chunk:
            cuts.append((first, i))
            first, chunk = i, chunk + 1
    return [*cuts, (first, len(t))]


def _interleave(
    video: np.ndarray, audio: np.ndarray, model: str, per_second: int
) -> list[np.ndarray]:
    """The video's and the audio's ids, ``(3, n)`` each from the same start, in model order."""
    if model == "qwen2.5-omni":
        start = float(audio[0, 0])
        per_chunk = int(per_second * 2)  # seconds_per_chunk 2
        v, a = _chunks(video[0], per_chunk, start), _chunks(audio[0], per_chunk, start)
        pieces = []
        for j in range(max(len(v), len(a))):
            pieces += [video[:, slice(*v[j])]] if j < len(v) else []
            pieces += [audio[:, slice(*a[j])]] if j < len(a) else []
        return pieces
    order = np.argsort(np.concatenate([video[0], audio[0]]), kind="stable")  # video first on ties
    both = np.concatenate([video, audio], axis=1)[:, order]
    return [both[:, k : k + 1] for k in range(both.shape[1])]


def omni_ids(
    segments: list[OmniSegment], *, model: str, per_second: int, merge: int = 2
) -> tuple[np.ndarray, float]:
    """Ids ``(3, seq)`` (float64) of an Omni token layout, and ``rope_deltas``.

    >>> ids, delta = omni_ids(parse_omni("text:1 audio:100"), model="qwen2.5-omni", per_second=25)
    >>> ids[0, :4].tolist(), ids.shape[1], delta
    ([0.0, 1.0, 2.0, 3.0], 28, 0.0)

    """
    kind = np.dtype(np.float32 if model == "qwen3-omni" else np.float64)  # Qwen3: float32 sums
    blocks: list[np.ndarray] = []

    def after() -> np.ndarray:  # the largest id of the last block + 1
        return np.asarray(blocks[-1].max() + 1 if blocks else 0.0, dtype=kind)

    def run(n: int, start: np.ndarray) -> np.ndarray:
        block: np.ndarray = np.add(np.broadcast_to(np.arange(n, dtype=kind), (3, n)), start)
        return block.astype(kind)

    for seg in segments:
        if seg.kind == "text":
            blocks.append(run(seg.size[0], after()))
            continue
        pair = seg.kind == "video+audio"
        marks = 2 if pair else 1
        start = after()
        if pair and model == "qwen2.5-omni":
            blocks += [run(1, start), run(1, start)]  # two start tokens, one id
        else:
            blocks.append(run(marks, start))
        first = after()
        if seg.kind == "audio":
            blocks.append(run(_audio_count(seg.size[0], model), first))
        else:
            grid = np.add(_vision(seg, model, per_second, merge).astype(kind), first, dtype=kind)
            if pair:
                audio = run(_audio_count(seg.mel, model), first)
                blocks += _interleave(grid, audio, model, per_second)
            else:
                blocks.append(grid)
        end = after()
        if pair and model == "qwen2.5-omni":
            blocks += [run(1, end), run(1, end)]
        else:
            blocks.append(run(marks, end))
    ids = np.concatenate(blocks, axis=1).astype(np.float64)
    return ids, float(np.float64(ids.max()) + 1 - ids.shape[1])


@dataclass(frozen=True)
class OmniPreset(MropePreset):
    """An Omni thinker's M-RoPE: Qwen-VL's map, TMRoPE ids (``--tokens`` with ``audio:MEL``)."""

    per_second: int = 25

    @property
    def borrows(self) -> str | None:
        """None: its ids are its own (TMRoPE), not a Qwen-VL model's."""
        return None

    def token_ids(self, tokens: str, **rules: object) -> tuple[ArrayIds, int]:
        """Ids ``(seq, 3)`` of a layout (:func:`parse_omni`) and ``rope_deltas`` (rounded)."""
        if rules.get("tokens_per_second") is not None:
            rule = f"is not read by {self.name} (its position_id_per_seconds is {self.per_second})"
            raise ParameterError("tokens_per_second", rule, rules["tokens_per_second"])
        if rules.get("release", "5.24") != "5.24":
            rule = f"has one rule in {self.name} (each block after the largest id so far)"
            raise ParameterError("release", rule, rules["release"])
        merge = rules.get("spatial_merge_size", 2)
        if not isinstance(merge, int) or not 1 <= merge <= 1 << 20:
            raise ParameterError("spatial_merge_size", "must be an integer from 1 to 2^20", merge)
        ids, delta = omni_ids(
            parse_omni(tokens), model=self.name, per_second=self.per_second, merge=merge
        )
        return ArrayIds(ids.T), round(delta)


_T = "transformers models/"
OMNI_PRESETS: dict[str, OmniPreset] = {
    p.name: p
    for p in (
        OmniPreset(
            name="qwen2.5-omni",
            title="Qwen2.5-Omni thinker: Qwen2.5-VL's map, TMRoPE ids (25 a second, integer)",
            source=_T + "qwen2_5_omni/modeling_qwen2_5_omni.py Qwen2_5OmniRotaryEmbedding, "
            "get_rope_index",
            section=(16, 24, 24),
            theta=1e6,
            head_dim=128,
            partial_rotary_factor=1.0,
            interleaved=False,
            rules="qwen2.5-vl",
            per_second=25,
        ),
        OmniPreset(
            name="qwen3-omni",
            title="Qwen3-Omni thinker: Qwen3-VL's interleaved map, fractional TMRoPE ids",
            source=_T + "qwen3_omni_moe/modeling_qwen3_omni_moe.py "
            "Qwen3OmniMoeThinkerTextRotaryEmbedding, get_rope_index",
            section=(24, 20, 20),
            theta=1e6,
            head_dim=128,
            partial_rotary_factor=1.0,
            interleaved=True,
            rules="qwen3-vl",
            per_second=13,
            position_dtype="float32",
        ),
    )
}
