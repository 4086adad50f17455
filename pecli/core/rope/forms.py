"""The forms engines keep a rotary cache in, from per-pair cos and sin.

``full``: the rotated width, each value on both channels of its pair (transformers,
``rotate_half`` or GPT-J ``rotate_every_two``); ``half``: one column per pair (GPT-J's
``create_sinusoidal_positions``, gpt-oss, FLUX-style code: ``rotary_dim/2`` columns);
``complex``: ``cos + i·sin`` (Meta's and Mistral's ``freqs_cis``, ``torch.polar``: complex64
``(n, d/2)``); ``matrix``: the 2×2 rotation ``[[cos, −sin], [sin, cos]]`` of each pair (BFL's
``flux/math.py`` ``rope``: ``(n, d/2, 2, 2)``). Values come in as float64 and are rounded once.
Pure NumPy; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from ..dtypes import round_once
from ..errors import ParameterError

__all__ = ["FORMS", "check_form", "from_full", "reform", "reformed"]

#: The forms, ``full`` first (the default).
FORMS = ("full", "half", "complex", "matrix")


def check_form(form: str, part: str, stored: np.dtype) -> None:
    """Refuse a form that does not exist, or a part or dtype it cannot hold.

    Raises
    ------
    ParameterError
        (as ``form``, ``part`` or ``dtype``).

    """
    if form not in FORMS:
        raise ParameterError("form", f"must be one of {', '.join(FORMS)}", form)
    if form in ("complex", "matrix") and part != "both":
        raise ParameterError("part", "must be both for the complex and matrix forms", part)
    if form == "complex" and stored.name not in ("float32", "float64"):
        raise ParameterError("dtype", "must be float32 or float64 for the complex form", stored)


def reform(cos: np.ndarray, sin: np.ndarray, form: str, part: str, stored: np.dtype) -> np.ndarray:
    """``(m, h)`` cos and sin (float64) in a form other than ``full``, rounded once to ``stored``.

    Examples
    --------
    >>> c, s = np.array([[0.5]]), np.array([[0.25]])
    >>> reform(c, s, "matrix", "both", np.dtype("float64")).tolist()
    [[[[0.5, -0.25], [0.25, 0.5]]]]
    >>> reform(c, s, "complex", "both", np.dtype("float32"))
    array([[0.5+0.25j]], dtype=complex64)

    """
    if form == "complex":
        out = np.empty(cos.shape, dtype=np.complex64 if stored.itemsize == 4 else np.complex128)
        out.real, out.imag = cos, sin
        return out
    if form == "matrix":
        values = np.stack([cos, -sin, sin, cos], axis=-1).reshape(*cos.shape, 2, 2)
    else:
        names = ("cos", "sin") if part == "both" else (part,)
        values = np.concatenate([cos if name == "cos" else sin for name in names], axis=1)
    return round_once(values, stored)  # a plain cast, but for bfloat16 (rounded once)


def from_full(block: np.ndarray, h: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-pair cos and sin ``(m, h)`` of a full ``[cos | sin]`` block of width ``4h``.

    ``layout``: ``half-split`` (pair ``j`` on channels ``j``, ``j+h``) or ``interleaved``
    (``2j``, ``2j+1``).
    """
    take = slice(0, h) if layout == "half-split" else slice(0, 2 * h, 2)
    return block[:, : 2 * h][:, take], block[:, 2 * h :][:, take]


def reformed(
    blocks: Iterable[np.ndarray], *, h: int, layout: str, form: str, part: str, stored: np.dtype
) -> Iterator[np.ndarray]:
    """Full ``[cos | sin]`` float64 blocks in another form (:func:`reform`)."""
    for block in blocks:
        cos, sin = from_full(np.asarray(block, dtype=np.float64), h, layout)
        yield reform(cos, sin, form, part, stored)
