"""GGUF files (llama.cpp's format): the header read with bounded reads, F32 tensors by name.

pecli reads GGUF with its own small reader instead of the ``gguf`` package's ``GGUFReader``:
that reader memory-maps the whole file (``np.memmap``), so a file cut short while it is read
ends the process with SIGBUS, and it pulls in pyyaml, requests and tqdm. Here the header
(magic, version, key/value table, tensor infos) is read with ``os.pread`` in 1 MiB windows;
every count and length is checked against the bytes the file still has before it is used, so
a truncated or hostile file is refused in one line; only ``F32`` tensors are ever read
(``rope_freqs``, ``rope_factors_long``/``short`` are always F32); quantised weights are never
decoded. Layout: llama.cpp ``ggml/include/gguf.h`` and ``gguf-py/gguf/gguf_reader.py``.
"""

from __future__ import annotations

import math
import os
import struct
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import ParameterError
from .gguf_cursor import CUT
from .gguf_cursor import Cursor as _Cursor
from .paths import note_input, offsets_problem

__all__ = ["GgufFile", "GgufTensor", "is_gguf", "read_f32", "read_gguf", "read_rope_tensors"]

MAGIC = b"GGUF"
#: Value types of the key/value table: struct codes of the scalars (8 string, 9 array).
_SCALARS = {
    0: "B",
    1: "b",
    2: "H",
    3: "h",
    4: "I",
    5: "i",
    6: "f",
    7: "?",
    10: "Q",
    11: "q",
    12: "d",
}
_STRING, _ARRAY = 8, 9
#: ggml types: name, elements per block, bytes per block (gguf-py ``GGML_QUANT_SIZES``).
GGML_TYPES = {
    0: ("F32", 1, 4),
    1: ("F16", 1, 2),
    2: ("Q4_0", 32, 18),
    3: ("Q4_1", 32, 20),
    6: ("Q5_0", 32, 22),
    7: ("Q5_1", 32, 24),
    8: ("Q8_0", 32, 34),
    9: ("Q8_1", 32, 40),
    10: ("Q2_K", 256, 84),
    11: ("Q3_K", 256, 110),
    12: ("Q4_K", 256, 144),
    13: ("Q5_K", 256, 176),
    14: ("Q6_K", 256, 210),
    15: ("Q8_K", 256, 292),
    16: ("IQ2_XXS", 256, 66),
    17: ("IQ2_XS", 256, 74),
    18: ("IQ3_XXS", 256, 98),
    19: ("IQ1_S", 256, 50),
    20: ("IQ4_NL", 32, 18),
    21: ("IQ3_S", 256, 110),
    22: ("IQ2_S", 256, 82),
    23: ("IQ4_XS", 256, 136),
    24: ("I8", 1, 1),
    25: ("I16", 1, 2),
    26: ("I32", 1, 4),
    27: ("I64", 1, 8),
    28: ("F64", 1, 8),
    29: ("IQ1_M", 256, 56),
    30: ("BF16", 1, 2),
    34: ("TQ1_0", 256, 54),
    35: ("TQ2_0", 256, 66),
    39: ("MXFP4", 32, 17),
    40: ("NVFP4", 64, 36),
    41: ("Q1_0", 128, 18),
}
#: Arrays longer than this are walked but not kept (a vocabulary: its length is kept).
KEEP_ARRAY = 4096
#: Largest F32 tensor read: 2^24 values (64 MiB).
MAX_F32_VALUES = 1 << 24
_MAX_DIMS = 4


@dataclass(frozen=True)
class GgufTensor:
    """A tensor's info: name, shape in ggml order (``ne[0]`` first), type, absolute offset."""

    name: str
    shape: tuple[int, ...]
    type_code: int
    offset: int

    @property
    def type_name(self) -> str:
        """The ggml type's name (``F32``, ``Q4_K``, …) or ``type <code>`` if unknown."""
        return (
            GGML_TYPES[self.type_code][0]
            if self.type_code in GGML_TYPES
            else (f"type {self.type_code}")
        )

    @property
    def nbytes(self) -> int | None:
        """Bytes of its data, or None for a type pecli does not know."""
        if self.type_code not in GGML_TYPES:
            return None
        _, block, size = GGML_TYPES[self.type_code]
        return math.prod(self.shape) // block * size


@dataclass(frozen=True)
class GgufFile:
    """A GGUF file's header: version, metadata (key → value) and tensor infos by name.

    Arrays longer than :data:`KEEP_ARRAY` are kept as ``("array", length)``.
    """

    path: str
    version: int
    metadata: dict[str, Any]
    tensors: dict[str, GgufTensor]
    order: str

    @property
    def arch(self) -> str | None:
        """``general.architecture`` (the prefix of the model's keys), if given."""
        value = self.metadata.get("general.architecture")
        return value if isinstance(value, str) else None


def is_gguf(path: str) -> bool:
    """Whether ``path`` is a regular file that starts with the GGUF magic (or ends .gguf)."""
    if path.lower().endswith(".gguf"):
        return True
    if path == "-" or not os.path.isfile(path):
        return False
    with open(path, "rb") as handle:
        return handle.read(4) == MAGIC


def read_gguf(path: str, parameter: str = "gguf") -> GgufFile:
    """Read a GGUF file's header: metadata and tensor infos (no tensor data).

    Raises
    ------
    ParameterError
        ``parameter``, in one line, for a missing file, a wrong magic, an unknown version, a
        count or length the file cannot hold, a truncated file (a tensor ending past its
        end), duplicate keys or tensor names, more than 4 dimensions, a bad alignment.

    """
    try:  # O_NONBLOCK: a FIFO opens at once (and is refused) instead of waiting for a writer
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise ParameterError(parameter, f"cannot be read ({error.strerror})", path) from None
    note_input(path)  # no output of the command may replace it (pecli.io.paths)
    try:
        status = os.fstat(fd)
        if problem := offsets_problem(path, "GGUF", status.st_mode):  # a folder, a pipe
            raise ParameterError(parameter, problem, path)
        return _parse(_Cursor(fd, status.st_size, path, parameter))
    finally:
        os.close(fd)


def _parse(cursor: _Cursor) -> GgufFile:
    if cursor.take(4) != MAGIC:
        raise cursor.fail("it does not start with the magic 'GGUF'")
    raw = cursor.take(4)
    version = struct.unpack("<I", raw)[0]
    if version & 0xFFFF == 0:  # written on a big-endian machine
        cursor.order, version = ">", struct.unpack(">I", raw)[0]
    if version not in (2, 3):
        raise cursor.fail(f"version {version} (pecli reads versions 2 and 3)")
    n_tensors = int(cursor.unpack("Q"))
    n_kv = cursor.count("key/value count", 13)
    if n_tensors * 24 > cursor.left():
        raise cursor.fail(
            f"tensor count {n_tensors} cannot fit the {cursor.left()} bytes left", CUT
        )
    metadata: dict[str, Any] = {}
    for _ in range(n_kv):
        key = cursor.string("a key", strict=True)
        if key in metadata:
            raise cursor.fail(f"key {key!r} appears twice")
        metadata[key] = _value(cursor, int(cursor.unpack("I")), depth=0)
    if not str(arch := metadata.get("general.architecture", "")).isprintable():
        raise cursor.fail(f"general.architecture {arch!r} is not a printable name")
    infos = [_tensor_info(cursor) for _ in range(n_tensors)]
    start = cursor.pos + (-cursor.pos) % _alignment(cursor, metadata)
    return GgufFile(cursor.path, version, metadata, _tensors(cursor, infos, start), cursor.order)


def _value(cursor: _Cursor, kind: int, depth: int) -> Any:
    if kind in _SCALARS:
        return cursor.unpack(_SCALARS[kind])
    if kind == _STRING:
        return cursor.string("a string")
    if kind != _ARRAY or depth > 0:
        raise cursor.fail(f"value type {kind} is unknown" if kind != _ARRAY else "nested arrays")
    item = int(cursor.unpack("I"))
    least = struct.calcsize(_SCALARS[item]) if item in _SCALARS else 8
    n = cursor.count("array length", least)
    if item in _SCALARS:
        raw = cursor.take(n * least)
        if n > KEEP_ARRAY:
            return ("array", n)
        return list(struct.unpack(f"{cursor.order}{n}{_SCALARS[item]}", raw))
    if item == _STRING and n > KEEP_ARRAY:  # a vocabulary: walked, not kept
        cursor.skip_strings(n)
        return ("array", n)
    values = [_value(cursor, item, depth + 1) for _ in range(n)]
    return ("array", n) if n > KEEP_ARRAY else values


def _tensor_info(cursor: _Cursor) -> tuple[str, tuple[int, ...], int, int]:
    name = cursor.string("a tensor name", strict=True)
    n_dims = int(cursor.unpack("I"))
    if n_dims > _MAX_DIMS:
        raise cursor.fail(f"tensor {name!r} has {n_dims} dimensions (ggml allows 4)")
    shape = tuple(int(cursor.unpack("Q")) for _ in range(n_dims))
    return name, shape, int(cursor.unpack("I")), int(cursor.unpack("Q"))


def _alignment(cursor: _Cursor, metadata: dict[str, Any]) -> int:
    value = metadata.get("general.alignment", 32)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1 or value & (value - 1):
        raise cursor.fail(f"general.alignment {value!r} is not a power of two")
    return value


def _tensors(
    cursor: _Cursor, infos: list[tuple[str, tuple[int, ...], int, int]], start: int
) -> dict[str, GgufTensor]:
    tensors: dict[str, GgufTensor] = {}
    for name, shape, code, offset in infos:
        if name in tensors:
            raise cursor.fail(f"tensor {name!r} appears twice")
        tensor = GgufTensor(name, shape, code, start + offset)
        end = tensor.offset + (tensor.nbytes or 0)
        if end > cursor.size:
            raise ParameterError(
                cursor.parameter,
                f"is a truncated GGUF file: tensor {name} "
                f"ends at byte {end}, the file at {cursor.size}",
                cursor.path,
            )
        tensors[name] = tensor
    return tensors


def read_f32(gguf: GgufFile, name: str, parameter: str = "gguf") -> np.ndarray:
    """The F32 tensor ``name`` of ``gguf``, read with one ``pread``, shape ``ne`` reversed.

    Raises
    ------
    ParameterError
        If the file has no such tensor, it is not F32 (quantised data is never decoded), it
        holds more than :data:`MAX_F32_VALUES` values, or the file changed since its header
        was read.

    """
    tensor = gguf.tensors.get(name)
    if tensor is None:
        raise ParameterError(parameter, f"has no tensor {name}", gguf.path)
    if tensor.type_code != 0:
        from ..core.ports.gguf_check import f32_refusal  # only here: it imports core.rope

        raise ParameterError(parameter, f32_refusal(name, tensor.type_name), gguf.path)
    count = math.prod(tensor.shape)
    if count > MAX_F32_VALUES:
        raise ParameterError(
            parameter,
            f"tensor {name} has {count} values (at most {MAX_F32_VALUES} are read)",
            gguf.path,
        )
    with open(gguf.path, "rb") as handle:
        data = os.pread(handle.fileno(), 4 * count, tensor.offset)
    if len(data) != 4 * count:
        raise ParameterError(parameter, "changed while it was read: it ends early", gguf.path)
    values = np.frombuffer(data, dtype=np.dtype(gguf.order + "f4")).astype(np.float32)
    return values.reshape(tuple(reversed(tensor.shape)))


def read_rope_tensors(
    gguf: GgufFile, names: tuple[str, ...], parameter: str = "gguf"
) -> dict[str, np.ndarray]:
    """Those of the frequency tensors ``names`` the file holds (each must be F32)."""
    return {name: read_f32(gguf, name, parameter) for name in names if name in gguf.tensors}
