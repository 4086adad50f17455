"""``.safetensors`` files read without a memory map: header checked, tensors read by ``pread``.

The format (huggingface/safetensors, docs "Format"): 8 bytes little-endian N, N bytes of a
JSON object ``{name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {str:
str}}``, then the data, offsets relative to its start. The header is checked as the library
checks it (``Metadata::validate``): known dtypes, sizes that match the shapes, offsets that
tile the data exactly. Tensors are read with bounded ``os.preadv`` calls into their array, so
a file cut short while it is read is an error naming it ("changed while it was read"), where
the library's memory map ends the process with SIGBUS; a memory limit is a ``MemoryError``,
never blamed on the file. No maths here.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.errors import ParameterError
from ..paths import note_input, offsets_problem
from .bounded import read_into

__all__ = ["MAX_HEADER_BYTES", "NUMPY_NAMES", "Entry", "SafetensorsFile"]

#: The library's own limit on the JSON header.
MAX_HEADER_BYTES = 100_000_000
#: Bits per value of each dtype code the library knows.
_BITS = {
    "BOOL": 8,
    "U8": 8,
    "I8": 8,
    "F8_E5M2": 8,
    "F8_E4M3": 8,
    "F8_E8M0": 8,
    "I16": 16,
    "U16": 16,
    "F16": 16,
    "BF16": 16,
    "I32": 32,
    "U32": 32,
    "F32": 32,
    "C64": 64,
    "I64": 64,
    "U64": 64,
    "F64": 64,
    "F4": 4,
    "F6_E2M3": 6,
    "F6_E3M2": 6,
}
#: The codes read as NumPy arrays, by NumPy name (bfloat16 and float8 from ml_dtypes).
NUMPY_NAMES = {
    "F64": "float64",
    "F32": "float32",
    "F16": "float16",
    "BF16": "bfloat16",
    "I64": "int64",
    "I32": "int32",
    "I16": "int16",
    "I8": "int8",
    "U64": "uint64",
    "U32": "uint32",
    "U16": "uint16",
    "U8": "uint8",
    "BOOL": "bool",
    "F8_E4M3": "float8_e4m3fn",
    "F8_E5M2": "float8_e5m2",
}


@dataclass(frozen=True)
class Entry:
    """A tensor's header: name, dtype code, shape and its bytes in the file."""

    key: str
    code: str
    shape: tuple[int, ...]
    begin: int
    end: int


class SafetensorsFile:
    """An open ``.safetensors`` file: ``entries`` (sorted by name), ``metadata``, ``read``."""

    def __init__(self, path: str, *, parameter: str, what: str = "a .safetensors file") -> None:
        self.path, self.parameter, self.what = path, parameter, what
        self.fd = self._open()
        note_input(path)
        try:
            status = os.fstat(self.fd)
            if problem := offsets_problem(path, what.removeprefix("a "), status.st_mode):
                raise ParameterError(parameter, problem, path)  # a folder, a FIFO, a device
            self._stamp = _stamp(status)
            self.entries, self.metadata, self.start = self._header()
        except BaseException:
            os.close(self.fd)
            raise

    def _open(self) -> int:
        """The file, opened at once: O_NONBLOCK refuses a FIFO instead of waiting for a writer."""
        try:
            return os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError as error:
            problem = offsets_problem(self.path, self.what.removeprefix("a "))
            reason = problem or f"cannot be read ({error.strerror})"
            raise ParameterError(self.parameter, reason, self.path) from None

    def __enter__(self) -> SafetensorsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def _bad(self, reason: str) -> ParameterError:
        return ParameterError(self.parameter, f"must be {self.what} ({reason})", self.path)

    def _header(self) -> tuple[dict[str, Entry], dict[str, str], int]:
        size = self._stamp[0]
        head = os.pread(self.fd, 8, 0)
        if len(head) < 8:
            raise self._bad("shorter than its 8-byte header size")
        length = int.from_bytes(head, "little")
        if length > MAX_HEADER_BYTES:
            raise self._bad(f"header of {length} bytes, more than {MAX_HEADER_BYTES}")
        if 8 + length > size:
            raise self._bad(f"header of {length} bytes in a file of {size}")
        text = self._exactly(length, 8)
        if not text.lstrip().startswith(b"{"):
            raise self._bad("its header is no JSON object")
        value = _parse(text, self._bad)
        metadata = value.pop("__metadata__", None) or {}
        if not isinstance(metadata, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()
        ):
            raise self._bad("__metadata__ must map strings to strings")
        entries = [self._entry(key, info) for key, info in value.items()]
        self._check_tiling(entries, size - 8 - length)
        return {e.key: e for e in sorted(entries, key=lambda e: e.key)}, metadata, 8 + length

    def _entry(self, key: str, info: Any) -> Entry:
        ok = isinstance(info, dict) and info.get("dtype") in _BITS
        shape: Any = info.get("shape") if ok else None
        offsets: Any = info.get("data_offsets") if ok else None
        ok = ok and isinstance(shape, list) and all(_natural(s) for s in shape)
        ok = ok and isinstance(offsets, list) and len(offsets) == 2
        ok = ok and all(_natural(o) for o in offsets) and offsets[0] <= offsets[1]
        if not ok:
            raise self._bad(f"tensor {key!r} has a broken header entry")
        bits = math.prod(shape) * _BITS[info["dtype"]]
        if bits != 8 * (offsets[1] - offsets[0]):
            raise self._bad(f"tensor {key!r} has {offsets[1] - offsets[0]} bytes for its shape")
        return Entry(key, info["dtype"], tuple(shape), offsets[0], offsets[1])

    def _check_tiling(self, entries: list[Entry], data_bytes: int) -> None:
        end = 0
        for entry in sorted(entries, key=lambda e: (e.begin, e.end)):
            if entry.begin != end:
                raise self._bad(f"tensor {entry.key!r} does not start where the last one ends")
            end = entry.end
        if end != data_bytes:
            raise self._bad(f"its tensors hold {end} bytes and the file {data_bytes}")

    def dtype(self, key: str) -> np.dtype | None:
        """NumPy's dtype for tensor ``key``, None for codes NumPy has no type for (F4, …)."""
        name = NUMPY_NAMES.get(self.entries[key].code)
        if name is None:
            return None
        if name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
            import ml_dtypes

            found: np.dtype = np.dtype(getattr(ml_dtypes, name))
            return found
        return np.dtype(name).newbyteorder("<")

    def read(self, key: str, rows: slice | None = None, axis: int = 0) -> np.ndarray:
        """Tensor ``key`` whole, or entries ``rows`` (step 1) of an axis with only 1s before it."""
        entry, dtype = self.entries[key], self.dtype(key)
        if dtype is None:
            rule = f"holds tensor {key} of dtype {entry.code}, which pecli does not read"
            raise ParameterError(self.parameter, rule, self.path)
        shape, offset = entry.shape, self.start + entry.begin
        if rows is not None and len(shape) > axis and math.prod(shape[:axis]) == 1:
            first, stop, _ = rows.indices(shape[axis])
            width = math.prod(shape[axis + 1 :]) * dtype.itemsize
            shape = (*shape[:axis], max(stop - first, 0), *shape[axis + 1 :])
            offset += first * width
        array = np.empty(shape, dtype=dtype)  # a MemoryError is the memory's, not the file's
        self._read_into(array.reshape(-1).view(np.uint8), offset)
        return array

    def _read_into(self, buffer: np.ndarray, offset: int) -> None:
        if not read_into(self.fd, buffer, offset) or _stamp(os.fstat(self.fd)) != self._stamp:
            raise self._changed()

    def _exactly(self, count: int, offset: int) -> bytes:
        buffer = np.empty(count, np.uint8)
        self._read_into(buffer, offset)
        return buffer.tobytes()

    def _changed(self) -> ParameterError:
        rule = "changed while it was read: it is not the file its header describes"
        return ParameterError(self.parameter, rule, self.path)


def _stamp(found: os.stat_result) -> tuple[int, int]:
    return found.st_size, found.st_mtime_ns


def _natural(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _parse(text: bytes, bad: Any) -> dict[str, Any]:
    try:
        value = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise bad(f"its header is not JSON: {reason}") from None
    if not isinstance(value, dict):
        raise bad("its header is no JSON object")
    return value
