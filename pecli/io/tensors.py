"""``.safetensors`` files: read every tensor (bf16 included), write a new file atomically.

The one writer of ``.safetensors`` files (``compute``, ``rope cache``, ``rope permute``), with
the tensor names it accepts (:func:`check_key`) and the size it writes (for the free-space
check before any work).
Read by :mod:`pecli.io.reading.safetensors_file` (bounded reads, no memory map that a file cut
short could fault); written here in the same format, streamed block by block, so a large
cache never sits in memory twice (``safetensors.numpy.save`` builds the whole file in memory
and aborts the process when that fails). bfloat16 is ``ml_dtypes.bfloat16``. No maths here.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ..core.errors import ParameterError
from . import guard
from .guard import atomic_output

__all__ = [
    "as_vector",
    "check_key",
    "missing_tensor",
    "read_safetensors",
    "safetensors_bytes",
    "safetensors_header",
    "write_safetensors",
    "write_safetensors_parts",
]

#: Tensor names a "must name a tensor" error lists before "… and N more".
SHOWN_NAMES = 8

#: The dtypes written, as safetensors' codes.
_CODES = {
    "float64": "F64",
    "float32": "F32",
    "float16": "F16",
    "bfloat16": "BF16",
    "int64": "I64",
    "int32": "I32",
    "int16": "I16",
    "int8": "I8",
    "uint64": "U64",
    "uint32": "U32",
    "uint16": "U16",
    "uint8": "U8",
    "bool": "BOOL",
}


def read_safetensors(
    path: str | os.PathLike[str], *, parameter: str = "input"
) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Every tensor of a ``.safetensors`` file (sorted by name) and its ``__metadata__``.

    Read by :class:`pecli.io.reading.safetensors_file.SafetensorsFile`: no memory map, so a
    file cut short meanwhile is an error naming it, and a memory limit is no bad file.

    Raises
    ------
    ParameterError
        If the file is missing, is not a readable safetensors file, or changed while read.

    """
    from .reading.safetensors_file import SafetensorsFile

    name = os.fspath(path)
    with SafetensorsFile(name, parameter=parameter) as handle:
        tensors = {key: handle.read(key) for key in handle.entries}
        return tensors, dict(handle.metadata)


#: Where a tensor's row blocks come from: ``(name, dtype, shape, blocks)``.
Part = tuple[str, Any, tuple[int, ...], Iterable[np.ndarray]]


def write_safetensors(
    tensors: dict[str, np.ndarray],
    *,
    output: str | os.PathLike[str],
    metadata: dict[str, str] | None = None,
) -> None:
    """Write ``tensors`` as a new ``.safetensors`` file, atomically.

    Written by :func:`write_safetensors_parts` (no copy of the data is made) through
    :func:`pecli.io.guard.atomic_output`: the file appears complete or not at all.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.safetensors"
    >>> write_safetensors({"w": np.arange(4, dtype=np.float32)}, output=path)
    >>> read_safetensors(path)[0]["w"]
    array([0., 1., 2., 3.], dtype=float32)
    >>> path.unlink(); path.parent.rmdir()

    """
    parts = [(key, array.dtype, array.shape, [array]) for key, array in tensors.items()]
    write_safetensors_parts(parts, output=output, metadata=metadata)


#: Header bytes kept free for metadata known only once the data is written (``late``).
LATE_ROOM = 256


def write_safetensors_parts(
    parts: Sequence[Part],
    *,
    output: str | os.PathLike[str],
    metadata: dict[str, str] | None = None,
    late: Callable[[], dict[str, str]] | None = None,
) -> None:
    """Write tensors given as row blocks, one after the other: memory holds one block.

    The header is the format's (huggingface/safetensors): 8 bytes of its length, compact
    JSON padded with spaces to a multiple of 8, the ``data_offsets`` in the given order.
    ``late``: more metadata, known only after the data (a certificate's counts): the header
    is written with :data:`LATE_ROOM` more bytes of spaces, rewritten in place at the end
    with ``late()`` merged in (same length: the data does not move); a stream that cannot
    seek back (stdout, a pipe) keeps the first header.

    Raises
    ------
    ParameterError
        If a dtype is not one safetensors stores.
    ValueError
        If a tensor's blocks do not hold its shape's bytes (the file is then not created).

    """
    parts = [(k, _little(d), s, b) for k, d, s, b in parts]
    heads = [(k, d, s) for k, d, s, _ in parts]
    room = LATE_ROOM if late is not None else 0
    header = safetensors_header(heads, metadata or {}, room=room)
    with atomic_output(output) as handle:
        handle.write(header)
        for key, dtype, shape, blocks in parts:
            wanted, written = math.prod(shape) * np.dtype(dtype).itemsize, 0
            for block in guard.checked(blocks):
                data = np.ascontiguousarray(block, dtype=dtype).reshape(-1).view(np.uint8)
                written += handle.write(data.data) or 0
            if written != wanted:
                raise ValueError(f"tensor {key} got {written} bytes, expected {wanted}")
        if late is not None and handle.seekable():
            final = safetensors_header(heads, {**(metadata or {}), **late()})
            if len(final) <= len(header):  # else the first header stays (never: 256 bytes)
                final = _padded(final, len(header))
                handle.seek(0)
                handle.write(final)
                handle.seek(0, os.SEEK_END)


def _padded(header: bytes, size: int) -> bytes:
    """A header from :func:`safetensors_header` padded with spaces to ``size`` bytes in all."""
    text = header[8:] + b" " * (size - len(header))
    return len(text).to_bytes(8, "little") + text


def _little(dtype: np.dtype) -> np.dtype:
    """``dtype`` stored little-endian, as safetensors files are."""
    return np.dtype(dtype).newbyteorder("<") if np.dtype(dtype).byteorder == ">" else dtype


def safetensors_header(
    tensors: list[tuple[str, np.dtype, tuple[int, ...]]], metadata: dict[str, str], room: int = 0
) -> bytes:
    """The 8-byte length and JSON header of a ``.safetensors`` file holding ``tensors``.

    ``room``: more spaces after the padding (a multiple of 8), for metadata written later.
    """
    import json

    entries: dict[str, object] = {"__metadata__": metadata} if metadata else {}
    offset = 0
    for key, dtype, shape in tensors:
        code = _CODES.get(np.dtype(dtype).name)
        if code is None:
            raise ParameterError("input", f"holds tensor {key} of unsupported dtype", dtype)
        size = math.prod(shape) * np.dtype(dtype).itemsize
        entries[key] = {
            "dtype": code,
            "shape": list(shape),
            "data_offsets": [offset, offset + size],
        }
        offset += size
    text = json.dumps(entries, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8 + room)
    return len(text).to_bytes(8, "little") + text


def safetensors_bytes(
    tensors: Sequence[tuple[str, Any, tuple[int, ...]]], metadata: dict[str, str], room: int = 0
) -> int:
    """Bytes of the ``.safetensors`` file the writers here write for ``tensors``, exactly.

    ``tensors`` are ``(name, dtype, shape)`` in the order written: the header
    (:func:`safetensors_header`, UTF-8 metadata counted in bytes) and the data. For the
    free-space check before anything is computed.

    Raises
    ------
    ParameterError
        If a dtype is not one safetensors stores.

    Examples
    --------
    >>> safetensors_bytes([("w", np.dtype("float32"), (2, 3))], {})  # 8 + 64 (padded) + 24
    96

    """
    data = sum(math.prod(shape) * int(np.dtype(dtype).itemsize) for _, dtype, shape in tensors)
    return len(safetensors_header(list(tensors), metadata, room)) + data


def check_key(key: str) -> str:
    """A tensor name pecli writes: non-empty, printable, not starting with ``__``.

    >>> check_key("positional_encoding")
    'positional_encoding'
    """
    if not key or key.startswith("__") or not key.isprintable():
        rule = "must be a non-empty printable name not starting with __ (safetensors' own)"
        raise ParameterError("key", rule, repr(key))
    return key


def missing_tensor(
    path: str | os.PathLike[str], names: list[str], tensor: object, parameter: str = "tensor"
) -> ParameterError:
    """The error of a tensor name that the file does not hold: it lists what the file has.

    >>> print(missing_tensor("m.safetensors", ["cos", "sin"], "co"))
    tensor must name a tensor of m.safetensors (it has: cos, sin) (got 'co')
    """
    shown = ", ".join(names[:SHOWN_NAMES])
    more = len(names) - SHOWN_NAMES
    shown += f", … and {more} more" if more > 0 else ""
    rule = f"must name a tensor of {os.fspath(path)} (it has: {shown or 'no tensors'})"
    return ParameterError(parameter, rule, tensor)


def as_vector(table: np.ndarray, *, parameter: str = "file") -> np.ndarray:
    """A 1-D array, or a table of one row or column as one.

    Raises
    ------
    ParameterError
        If ``table`` holds no vector.

    """
    if table.ndim == 2 and 1 in table.shape:
        table = table.reshape(-1)
    if table.ndim != 1:
        raise ParameterError(parameter, "must hold one vector", f"shape {table.shape}")
    return table
