"""Checkpoints: ``.safetensors`` files and ``.npz`` archives, read one tensor at a time.

A checkpoint is opened by its header alone: the names, shapes and dtypes of its tensors (and,
for ``.safetensors``, its string metadata) are known before any tensor is read, so a caller
can skip tensors by their header and load only the ones it wants. ``.safetensors`` files are
read through the ``safetensors`` library's NumPy API (``safe_open(..., framework="numpy")``),
bfloat16 arriving as ``ml_dtypes.bfloat16``; rows of a tensor can be read without the rest
(:meth:`Checkpoint.rows`). ``.npz`` members are read from the archive's own headers; a member
stored uncompressed is memory-mapped, a compressed one read whole. Nothing is unpickled.
Writing ``.safetensors`` files is :mod:`pecli.io.tensors`' (one writer for every command).
"""

from __future__ import annotations

import contextlib
import os
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..core.errors import ParameterError

__all__ = [
    "CHECKPOINT_SUFFIXES",
    "Checkpoint",
    "TensorInfo",
    "is_checkpoint",
    "open_checkpoint",
]

#: File names read as checkpoints by ``identify`` (the content decides for other names).
CHECKPOINT_SUFFIXES = (".safetensors", ".npz")
#: safetensors' dtype codes as NumPy names (others, such as float8 ``F8_E4M3``, keep the code).
_DTYPE_NAMES = {
    "F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16", "I64": "int64",
    "I32": "int32", "I16": "int16", "I8": "int8", "U64": "uint64", "U32": "uint32",
    "U16": "uint16", "U8": "uint8", "BOOL": "bool",
}  # fmt: skip
#: The ``.npy`` header versions read (3.0 only differs for non-ASCII field names).
_HEADER_READERS = {
    (1, 0): np.lib.format.read_array_header_1_0,
    (2, 0): np.lib.format.read_array_header_2_0,
}
#: Keys named in a missing-key message before "… and N more".
SHOWN_KEYS = 8


@dataclass(frozen=True)
class TensorInfo:
    """A tensor's header: its name, shape and dtype (a NumPy name for floats)."""

    key: str
    shape: tuple[int, ...]
    dtype: str


@dataclass
class Checkpoint:
    """An open checkpoint: its tensors' headers, its metadata, and a loader for one tensor."""

    path: str
    kind: str
    tensors: list[TensorInfo]
    metadata: dict[str, str] = field(default_factory=dict)
    handle: Any = None
    _last: tuple[str, np.ndarray] | None = None  # the last .npz member read, for its parts

    def info(self, key: str, parameter: str = "key") -> TensorInfo:
        """The header of tensor ``key``; a missing key names (some of) those that exist."""
        for tensor in self.tensors:
            if tensor.key == key:
                return tensor
        names = [t.key for t in self.tensors]
        shown = ", ".join(names[:SHOWN_KEYS]) + (
            f", … and {len(names) - SHOWN_KEYS} more" if len(names) > SHOWN_KEYS else ""
        )
        rule = f"must name a tensor of {self.path} (it has: {shown or 'no tensors'})"
        raise ParameterError(parameter, rule, key)

    def load(self, key: str) -> np.ndarray:
        """Tensor ``key``, whole, in its stored dtype (the only copy of it in memory)."""
        self.info(key)
        if self.kind == "safetensors":
            array: np.ndarray = self.handle.get_tensor(key)
            return array
        if self._last is None or self._last[0] != key:
            self._last = None  # the previous member is let go before the next is read
            self._last = (key, _npz_member(self.handle, key))
        return self._last[1]

    def part(self, key: str, index: tuple[slice, ...]) -> np.ndarray:
        """``tensor[index]``, without reading the rest where the format allows.

        A ``.safetensors`` file reads only those entries, an uncompressed ``.npz`` member only
        the pages they are on; a compressed member is read whole first.
        """
        self.info(key)
        if self.kind == "safetensors":
            array: np.ndarray = self.handle.get_slice(key)[index]
            return array
        return np.array(self.load(key)[index])


def is_checkpoint(path: str) -> bool:
    """Whether ``path`` names a checkpoint: its suffix, else a zip or safetensors header."""
    if path.lower().endswith(CHECKPOINT_SUFFIXES):
        return True
    if path == "-" or not os.path.isfile(path):
        return False
    with open(path, "rb") as handle:
        head = handle.read(9)
    return head.startswith(b"PK\x03\x04") or (len(head) == 9 and head[8:9] == b"{")


@contextlib.contextmanager
def open_checkpoint(path: str, *, parameter: str = "file") -> Iterator[Checkpoint]:
    """Open a ``.safetensors`` file or ``.npz`` archive by its headers; no tensor is read.

    Parameters
    ----------
    path : str
        The file; ``.npz`` (or any zip archive) is read as an archive of ``.npy`` members,
        anything else as ``.safetensors``.
    parameter : str, keyword-only
        The option named in errors.

    Yields
    ------
    Checkpoint
        Headers in the file's order (``.safetensors``: sorted by name, as stored).

    Raises
    ------
    ParameterError
        If the file is missing, unreadable or not of its kind (the reason in one line).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> np.savez(folder / "m.npz", pe=np.zeros((4, 8), np.float32))
    >>> with open_checkpoint(str(folder / "m.npz")) as checkpoint:
    ...     checkpoint.tensors
    [TensorInfo(key='pe', shape=(4, 8), dtype='float32')]
    >>> import shutil; shutil.rmtree(folder)

    """
    if not os.path.isfile(path):
        raise ParameterError(parameter, "must be an existing file", path)
    with open(path, "rb") as handle:
        zipped = handle.read(4) == b"PK\x03\x04"
    opener = _open_npz if zipped else _open_safetensors
    with opener(path, parameter) as checkpoint:
        yield checkpoint


@contextlib.contextmanager
def _open_safetensors(path: str, parameter: str) -> Iterator[Checkpoint]:
    from safetensors import SafetensorError, safe_open

    try:
        handle: Any = safe_open(path, framework="numpy")  # its stubs leave methods untyped
    except (SafetensorError, OSError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        rule = f"must be a .safetensors file or an .npz archive ({reason})"
        raise ParameterError(parameter, rule, path) from None
    with handle:
        tensors, keys = [], handle.keys()
        for key in keys:
            view = handle.get_slice(key)
            code = view.get_dtype()
            tensors.append(TensorInfo(key, tuple(view.get_shape()), _DTYPE_NAMES.get(code, code)))
        if any(info.dtype == "bfloat16" for info in tensors):
            import ml_dtypes  # noqa: F401 - registers bfloat16 with NumPy for get_tensor; 0.5 s
        yield Checkpoint(path, "safetensors", tensors, dict(handle.metadata() or {}), handle)


@contextlib.contextmanager
def _open_npz(path: str, parameter: str) -> Iterator[Checkpoint]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as error:
        raise ParameterError(
            parameter, f"must be a readable .npz archive ({error})", path
        ) from None
    with archive:
        tensors = []
        for name in archive.namelist():
            if name.endswith(".npy"):
                with archive.open(name) as member:
                    shape, dtype = _npy_header(member, name, path, parameter)
                tensors.append(TensorInfo(name[: -len(".npy")], shape, dtype))
        yield Checkpoint(path, "npz", tensors, {}, (path, archive))


def _npy_header(member: Any, name: str, path: str, parameter: str) -> tuple[tuple[int, ...], str]:
    """Shape and dtype name of an ``.npy`` member, from its header alone."""
    fmt = np.lib.format
    try:
        version = fmt.read_magic(member)
        shape, _, dtype = _HEADER_READERS[version](member)
    except (ValueError, KeyError) as error:  # a member that is no .npy
        raise ParameterError(parameter, f"has a broken member {name} ({error})", path) from None
    return tuple(shape), dtype.name if not dtype.hasobject else "object"


def _npz_member(handle: tuple[str, zipfile.ZipFile], key: str) -> np.ndarray:
    """Member ``key`` of an archive: memory-mapped when stored uncompressed, else read whole."""
    path, archive = handle
    info = archive.getinfo(key + ".npy")
    with archive.open(info) as member:
        shape, fortran, dtype = _HEADER_READERS[np.lib.format.read_magic(member)](member)
        if dtype.hasobject:
            raise ParameterError(
                "file", f"has an object member {key} (pickles are never read)", path
            )
        header = member.tell() if info.compress_type == zipfile.ZIP_STORED else None
    if header is not None:
        with open(path, "rb") as raw:  # the member's data sits after its local file header
            raw.seek(info.header_offset + 26)
            skip = int.from_bytes(raw.read(2), "little") + int.from_bytes(raw.read(2), "little")
        offset = info.header_offset + 30 + skip + header
        order: Literal["C", "F"] = "F" if fortran else "C"
        return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape, order=order)
    with archive.open(info) as member:
        return np.lib.format.read_array(member, allow_pickle=False)
