"""Qwen-VL's M-RoPE: the ``mrope_section`` channel → axis map, and the position ids of a layout.

The text model of Qwen2-VL, Qwen2.5-VL, Qwen3-VL and Qwen3.5 keeps one schedule
``θ^(-2k/rotary_dim)`` for all pairs and lets ``mrope_section`` choose which of the three
position ids (t, h, w) drives each pair: chunked (Qwen2-VL, Qwen2.5-VL:
``Qwen2VLRotaryEmbedding.recomposition_frequencies``, sections in turn) or interleaved (Qwen3-VL,
Qwen3.5: ``Qwen3VLTextRotaryEmbedding.recomposition_frequencies``, pair ``j`` → h when
``j % 3 == 1`` and ``j < 3·s_h``, → w when ``j % 3 == 2`` and ``j < 3·s_w``, else t). The ids
follow ``get_rope_index`` (transformers 5.24, ``models/qwen2_vl``, ``qwen2_5_vl``, ``qwen3_vl``
``modeling_*.py``) or the older rule of transformers 4. Pure NumPy; no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from .plan import AxisPlan, shared

__all__ = [
    "KNOBS",
    "MODELS",
    "RELEASES",
    "Segment",
    "mrope_ids",
    "mrope_plan",
    "parse_tokens",
    "reused_text_ids",
]

#: The models whose ``get_rope_index`` is repeated here.
MODELS = ("qwen2-vl", "qwen2.5-vl", "qwen3-vl")
#: What each model's ``get_rope_index`` reads beyond the grids: ``s`` (a video's
#: ``second_per_grid_t``) and ``tokens_per_second`` (Qwen2.5-VL's video times), ``gap``
#: (Qwen3-VL's timestamp tokens between frames). Another model given one would ignore it.
KNOBS: dict[str, tuple[str, ...]] = {
    "qwen2-vl": (),
    "qwen2.5-vl": ("s", "tokens_per_second"),
    "qwen3-vl": ("gap",),
}
#: ``5.24``: after an image or video the text goes on at start + max(h, w) (positions may
#: repeat after a long video); ``4``: at the largest position so far + 1 (transformers 4).
RELEASES = ("5.24", "4")


def mrope_plan(
    section: Sequence[int],
    *,
    theta: float,
    head_dim: int,
    partial_rotary_factor: float = 1.0,
    interleaved: bool = False,
) -> AxisPlan:
    """The channel → axis map of ``mrope_section`` over one shared schedule, half-split.

    Parameters
    ----------
    section : sequence of int
        ``mrope_section``: pairs per axis t, h, w; they add up to ``rotary_dim/2``.
    theta : float, keyword-only
        ``rope_theta``.
    head_dim : int, keyword-only
        The head width.
    partial_rotary_factor : float, keyword-only
        Rotated share of the head (Qwen3.5: 0.25); ``rotary_dim = int(head_dim·factor)``.
    interleaved : bool, keyword-only
        Qwen3-VL / Qwen3.5 (``mrope_interleaved``) instead of Qwen2-VL's chunks.

    Raises
    ------
    ParameterError
        A section that is not three integers >= 0 adding up to ``rotary_dim/2``; for the
        interleaved map, ``3·s_h`` or ``3·s_w`` past the pairs.

    Examples
    --------
    >>> mrope_plan([16, 24, 24], theta=1e6, head_dim=128).strip()[14:42]
    'TTHHHHHHHHHHHHHHHHHHHHHHHHWW'
    >>> mrope_plan([24, 20, 20], theta=5e6, head_dim=128, interleaved=True).strip()[-7:]
    'THWTTTT'

    """
    rotary = int(head_dim * partial_rotary_factor)
    if rotary < 2 or rotary % 2 or not 0 < partial_rotary_factor <= 1:
        raise ParameterError("head_dim", "times the partial rotary factor must be even", rotary)
    h = rotary // 2
    sizes = [int(s) for s in section]
    if len(sizes) != 3 or min(sizes) < 0 or sum(sizes) != h:
        raise ParameterError("mrope_section", f"must be 3 integers adding up to {h}", sizes)
    if interleaved:
        if 3 * max(sizes[1], sizes[2]) > h + 2:
            raise ParameterError("mrope_section", "h and w sections exceed the pairs", sizes)
        assign = [_interleaved_axis(j, sizes) for j in range(h)]
    else:
        assign = [a for a, size in enumerate(sizes) for _ in range(size)]
    return shared(assign, theta=theta, axes=("t", "h", "w"), layout="half-split")


def _interleaved_axis(j: int, sizes: list[int]) -> int:
    if j % 3 == 1 and j < 3 * sizes[1]:
        return 1
    if j % 3 == 2 and j < 3 * sizes[2]:
        return 2
    return 0


@dataclass(frozen=True)
class Segment:
    """A run of text tokens, or an image or video grid (in patches, before the merge)."""

    kind: str  # "text", "image" or "video"
    size: tuple[int, ...]  # (n,) for text, (t, h, w) for a grid
    seconds: float | None = None  # second_per_grid_t of a video (Qwen2.5-VL); None: not given
    gap: int | None = None  # Qwen3-VL: text tokens (timestamps) before each frame after the first

    def knobs(self) -> dict[str, float | int]:
        """The knobs this segment gives (``s``, ``gap``), by name."""
        given = {"s": self.seconds, "gap": self.gap}
        return {name: value for name, value in given.items() if value is not None}


#: The most tokens and patches (before the spatial merge) a token layout may hold: 2^24, 16
#: times the longest context of the Qwen-VL models, and ids of at most 400 MB, built whole
#: (a grid's ids stream, up to :data:`pecli.core.multiaxis.ids.MAX_TOKENS`).
MAX_LAYOUT_TOKENS = 1 << 24
_SEGMENT = re.compile(r"(text|image|video):([0-9,]+)((?:,[a-z]+=[0-9.e+-]+)*)$")


def parse_tokens(text: str) -> list[Segment]:
    """``"text:5 image:1,8,12 text:3 video:4,8,12,s=1.0,gap=2 text:2"`` as segments.

    At most :data:`MAX_LAYOUT_TOKENS` tokens and patches in all (the timestamp tokens of ``gap``
    included), refused before any array is made.

    Examples
    --------
    >>> [s.kind for s in parse_tokens("text:5 image:1,4,6 video:2,4,4,s=0.5")]
    ['text', 'image', 'video']

    """
    segments = []
    for word in str(text).split():
        match = _SEGMENT.match(word.lower())
        numbers = [w for w in (match[2].split(",") if match else []) if w]
        if not match or len(numbers) != (1 if match[1] == "text" else 3):
            rule = "must be words text:N, image:T,H,W or video:T,H,W[,s=SECONDS][,gap=N]"
            raise ParameterError("tokens", rule, word)
        if min(int(n) for n in numbers) < 1:  # a run of no tokens: nothing to place
            raise ParameterError("tokens", "takes sizes >= 1 (text:N, T,H,W)", word)
        extra = _knob_values(match[3], word)
        if set(extra) - {"s", "gap"} or (extra and match[1] != "video"):
            raise ParameterError("tokens", "takes s= and gap= on videos only", word)
        seconds = float(extra["s"]) if "s" in extra else None
        gap = int(float(extra["gap"])) if "gap" in extra else None
        segments.append(Segment(match[1], tuple(int(n) for n in numbers), seconds, gap))
    if not segments:
        raise ParameterError("tokens", "must name at least one segment", text)
    check_layout_size(sum(math.prod(s.size) + (s.gap or 0) * (s.size[0] - 1) for s in segments))
    return segments


def check_layout_size(total: int) -> None:
    """Refuse a layout of more than :data:`MAX_LAYOUT_TOKENS` tokens and patches in all.

    Called before any array is made: the ids alone take 24 bytes a token.

    >>> check_layout_size(1 << 24)
    """
    if total > MAX_LAYOUT_TOKENS:
        rule = f"must hold at most 2^24 = {MAX_LAYOUT_TOKENS:,} tokens and patches in all"
        raise ParameterError("tokens", rule, f"{total:,}")


def _knob_values(text: str, word: str) -> dict[str, str]:
    """A video's ``,s=…,gap=…`` as text by name, each checked (else refused, echoing ``word``).

    Each knob once; ``s`` a finite number of seconds >= 0, ``gap`` a whole number >= 0.

    >>> _knob_values(",s=0.5,gap=2", "video:2,4,4,s=0.5,gap=2")
    {'s': '0.5', 'gap': '2'}
    """
    pairs = [kv.split("=") for kv in text.split(",") if kv]
    names = [name for name, _ in pairs]
    if twice := sorted({name for name in names if names.count(name) > 1}):
        raise ParameterError("tokens", f"gives {twice[0]}= once per video", word)
    extra = dict(pairs)
    rules = {"s": "a finite number of seconds >= 0", "gap": "a whole number of tokens >= 0"}
    for name, value in extra.items():
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        whole = number.is_integer() or name != "gap"
        if name in rules and not (math.isfinite(number) and number >= 0 and whole):
            raise ParameterError("tokens", f"takes {name}= as {rules[name]}", word)
    return extra


def _grid(segment: Segment, merge: int) -> tuple[int, int, int]:
    t, h, w = segment.size
    if min(segment.size) < 1 or h % merge or w % merge or (segment.seconds or 0.0) < 0:
        rule = f"grids need T, H, W >= 1 with H and W multiples of spatial_merge_size {merge}"
        raise ParameterError("tokens", rule, f"{segment.kind}:{t},{h},{w}")
    return t, h // merge, w // merge


def _groups(segments: list[Segment], model: str) -> list[Segment]:
    """The blocks ``get_rope_index`` sees: Qwen3-VL's videos split into frames, texts joined."""
    out: list[Segment] = []
    for seg in segments:
        for knob, value in seg.knobs().items():
            if knob not in KNOBS[model]:
                readers = [m for m, reads in KNOBS.items() if knob in reads]
                raise ParameterError(
                    "tokens", f"takes {knob}= for {' and '.join(readers)} only", value
                )
        parts = [seg]
        gap = seg.gap or 0
        if seg.kind == "video" and model == "qwen3-vl":  # one grid per frame, timestamps between
            if seg.size[0] > 1 and gap < 1:
                rule = "needs gap=N >= 1 on a qwen3-vl video: its frames are split by timestamps"
                raise ParameterError("tokens", rule, seg.size)
            frame = Segment("video", (1, *seg.size[1:]))
            parts = [frame] + [Segment("text", (gap,)), frame] * (seg.size[0] - 1)
        for part in parts:
            if out and out[-1].kind == part.kind == "text":
                out[-1] = Segment("text", (out[-1].size[0] + part.size[0],))
            elif out and out[-1].kind == part.kind:
                rule = f"needs text between two {part.kind}s (transformers reads one block)"
                raise ParameterError("tokens", rule, part.kind)
            else:
                out.append(part)
    return out


def _time_index(
    seg: Segment, t: int, model: str, release: str, tokens_per_second: int
) -> np.ndarray:
    """Qwen2.5-VL's ``(arange(t) · second_per_grid_t · tokens_per_second).long()``, in float32."""
    k = np.arange(t, dtype=np.float32)
    if model != "qwen2.5-vl" or seg.kind != "video":
        return np.arange(t, dtype=np.int64)
    f = np.float32
    seconds = f(1.0 if seg.seconds is None else seg.seconds)  # transformers' default: 1.0
    if release == "5.24":  # tokens_per_second * second_per_grid_ts[i], then arange * that
        times = k * (f(tokens_per_second) * seconds)
    else:  # arange * second_per_grid_t * tokens_per_second, left to right
        times = (k * seconds).astype(f) * f(tokens_per_second)
    return np.trunc(times.astype(f)).astype(np.int64)


def mrope_ids(
    segments: list[Segment],
    *,
    model: str,
    release: str = "5.24",
    spatial_merge_size: int = 2,
    tokens_per_second: int = 2,
) -> tuple[np.ndarray, int]:
    """Position ids ``(3, seq)`` (t, h, w) of a token layout and ``rope_deltas``.

    Parameters
    ----------
    segments : list of Segment
        From :func:`parse_tokens`; grids in patches (before the spatial merge).
    model : str, keyword-only
        One of :data:`MODELS`.
    release : str, keyword-only
        One of :data:`RELEASES`.
    spatial_merge_size : int, keyword-only
        The vision config's (2 for every Qwen-VL).
    tokens_per_second : int, keyword-only
        Qwen2.5-VL's vision config (2 in its checkpoints; transformers' default is 4).

    Returns
    -------
    tuple
        ``(ids, rope_deltas)``: int64 ``(3, seq)``, and ``max(ids) + 1 − seq``, what
        generation adds to the next text positions.

    Examples
    --------
    >>> ids, delta = mrope_ids(parse_tokens("text:2 image:1,4,4 text:1"), model="qwen2-vl")
    >>> ids.tolist(), delta
    ([[0, 1, 2, 2, 2, 2, 4], [0, 1, 2, 2, 3, 3, 4], [0, 1, 2, 3, 2, 3, 4]], -2)

    """
    if model not in MODELS or release not in RELEASES:
        bad = ("model", MODELS, model) if model not in MODELS else ("release", RELEASES, release)
        raise ParameterError(bad[0], f"must be one of {', '.join(bad[1])}", bad[2])
    blocks, current, top = [], 0, -1
    for seg in _groups(segments, model):
        start = current if release == "5.24" else top + 1
        if seg.kind == "text":
            block = np.broadcast_to(
                np.arange(seg.size[0], dtype=np.int64) + start, (3, seg.size[0])
            )
            current = start + seg.size[0]
        else:
            t, h, w = _grid(seg, spatial_merge_size)
            times = _time_index(seg, t, model, release, tokens_per_second)
            mesh = np.meshgrid(times, np.arange(h), np.arange(w), indexing="ij")
            block = np.stack([m.reshape(-1) for m in mesh]) + start
            current = start + max(seg.size[1], seg.size[2]) // spatial_merge_size
        top = max(top, int(block.max()))
        blocks.append(block)
    ids = np.concatenate(blocks, axis=1)
    return ids, int(ids.max()) + 1 - ids.shape[1]


def reused_text_ids(
    tokens: str, ids: np.ndarray, *, model: str, spatial_merge_size: int = 2
) -> int:
    """How many text tokens take a t id that a grid before them already used.

    Under transformers 5.24's rule text goes on at ``start + max(h, w)`` (merged) after a
    grid, below the last t of a video longer than it is wide: its first ids repeat the
    video's. ``ids`` is :func:`mrope_ids`'s ``(3, seq)`` of the same ``tokens``.

    >>> layout = "text:1 video:8,2,2 text:3"
    >>> ids = mrope_ids(parse_tokens(layout), model="qwen2-vl")[0]
    >>> reused_text_ids(layout, ids, model="qwen2-vl")  # text at t 2, 3, 4; the video 1 … 8
    3
    """
    merge, seen, at, count = spatial_merge_size, -1, 0, 0
    for seg in _groups(parse_tokens(tokens), model):
        n = (
            seg.size[0]
            if seg.kind == "text"
            else seg.size[0] * (seg.size[1] // merge) * (seg.size[2] // merge)
        )
        t = ids[0, at : at + n]
        if seg.kind == "text":
            count += int(np.count_nonzero(t <= seen))
        seen, at = max(seen, int(t.max(initial=seen))), at + n
    return count
