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
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...core.errors import ParameterError
from ...core.ports.gguf_format import FREQUENCY_TENSORS, TENSOR_TYPES, value_type
from ..paths import note_input, offsets_problem

__all__ = [
    "GgufFile",
    "GgufTensor",
    "f32_refusal",
    "is_gguf",
    "read_f32",
    "read_gguf",
    "read_rope_tensors",
]

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
#: Arrays longer than this are walked but not kept (a vocabulary: its length is kept).
KEEP_ARRAY = 4096
#: Largest F32 tensor read: 2^24 values (64 MiB).
MAX_F32_VALUES = 1 << 24
_MAX_DIMS = 4


_WINDOW = 1 << 20
CUT = "a truncated GGUF file, or not a valid one"


class Cursor:
    """Bounded sequential reads of a file through ``os.pread`` in 1 MiB windows.

    Every read is checked against the bytes the file has left (a truncated file is named as
    such); a count is checked against what its items need at least before it is used; the
    file's bytes are never memory-mapped, so a file cut short while it is read is an error.
    Byte order ``order`` is ``<`` or ``>`` (struct codes).
    """

    def __init__(self, fd: int, size: int, path: str, parameter: str) -> None:
        self.fd, self.size, self.path, self.parameter = fd, size, path, parameter
        self.pos, self._start, self._window = 0, 0, b""
        self.order = "<"

    def left(self) -> int:
        """Bytes of the file after the current position."""
        return self.size - self.pos

    def fail(self, what: str, kind: str = "not a valid GGUF file") -> ParameterError:
        """The one-line error naming the file: ``is <kind>: <what>``."""
        return ParameterError(self.parameter, f"is {kind}: {what}", self.path)

    def take(self, n: int) -> bytes:
        """The next ``n`` bytes; a file too short for them is named truncated."""
        if n > self.left():
            raise ParameterError(
                self.parameter,
                f"is a truncated GGUF file: it ends at byte "
                f"{self.size}, its header needs {self.pos + n}",
                self.path,
            )
        end = self._start + len(self._window)
        if not (self._start <= self.pos and self.pos + n <= end):
            self._start, self._window = self.pos, os.pread(self.fd, max(n, _WINDOW), self.pos)
            if len(self._window) < n:
                raise ParameterError(self.parameter, "changed while it was read", self.path)
        at = self.pos - self._start
        self.pos += n
        return self._window[at : at + n]

    def unpack(self, code: str) -> Any:
        """The next scalar of struct ``code`` in the file's byte order."""
        return struct.unpack(self.order + code, self.take(struct.calcsize(code)))[0]

    def count(self, what: str, least_bytes: int) -> int:
        """A uint64 count of items of at least ``least_bytes`` each that must fit the file."""
        n = int(self.unpack("Q"))
        if n * least_bytes > self.left():
            raise self.fail(f"{what} {n} cannot fit the {self.left()} bytes left", CUT)
        return n

    def skip_strings(self, n: int) -> None:
        """Step over ``n`` strings (uint64 length, then bytes) without decoding them.

        A vocabulary holds 10^5 of them: each one inside the window read is stepped over in a
        tight loop (it is in the file, so ``take``'s checks hold); any other goes through
        ``take``, which reads the next window or names the file truncated.
        """
        length = struct.Struct(self.order + "Q").unpack_from
        window, start = self._window, self._start
        at, size = self.pos - start, len(window)
        for _ in range(n):
            if at + 8 <= size and (end := at + 8 + length(window, at)[0]) <= size:
                at = end
                continue
            self.pos = start + at
            self.take(self.count("a string of length", 1))
            window, start = self._window, self._start
            at, size = self.pos - start, len(window)
        self.pos = start + at

    def string(self, what: str, strict: bool = False) -> str:
        """A uint64 length, then that many bytes of UTF-8 (``strict``: refuse bad bytes)."""
        raw = self.take(self.count(f"{what} of length", 1))
        try:
            return raw.decode("utf-8", errors="strict" if strict else "replace")
        except UnicodeDecodeError:
            raise self.fail(f"{what} is not UTF-8") from None


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
            TENSOR_TYPES[self.type_code][0]
            if self.type_code in TENSOR_TYPES
            else (f"type {self.type_code}")
        )

    @property
    def nbytes(self) -> int | None:
        """Bytes of its data, or None for a type pecli does not know."""
        if self.type_code not in TENSOR_TYPES:
            return None
        _, block, size = TENSOR_TYPES[self.type_code]
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
    types: dict[str, str] = field(default_factory=dict)  # key → GGUF type (ARRAY[INT32] …)

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
        return _parse(Cursor(fd, status.st_size, path, parameter))
    finally:
        os.close(fd)


def _parse(cursor: Cursor) -> GgufFile:
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
    types: dict[str, str] = {}
    for _ in range(n_kv):
        key = cursor.string("a key", strict=True)
        if key in metadata:
            raise cursor.fail(f"key {key!r} appears twice")
        kind, at = int(cursor.unpack("I")), cursor.pos
        item = int(cursor.unpack("I")) if kind == _ARRAY else None
        cursor.pos, types[key] = at, value_type(kind, item)  # the array's item type: peeked
        metadata[key] = _value(cursor, kind, depth=0)
    if not str(arch := metadata.get("general.architecture", "")).isprintable():
        raise cursor.fail(f"general.architecture {arch!r} is not a printable name")
    infos = [_tensor_info(cursor) for _ in range(n_tensors)]
    start = cursor.pos + (-cursor.pos) % _alignment(cursor, metadata)
    tensors = _tensors(cursor, infos, start)
    return GgufFile(cursor.path, version, metadata, tensors, cursor.order, types)


def _value(cursor: Cursor, kind: int, depth: int) -> Any:
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


def _tensor_info(cursor: Cursor) -> tuple[str, tuple[int, ...], int, int]:
    name = cursor.string("a tensor name", strict=True)
    n_dims = int(cursor.unpack("I"))
    if n_dims > _MAX_DIMS:
        raise cursor.fail(f"tensor {name!r} has {n_dims} dimensions (ggml allows 4)")
    shape = tuple(int(cursor.unpack("Q")) for _ in range(n_dims))
    return name, shape, int(cursor.unpack("I")), int(cursor.unpack("Q"))


def _alignment(cursor: Cursor, metadata: dict[str, Any]) -> int:
    value = metadata.get("general.alignment", 32)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1 or value & (value - 1):
        raise cursor.fail(f"general.alignment {value!r} is not a power of two")
    return value


def _tensors(
    cursor: Cursor, infos: list[tuple[str, tuple[int, ...], int, int]], start: int
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


def f32_refusal(name: str, type_name: str) -> str:
    """Why a tensor that is not F32 is not read; for a frequency tensor, why none ever is.

    ``convert_hf_to_gguf.py`` (``ModelBase.prepare_tensors``) stores every 1-D tensor as F32
    whatever its output type (``outtype``), and ggml's ``ggml_rope_impl`` asserts
    ``c->type == GGML_TYPE_F32`` for the frequency factors, so an F16 ``rope_freqs`` is no file
    llama.cpp runs.

    >>> f32_refusal("blk.0.attn_q.weight", "Q8_0")
    'tensor blk.0.attn_q.weight is Q8_0: pecli reads only F32 tensors'
    """
    rule = f"tensor {name} is {type_name}: pecli reads only F32 tensors"
    if name in FREQUENCY_TENSORS:
        rule += (
            " (llama.cpp's converter writes every 1-D tensor as F32 and ggml's rope "
            "asserts F32 frequency factors: llama.cpp would abort on this file)"
        )
    return rule


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
    """Those of the frequency tensors ``names`` the file holds, as vectors ``(n,)``.

    Each must be F32 and one vector: ``ne = [n]`` with ``n >= 1`` (trailing sizes of 1
    allowed, as ggml reads them); llama.cpp's loader checks it against ``{n_rot/2}``.

    Raises
    ------
    ParameterError
        (as ``parameter``) a tensor :func:`read_f32` refuses, or one of another shape (0-D, 2-D,
        no values).

    """
    found = {}
    for name in (n for n in names if n in gguf.tensors):
        ne = gguf.tensors[name].shape
        if not ne or ne[0] < 1 or any(size != 1 for size in ne[1:]):
            shown = "[" + ", ".join(map(str, ne)) + "]"
            rule = (
                f"has a frequency tensor {name} of ne = {shown}: it must be one vector [n], n >= 1"
            )
            raise ParameterError(parameter, rule, gguf.path)
        found[name] = read_f32(gguf, name, parameter).reshape(-1)
    return found
