"""Which tensors of a checkpoint are sinusoidal tables, and what each one is.

A checkpoint holds many tensors; most are learned weights. Each is judged in three steps,
reading as little as possible:

1. by its header alone: a float tensor of shape ``(n, d)``, ``(1, n, d)`` or ``(n, 1, d)`` is a
   candidate; anything else (1-D, 4-D, integers, more than :data:`MAX_SCAN_VALUES` values) is
   skipped without being read;
2. by its first :data:`SCREEN_ROWS` rows (or columns, for a transposed table): sinusoidal
   columns pair into points on the unit circle, ``sin² + cos² = 1``, for some layout; a
   tensor that no pairing puts within :data:`SCREEN_TOLERANCE` of the circle is reported as
   *not sinusoidal*, with that distance as its residual, and is never read whole;
3. the candidates left are read whole, one at a time, and identified by
   :func:`pecli.analysis.identify.identify_table`; pecli's own metadata, when it describes the
   tensor, is checked against the numbers (:mod:`pecli.analysis.checkpoints.metadata`).

Reading is the caller's (``part`` and ``load``), so this module touches no file.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ...core.conventions import layout_views
from ...core.dtypes import FLOAT_DTYPES
from ...core.errors import ParameterError
from ...core.rules import LAYOUTS
from ..identify import Identification, identify_table
from .metadata import check_metadata, describes, rebuild_command

__all__ = ["SCREEN_ROWS", "TensorFinding", "scan_tensors", "table_shape"]

#: Rows (or columns) read to decide whether a tensor may be a sinusoidal table.
SCREEN_ROWS = 64
#: Largest ``|sin² + cos² - 1|`` of a candidate (bfloat16 storage stays below 0.01).
SCREEN_TOLERANCE = 0.05
#: Largest tensor identified: 2^26 values (256 MiB of float32), as ``identify`` reads.
MAX_SCAN_VALUES = 1 << 26


class TensorHeader(Protocol):
    """What a checkpoint says about a tensor before it is read."""

    @property
    def key(self) -> str: ...
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def dtype(self) -> str: ...


@dataclass
class TensorFinding:
    """The verdict on one tensor.

    ``verdict`` is ``"identified"`` (a convention reproduces it within tolerance),
    ``"no match"`` (sinusoidal columns, but no reading reproduces them), ``"not sinusoidal"``
    (``residual`` is the best pairing's largest ``|sin² + cos² - 1|`` over the screened rows;
    ``reason`` says "holds NaN/inf values" for a tensor that does), ``"unreadable"`` (an
    ``.npz`` member whose data is shorter than its declared shape) or ``"skipped"`` (by its
    header; ``reason`` says why).
    """

    key: str
    shape: tuple[int, ...]
    dtype: str
    verdict: str
    reason: str = ""
    residual: float = math.nan
    identification: Identification | None = None
    metadata: str = ""
    rebuild: str = ""  # from pecli's metadata when it agrees bit for bit


def table_shape(shape: tuple[int, ...]) -> tuple[int, int] | None:
    """The ``(rows, columns)`` of a tensor that may be a table, else None.

    >>> table_shape((1, 1500, 384)), table_shape((50, 1, 8)), table_shape((64,))
    ((1500, 384), (50, 8), None)

    """
    if len(shape) == 3 and 1 in shape[:2]:
        shape = (shape[1], shape[2]) if shape[0] == 1 else (shape[0], shape[2])
    if len(shape) != 2 or min(shape) < 2:
        return None
    return int(shape[0]), int(shape[1])


def _view(
    part: Callable[[str, tuple[slice, ...]], np.ndarray], key: str, shape: tuple[int, ...]
) -> Callable[[slice, slice], np.ndarray]:
    """Read ``table[rows, columns]`` of the tensor seen as its ``(n, d)`` table."""
    every = slice(None)

    def read(rows: slice, columns: slice) -> np.ndarray:
        index: tuple[slice, ...]
        if len(shape) == 2:
            index = (rows, columns)
        else:
            index = (every, rows, columns) if shape[0] == 1 else (rows, every, columns)
        return np.asarray(part(key, index), dtype=np.float64).reshape(rows.stop - rows.start, -1)

    return read


def _columns_residual(
    read: Callable[[slice, slice], np.ndarray], width: int, positions: int
) -> float:
    """:func:`circle_residual` of a transposed table (rows = components), from four rows.

    Only rows 0, 1, h and h + 1 (``h = width // 2``, an odd width's last row set aside) of the
    first :data:`SCREEN_ROWS` columns are read: they hold a pair of every layout, and touch a
    few pages of a large tensor, not one page per row.
    """
    h = width // 2
    if h < 1:
        return math.inf
    first = slice(0, min(SCREEN_ROWS, positions))
    rows = {r: read(slice(r, r + 1), first)[0] for r in {0, 1, h, h + 1} if r < 2 * h}
    live = np.any(np.array(list(rows.values())) != 0, axis=0)

    def off(a: int, b: int) -> float:
        return float(np.max(np.abs(rows[a][live] ** 2 + rows[b][live] ** 2 - 1.0)))

    if not live.any():
        return math.inf
    blocks = [off(0, h)] + ([off(1, h + 1)] if h > 1 else [])
    return min(off(0, 1), max(blocks))


def circle_residual(sample: np.ndarray) -> float:
    """The best layout's largest ``|sin² + cos² - 1|`` over the non-zero rows of ``sample``.

    Rows are positions. An all-zero last column of an odd width (tensor2tensor's) is set
    aside; ``inf`` when no layout applies (an odd width without it, fewer than 2 columns, no
    non-zero row).

    >>> from pecli.core.encoding import encoding_table
    >>> circle_residual(encoding_table(d=8, n=20)) < 1e-6
    True
    >>> circle_residual(np.full((20, 8), 0.3)) > 0.5
    True

    """
    values = np.asarray(sample, dtype=np.float64)
    values = values[np.any(values != 0, axis=1)]
    if values.shape[1] % 2 == 1 and not values[:, -1].any():
        values = values[:, :-1]
    if values.shape[0] == 0 or values.shape[1] < 2 or values.shape[1] % 2 == 1:
        return math.inf
    if not np.all(np.isfinite(values)):
        return math.inf
    residuals = []
    for layout in LAYOUTS:
        sines, cosines = layout_views(values, layout)
        residuals.append(float(np.max(np.abs(sines**2 + cosines**2 - 1.0))))
    return min(residuals)


def scan_tensors(
    tensors: Iterable[TensorHeader],
    *,
    part: Callable[[str, tuple[slice, ...]], np.ndarray],
    load: Callable[[str], np.ndarray],
    metadata: dict[str, str] | None = None,
) -> list[TensorFinding]:
    """Judge every tensor of a checkpoint, reading only what each step needs.

    Parameters
    ----------
    tensors : iterable of TensorHeader
        Headers (``key``, ``shape``, ``dtype`` as a NumPy name), in the order to report.
    part : callable, keyword-only
        ``part(key, index)`` returns ``tensor[index]`` (the first rows or columns).
    load : callable, keyword-only
        ``load(key)`` returns the whole tensor, called for candidates only, one at a time.
    metadata : dict of str to str, keyword-only, optional
        The checkpoint's string metadata; pecli's is checked against the tensor it names.

    Returns
    -------
    list of TensorFinding
        One per tensor, in the order given.

    Examples
    --------
    >>> from types import SimpleNamespace as T
    >>> from pecli.core.encoding import encoding_table
    >>> tensors = {"pe": encoding_table(d=16, n=40, start=0), "bias": np.zeros(16)}
    >>> heads = [T(key=k, shape=v.shape, dtype=v.dtype.name) for k, v in tensors.items()]
    >>> found = scan_tensors(heads, part=lambda k, i: tensors[k][i], load=tensors.get)
    >>> [(f.key, f.verdict) for f in found]
    [('pe', 'identified'), ('bias', 'skipped')]
    >>> found[0].identification.presets[0]
    'pytorch'

    """
    return [_judge(tensor, part, load, metadata or {}) for tensor in tensors]


def _judge(
    tensor: TensorHeader,
    part: Callable[[str, tuple[slice, ...]], np.ndarray],
    load: Callable[[str], np.ndarray],
    metadata: dict[str, str],
) -> TensorFinding:
    finding = TensorFinding(tensor.key, tuple(tensor.shape), tensor.dtype, "skipped")
    shape = table_shape(finding.shape)
    if reason := _skip_reason(finding, shape):
        finding.reason = reason
        return finding
    assert shape is not None
    own = describes(metadata, tensor.key)  # pecli's table: checked against its metadata anyway
    try:
        first_rows, residual, table = _screen(_view(part, tensor.key, finding.shape), shape,
                                              lambda: load(tensor.key), own=own)  # fmt: skip
    except ValueError as error:  # an .npz member whose data ends before its declared shape
        finding.verdict, finding.reason = "unreadable", _unreadable(error)
        return finding
    if not np.all(np.isfinite(first_rows)) or (table is not None and not _finite(table)):
        finding.verdict, finding.reason = "not sinusoidal", "holds NaN/inf values"
        return finding
    finding.residual = residual
    if table is None:
        finding.verdict = "not sinusoidal"
        finding.reason = "no column pairs on the unit circle (residual: max |sin² + cos² - 1|)"
        return finding
    found = identify_table(table)
    finding.identification, finding.residual = found, found.residual
    finding.verdict = "identified" if found.matched else "no match"
    if own:
        _check_own(finding, table, metadata)
    return finding


def _check_own(finding: TensorFinding, table: np.ndarray, metadata: dict[str, str]) -> None:
    """Check pecli's metadata against the numbers; if it agrees, it names and rebuilds it."""
    finding.metadata = check_metadata(table, metadata)
    if not finding.metadata.startswith("agrees"):
        return
    finding.rebuild = rebuild_command(metadata)
    if finding.verdict != "identified":  # e.g. an amplitude the fit does not model
        finding.verdict, finding.identification, finding.residual = "identified", None, 0.0
        finding.reason = f"{metadata['convention']}, start {metadata['start']} (its metadata)"


def _screen(
    read: Callable[[slice, slice], np.ndarray],
    shape: tuple[int, int],
    load: Callable[[], np.ndarray],
    *,
    own: bool,
) -> tuple[np.ndarray, float, np.ndarray | None]:
    """The first rows, their circle residual, and the whole table if it is to be identified."""
    first_rows = read(slice(0, min(SCREEN_ROWS, shape[0])), slice(None))
    residual = min(circle_residual(first_rows), _columns_residual(read, *shape))
    table = np.asarray(load()).reshape(shape) if residual <= SCREEN_TOLERANCE or own else None
    return first_rows, residual, table


def _unreadable(error: ValueError) -> str:
    """Why a tensor's values could not be read."""
    if isinstance(error, ParameterError):  # an object member, never unpickled
        return error.rule
    return f"truncated: its data is shorter than its declared shape ({error})"


def _finite(table: np.ndarray) -> bool:
    """Whether every value of the 2-D ``table`` is finite (bfloat16 included), in row blocks."""
    rows = max(1, (1 << 20) // table.shape[1])
    return all(
        np.all(np.isfinite(table[r : r + rows].astype(np.float32)))
        for r in range(0, len(table), rows)
    )


def _skip_reason(finding: TensorFinding, shape: tuple[int, int] | None) -> str:
    """Why a tensor is skipped by its header alone ("" for a candidate)."""
    if finding.dtype not in FLOAT_DTYPES:
        return f"not a float table (dtype {finding.dtype})"
    if shape is None:
        return "shape is not (n, d), (1, n, d) or (n, 1, d) with n, d >= 2"
    if shape[0] * shape[1] > MAX_SCAN_VALUES:
        return f"more than 2^26 values ({shape[0] * shape[1]})"
    return ""
