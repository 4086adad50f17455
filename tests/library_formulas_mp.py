"""Each library's 1-D table written out in mpmath (40 digits), from the library's own rule.

One function per family, following the library's source (docs/conventions.md names each
file): which frequency each column gets, sine or cosine, and what odd d and the padding row
do. Nothing here imports pecli: these are the exact values pecli is checked against.
"""

from __future__ import annotations

from typing import Any

import mpmath

mpmath.mp.dps = 40

#: Presets whose frequencies are ω_k = exp(-ln C · k / (h - s)), h = d // 2, sine block first.
SHIFTED = {
    "tensor2tensor": 1,
    "fairseq": 1,
    "whisper": 1,
    "lucidrains": 1,
    "musicgen": 1,
    "diffusers": 1,
    "ldm": 0,
}
COS_FIRST = {"musicgen", "ldm"}


def _column_rule(pos: Any, d: int, c: Any) -> list[Any]:
    """DistilBERT/XLM, keras-hub: column j has angle pos / C^(2·(j//2)/d), sine when j even."""
    row = []
    for j in range(d):
        angle = pos / mpmath.power(c, mpmath.mpf(2 * (j // 2)) / d)
        row.append(mpmath.sin(angle) if j % 2 == 0 else mpmath.cos(angle))
    return row


def _marian(pos: Any, d: int, c: Any) -> list[Any]:
    """HF Marian: the column rule, then ceil(d/2) sines (even j) and floor(d/2) cosines."""
    row = _column_rule(pos, d, c)
    return row[0::2] + row[1::2]


def _tatp22(pos: Any, d: int, c: Any) -> list[Any]:
    """positional-encodings: inv_freq over 2·ceil(d/2) channels, interleaved, cut to d."""
    channels = 2 * -(-d // 2)
    row = []
    for k in range(channels // 2):
        angle = pos * mpmath.power(c, -mpmath.mpf(2 * k) / channels)
        row += [mpmath.sin(angle), mpmath.cos(angle)]
    return row[:d]


def _shifted(preset: str, pos: Any, d: int, c: Any, knobs: dict[str, Any]) -> list[Any]:
    """tensor2tensor's family and diffusers / LDM: blocks of sines and cosines, odd d -> 0."""
    h = d // 2
    shift = mpmath.mpf(knobs.get("downscale_freq_shift", SHIFTED[preset]))
    denominator = h - shift
    if shift == 1:  # tensor2tensor's max(num_timescales - 1, 1)
        denominator = max(denominator, 1)
    scale = mpmath.mpf(knobs.get("angle_scale", 1))
    angles = [scale * pos * mpmath.exp(-mpmath.log(c) * k / denominator) for k in range(h)]
    sines, cosines = [mpmath.sin(a) for a in angles], [mpmath.cos(a) for a in angles]
    first = preset in COS_FIRST or knobs.get("flip_sin_to_cos", False)
    row = cosines + sines if first else sines + cosines
    return row + [mpmath.mpf(0)] * (d % 2)


def _mlx(pos: Any, d: int, c: Any, knobs: dict[str, Any]) -> list[Any]:
    """MLX: σ_k = max·(min/max)^(k/(h-1)) (σ = max at d = 2), ×2π in turns, × sqrt(2/d)."""
    h = d // 2
    max_freq, min_freq = mpmath.mpf(1), 1 / c
    sigmas = [max_freq * (min_freq / max_freq) ** (mpmath.mpf(k) / max(h - 1, 1)) for k in range(h)]
    turn = 2 * mpmath.pi if knobs.get("full_turns") else 1
    angles = [pos * s * turn for s in sigmas]
    sines, cosines = [mpmath.sin(a) for a in angles], [mpmath.cos(a) for a in angles]
    row = cosines + sines if knobs.get("layout") == "cos-sin" else sines + cosines
    amplitude = knobs.get("amplitude", "sqrt(2/d)")
    a = mpmath.sqrt(mpmath.mpf(2) / d) if amplitude == "sqrt(2/d)" else mpmath.mpf(amplitude)
    return [a * v for v in row]


def library_row(preset: str, pos: int, d: int, knobs: dict[str, Any]) -> list[Any]:
    """The exact row at position ``pos`` of the library behind ``preset`` (padding aside)."""
    c = mpmath.mpf(knobs.get("base", 10000))
    p = mpmath.mpf(pos)
    if preset in ("distilbert", "pytorch", "vaswani"):
        return _column_rule(p, d, c)
    if preset == "hf-marian":
        return _marian(p, d, c)
    if preset == "positional-encodings":
        return _tatp22(p, d, c)
    if preset == "mlx":
        return _mlx(p, d, c, knobs)
    return _shifted(preset, p, d, c, knobs)
