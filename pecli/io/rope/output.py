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

from .. import formats, paths
from ..formats import COMPUTE_FORMATS
from ..targets import CERTIFICATE, say_certified, say_written, write_streamed

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterator

    import numpy as np

    from ...core.rope.forms import FormTable


def table_kind(output: str, fmt: StrEnum | None) -> str:
    """``csv``, ``npy`` or ``safetensors`` (by its suffix), the output checked before any work."""
    kind = formats.resolve_format(output, fmt.value if fmt else None, suffixes=COMPUTE_FORMATS)
    formats.check_output(output, kind)
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
) -> None:
    """Write ``table`` as ``kind``; ``size``: its bytes if known (npy: counted here).

    ``certified``: the values come from the certified kernels (exact arithmetic); the
    certificate's counts are said after the file's name (docs/exactness.md).
    """
    if kind == "safetensors":
        return _write_safetensors(table, output, metadata, quiet=quiet, certified=certified)
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
    )


def _write_safetensors(
    table: FormTable,
    output: str,
    metadata: dict[str, str] | None,
    *,
    quiet: bool,
    certified: bool,
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
    say_written(output, quiet=quiet)
    if certified:
        say_certified(tally.message(table.dtype, None), quiet=quiet or paths.is_stdout(output))


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
