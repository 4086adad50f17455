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

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from ..dtypes import round_once
from ..errors import ParameterError

__all__ = [
    "FORMS",
    "PAIR_LAYOUTS",
    "FormTable",
    "check_form",
    "form_table",
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


def _pairs_repeat(table: np.ndarray, layout: str) -> bool:
    """Whether each pair's two columns are equal in every row: first on 64 rows spread over it.

    Rows that differ somewhere differ in the whole table: a layout that does not fit is
    told apart without reading the whole table.
    """
    n = table.shape[0]
    if n > 64:
        rows = np.linspace(0, n - 1, 64).astype(np.int64)
        few = table[rows]
        if not np.array_equal(pair_columns(few, layout), pair_columns(few, layout, True)):
            return False
    return bool(np.array_equal(pair_columns(table, layout), pair_columns(table, layout, True)))


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
    fits = tuple(layout for layout in PAIR_LAYOUTS if all(_pairs_repeat(t, layout) for t in tables))
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


@dataclass(frozen=True)
class FormTable:
    """A cache in one form, as a writer takes it: shape, dtype, columns, tensors, row blocks.

    Shared by the 1-D caches (:func:`pecli.core.ports.arithmetic.cache_table`) and the
    multi-axis ones (:func:`pecli.core.multiaxis.cache.axes_table`).

    Attributes
    ----------
    shape : tuple of int
        The whole table: ``(n, width)``, ``(n, h)`` complex, ``(n, h, 2, 2)`` matrix.
    dtype : numpy.dtype
        Its dtype (complex64 or complex128 for the complex form).
    columns : list of str
        CSV column names (``cos_0 … sin_0 …``, ``pair_j``; none for the matrix form).
    tensors : tuple of str
        Its tensors in a ``.safetensors`` file: ``cos`` and ``sin`` (or the part), or
        ``rotation`` (the matrix form).
    part : str
        ``both``, ``cos`` or ``sin``.
    make : callable
        ``make(part)``: the row blocks of ``part`` (``both``: the whole table).

    """

    shape: tuple[int, ...]
    dtype: np.dtype
    columns: list[str]
    tensors: tuple[str, ...]
    part: str
    make: Callable[[str], Iterator[np.ndarray]]

    def blocks(self) -> Iterator[np.ndarray]:
        """The whole table's row blocks."""
        return self.make(self.part)

    def tensor(self, name: str) -> tuple[str, np.dtype, tuple[int, ...], Iterator[np.ndarray]]:
        """``(name, dtype, shape, blocks)`` of one of :attr:`tensors`, streamed on its own."""
        shape = self.shape
        if len(self.tensors) > 1:  # cos and sin side by side: each is its half of the columns
            shape = (shape[0], shape[1] // len(self.tensors))
        return name, self.dtype, shape, self.make(self.part if name == "rotation" else name)


def form_table(
    make: Callable[[str], Iterator[np.ndarray]],
    *,
    n: int,
    h: int,
    form: str,
    part: str,
    stored: np.dtype,
) -> FormTable:
    """The :class:`FormTable` of an ``(n, ·)`` cache of ``h`` pairs whose blocks ``make`` gives.

    Examples
    --------
    >>> table = form_table(iter, n=3, h=2, form="half", part="both", stored=np.dtype("float32"))
    >>> table.shape, table.columns, table.tensors
    ((3, 4), ['cos_0', 'cos_1', 'sin_0', 'sin_1'], ('cos', 'sin'))
    >>> form_table(iter, n=3, h=2, form="matrix", part="both", stored=np.dtype("float32")).shape
    (3, 2, 2, 2)

    """
    names = ("cos", "sin") if part == "both" else (part,)
    if form == "complex":
        dtype = np.dtype(np.complex64 if stored.itemsize == 4 else np.complex128)
        return FormTable((n, h), dtype, [f"pair_{j}" for j in range(h)], names, part, make)
    if form == "matrix":
        return FormTable((n, h, 2, 2), stored, [], ("rotation",), part, make)
    width = 2 * h if form == "full" else h
    columns = [f"{name}_{k}" for name in names for k in range(width)]
    return FormTable((n, width * len(names)), stored, columns, names, part, make)
