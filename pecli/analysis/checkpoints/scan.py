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
   :func:`pecli.analysis.sinusoidal.identify.identify_table`; pecli's own metadata, when it
   describes the tensor, is checked against the numbers
   (:mod:`pecli.analysis.checkpoints.metadata`).

Reading is the caller's (``part`` and ``load``), so this module touches no file.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ...core.dtypes import FLOAT_DTYPES
from ...core.errors import ParameterError
from ..rebuild import Rebuild
from ..sinusoidal.identify import Identification, identify_table
from .metadata import check_metadata, describes, rebuild_command
from .screen import SCREEN_ROWS, circle_residual, columns_residual

if TYPE_CHECKING:  # pragma: no cover
    from ..grids.identify import GridIdentification

__all__ = ["SCREEN_ROWS", "TensorFinding", "scan_tensors", "table_shape"]

#: Largest ``|sin² + cos² - 1|`` of a candidate (bfloat16 storage stays below 0.01).
SCREEN_TOLERANCE = 0.05
#: Largest tensor identified: 2^26 values (256 MiB of float32), as ``identify`` reads.
MAX_SCAN_VALUES = 1 << 26
#: Last parts of tensor names that rotary embeddings use for their buffers.
ROTARY_NAMES = {"inv_freq", "cos", "sin", "cos_cached", "sin_cached"}


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
    header; ``reason`` says why). A table no 1-D reading reproduces is read as the table of a
    grid of tokens (:func:`pecli.analysis.grids.identify.identify_grid`); ``grid`` holds that
    reading when it matches.
    """

    key: str
    shape: tuple[int, ...]
    dtype: str
    verdict: str
    reason: str = ""
    residual: float = math.nan
    identification: Identification | None = None
    grid: GridIdentification | None = None  # a grid of tokens' table (ViT pos_embed)
    metadata: str = ""
    rebuild: Rebuild = field(default_factory=Rebuild)  # from pecli's metadata, if it agrees

    @property
    def rebuilt_by(self) -> Rebuild:
        """What rebuilds an identified tensor (empty unless identified).

        pecli's own metadata, proven bit for bit, first; else the grid's or the table's reading.
        """
        if self.verdict != "identified":
            return Rebuild()
        if self.rebuild:
            return self.rebuild
        if self.grid is not None and self.grid.best is not None:
            return self.grid.best.command
        return self.identification.command if self.identification else Rebuild()

    @property
    def open_note(self) -> str:
        """What identify leaves open or its command does not rebuild.

        None with pecli's metadata, which rebuilds the tensor bit for bit.
        """
        found = self.identification
        return found.note if found is not None and not self.rebuild else ""

    @property
    def reading(self) -> str:
        """What the tensor is, in a few words (why it is not, when it is no table)."""
        found = self.identification
        if self.grid is not None and self.grid.best is not None:
            best, extra = self.grid.best, self.grid.extra_tokens
            grid = " × ".join(map(str, best.shape))
            tokens = f"{extra} extra token{'' if extra == 1 else 's'}"
            return f"{best.preset} grid {grid}, {best.first}, {tokens}, {self.grid.storage}"
        if found is None:
            return self.reason
        if found.presets:
            name = found.presets[0]
        else:
            name = f"custom: {found.layout}, {found.schedule}, C = {found.base:.6g}"
        return f"{name}, start {found.start:g}, {found.storage}"

    @property
    def rotary(self) -> bool:
        """The tensor's name is that of a rotary embedding's buffer (``…inv_freq``, ``…cos``)."""
        return self.key.rsplit(".", 1)[-1] in ROTARY_NAMES


def table_shape(shape: tuple[int, ...]) -> tuple[int, int] | None:
    """The ``(rows, columns)`` of a tensor that may be a table, else None.

    ``(n, d)``, ``(1, n, d)``, ``(n, 1, d)``, and a grid's table with a batch axis,
    ``(1, H, W, d)`` or ``(1, T, H, W, d)`` (tokens in row-major order, as a ViT or a video
    model keeps its ``pos_embed`` unflattened): ``(H·W, d)``.

    >>> table_shape((1, 1500, 384)), table_shape((50, 1, 8)), table_shape((64,))
    ((1500, 384), (50, 8), None)
    >>> table_shape((1, 14, 14, 768)), table_shape((8, 3, 7, 7))
    ((196, 768), None)

    """
    if len(shape) in (4, 5) and shape[0] == 1:  # every token, the batch of 1 too
        shape = (math.prod(shape[:-1]), shape[-1])
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
    inner = math.prod(shape[2:-1]) if len(shape) > 3 else 1  # tokens per step of grid axis 1

    def read(rows: slice, columns: slice) -> np.ndarray:
        index: tuple[slice, ...]
        if len(shape) == 2:
            index = (rows, columns)
        elif len(shape) == 3:
            index = (every, rows, columns) if shape[0] == 1 else (rows, every, columns)
        else:  # (1, H, W, d): the H-rows that hold the tokens, then those tokens
            first, last = rows.start // inner, -(-rows.stop // inner)
            index = (every, slice(first, last), *(every,) * (len(shape) - 3), columns)
            block = np.asarray(part(key, index), dtype=np.float64).reshape(
                -1, _width(columns, shape)
            )
            return block[rows.start - first * inner : rows.stop - first * inner]
        return np.asarray(part(key, index), dtype=np.float64).reshape(rows.stop - rows.start, -1)

    return read


def _width(columns: slice, shape: tuple[int, ...]) -> int:
    """How many columns ``columns`` picks of a last axis of ``shape[-1]``."""
    return len(range(*columns.indices(shape[-1])))


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
    >>> from pecli.core.sinusoidal.encoding import encoding_table
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
        first_rows, residual, table = _screen(
            _view(part, tensor.key, finding.shape), shape, lambda: load(tensor.key), own=own
        )
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
    if not found.matched:
        _read_grid(finding, table)
    if own:
        _check_own(finding, table, metadata)
    return finding


def _read_grid(finding: TensorFinding, table: np.ndarray) -> None:
    """Identify ``table`` as a grid's table; on a match, ``finding`` holds that reading."""
    from ..grids.identify import grid_match  # only for tables no 1-D reading reproduces

    if (grid := grid_match(table)) is not None and grid.best is not None:
        finding.verdict, finding.grid, finding.identification = "identified", grid, None
        finding.residual = grid.best.max_error


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
    residual = min(circle_residual(first_rows), columns_residual(read, *shape))
    table = np.asarray(load()).reshape(shape) if residual <= SCREEN_TOLERANCE or own else None
    return first_rows, residual, table


def _unreadable(error: ValueError) -> str:
    """Why a tensor's values could not be read; a file that changed while read is raised.

    A ``ParameterError`` of the reader (the file changed, an object member never unpickled)
    ends the run: no verdict on the other tensors holds.
    """
    if isinstance(error, ParameterError):
        raise error
    return f"truncated: its data is shorter than its declared shape ({error})"


def _finite(table: np.ndarray) -> bool:
    """Whether every value of the 2-D ``table`` is finite, in row blocks.

    float16 and bfloat16 are widened to float32 (exactly; ``isfinite`` has no bfloat16 loop);
    float32 and float64 are read as they are (a float64 of 1e300 is finite, not float32's inf).
    """
    rows = max(1, (1 << 20) // table.shape[1])
    wide = np.float32 if table.dtype.itemsize < 4 else table.dtype
    return all(
        np.all(np.isfinite(table[r : r + rows].astype(wide, copy=False)))
        for r in range(0, len(table), rows)
    )


def _skip_reason(finding: TensorFinding, shape: tuple[int, int] | None) -> str:
    """Why a tensor is skipped by its header alone ("" for a candidate)."""
    if finding.dtype not in FLOAT_DTYPES:
        return f"not a float table (dtype {finding.dtype})"
    if shape is None:
        return "shape is not (n, d), (1, n, d), (n, 1, d) or (1, H, W, d) with n, d >= 2"
    if shape[0] * shape[1] > MAX_SCAN_VALUES:
        return f"more than 2^26 values ({shape[0] * shape[1]})"
    return ""
