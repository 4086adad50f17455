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

__all__ = [
    "FORMS",
    "PAIR_LAYOUTS",
    "check_form",
    "from_full",
    "pair_columns",
    "pair_layouts",
    "reform",
    "reformed",
]

#: The forms, ``full`` first (the default).
FORMS = ("full", "half", "complex", "matrix")
#: Where a pair's two channels are: ``half-split`` (``j``, ``j + h``), ``interleaved``
#: (``2j``, ``2j + 1``); a table that fits both is read as the first.
PAIR_LAYOUTS = ("half-split", "interleaved")


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
    return pair_columns(block[:, : 2 * h], layout), pair_columns(block[:, 2 * h :], layout)


def pair_columns(table: np.ndarray, layout: str, partner: bool = False) -> np.ndarray:
    """Each pair's first channel ``(n, w/2)`` of a ``(n, w)`` table (``partner``: its second).

    ``w`` is even (every caller refuses an odd width first).

    >>> t = np.array([[0, 1, 2, 3]])
    >>> pair_columns(t, "half-split").tolist(), pair_columns(t, "interleaved", True).tolist()
    ([[0, 1]], [[1, 3]])
    """
    h = table.shape[1] // 2
    if layout == "half-split":
        return table[:, h:] if partner else table[:, :h]
    return table[:, 1::2] if partner else table[:, 0::2]


def pair_layouts(tables: Iterable[np.ndarray], what: str) -> tuple[str, ...]:
    """The layouts of :data:`PAIR_LAYOUTS` whose pairs repeat one value in every table.

    Parameters
    ----------
    tables : iterable of numpy.ndarray
        ``(n, w)`` each, one even width ``w`` (a cos table, a sin table, or both).
    what : str
        What the file must be, for the error (``"must be a cos/sin cache"``).

    Raises
    ------
    ParameterError
        (as ``file``) when neither layout repeats the values of each pair.

    Examples
    --------
    >>> pair_layouts([np.array([[1.0, 1.0, 2.0, 2.0]])], "must be a cache")
    ('interleaved',)
    >>> pair_layouts([np.ones((3, 4))], "must be a cache")
    ('half-split', 'interleaved')

    """
    tables = list(tables)
    fits = tuple(
        layout
        for layout in PAIR_LAYOUTS
        if all(
            np.array_equal(pair_columns(t, layout), pair_columns(t, layout, True)) for t in tables
        )
    )
    if not fits:
        rule = (
            f"{what}, whose columns come in equal twos (column j equals column j + dim/2: "
            "half-split, or column 2j equals 2j + 1: interleaved)"
        )
        got = f"{tables[0].shape[1]} columns, none equal to its partner (neither layout)"
        raise ParameterError("file", rule, got)
    return fits


def reformed(
    blocks: Iterable[np.ndarray], *, h: int, layout: str, form: str, part: str, stored: np.dtype
) -> Iterator[np.ndarray]:
    """Full ``[cos | sin]`` float64 blocks in another form (:func:`reform`)."""
    for block in blocks:
        cos, sin = from_full(np.asarray(block, dtype=np.float64), h, layout)
        yield reform(cos, sin, form, part, stored)
