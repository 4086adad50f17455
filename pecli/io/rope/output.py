"""A rotary cache written: CSV and npy streamed in row blocks, or ``.safetensors`` tensors.

Shared by ``pecli rope cache`` and ``pecli rope axes``: the output's kind (checked before any
work), then a :class:`~pecli.core.rope.forms.FormTable` written through
:func:`~pecli.io.targets.write_streamed` or, for ``.safetensors``, one tensor after the
other with the metadata (after a free-space check).
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import TYPE_CHECKING

from .. import formats
from ..formats import COMPUTE_FORMATS
from ..reports import CERTIFICATE, Written, check_json_output, say_done
from ..targets import write_streamed

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterator

    import numpy as np

    from ...core.rope.forms import FormTable


def table_kind(
    output: str, fmt: StrEnum | None, *, as_json: bool = False, header: bool | None = None
) -> str:
    """``csv``, ``npy`` or ``safetensors`` (by its suffix), the output checked before any work.

    ``as_json``: the report goes to stderr as JSON, so stderr is refused as the output.
    ``header``: ``--header`` (True) or ``--no-header`` (False) if given; True is refused
    but for CSV.
    """
    kind = formats.resolve_format(output, fmt.value if fmt else None, suffixes=COMPUTE_FORMATS)
    formats.check_output(output, kind)
    formats.check_header(kind, header)
    if as_json:
        check_json_output(output)
    return kind


def write_cache(
    table: FormTable,
    *,
    output: str,
    kind: str,
    header: bool,
    quiet: bool,
    description: str,
    metadata: dict[str, str] | None = None,
    size: int | None = None,
    certified: bool = False,
    not_certified: str | None = None,
    as_json: bool = False,
    notes: tuple[str, ...] = (),
) -> None:
    """Write ``table`` as ``kind``; ``size``: its bytes if known (npy: counted here).

    ``certified``: the values come from the certified kernels (exact arithmetic); the
    certificate's counts are said after the file's name (docs/exactness.md); else
    ``not_certified`` says why not. ``as_json``: all that as one JSON object with ``notes``
    (:mod:`pecli.io.reports`).
    """
    if kind == "safetensors":
        return _write_safetensors(
            table,
            output,
            metadata,
            quiet,
            certified,
            as_json=as_json,
            notes=notes,
            not_certified=not_certified,
        )
    if size is None and kind == "npy":
        size = 128 + math.prod(table.shape) * table.dtype.itemsize
    write_streamed(
        table.blocks(),
        output=output,
        fmt=kind,
        shape=table.shape,
        dtype=table.dtype,
        columns=table.columns,
        header=header,
        quiet=quiet,
        description=description,
        size=size,
        certified="copied" if certified else None,  # each value spread to its pair
        not_certified=not_certified,
        as_json=as_json,
        notes=notes,
    )


def _write_safetensors(
    table: FormTable,
    output: str,
    metadata: dict[str, str] | None,
    quiet: bool,
    certified: bool,
    *,
    as_json: bool,
    notes: tuple[str, ...],
    not_certified: str | None,
) -> None:
    """Each tensor streamed in row blocks; the certificate's report is known only after."""
    from ...core import certificate
    from ..tensors import LATE_ROOM, safetensors_bytes, write_safetensors_parts

    parts = [_counted_alone(*table.tensor(name)) for name in table.tensors]
    heads = [(name, dtype, shape) for name, dtype, shape, _ in parts]
    room = LATE_ROOM if certified else 0
    formats.check_room(output, safetensors_bytes(heads, metadata or {}, room))
    with certificate.counting() as tally:

        def late() -> dict[str, str]:  # the counts, once the data is written
            return {CERTIFICATE: tally.message(table.dtype, None)}

        write_safetensors_parts(
            parts, output=output, metadata=metadata, late=late if certified else None
        )
    tensors = {name: (dtype, shape) for name, dtype, shape in heads}
    written = Written(output, "safetensors", table.dtype, _alone(tensors), tensors)
    said = tally.certificate(table.dtype, None) if certified else None
    say_done(
        written,
        said,
        quiet=quiet,
        as_json=as_json,
        not_certified=not_certified,
        notes=notes,
    )


def _alone(tensors: dict[str, tuple[np.dtype, tuple[int, ...]]]) -> tuple[int, ...] | None:
    """The shape of a file's only tensor; None for several."""
    return next(iter(tensors.values()))[1] if len(tensors) == 1 else None


def _counted_alone(
    name: str, dtype: np.dtype, shape: tuple[int, ...], blocks: Iterator[np.ndarray]
) -> tuple[str, np.dtype, tuple[int, ...], Iterator[np.ndarray]]:
    """One tensor whose blocks reset the certificate's tally before the first is made.

    Each tensor (``cos``, then ``sin``) is streamed by a pass of its own over the whole
    cache, and a pass rounds every value under the certificate (the kernels make cos and sin
    together): the file's counts are one pass's, the last, not their sum (which said each
    recomputed value twice).
    """

    def alone() -> Iterator[np.ndarray]:
        from ...core import certificate

        certificate.TALLY.reset()
        yield from blocks

    return name, dtype, shape, alone()
