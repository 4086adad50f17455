"""Checkpoints: ``.safetensors`` files and ``.npz`` archives, read one tensor at a time.

A checkpoint is opened by its header alone: the names, shapes and dtypes of its tensors (and,
for ``.safetensors``, its string metadata) are known before any tensor is read, so a caller
can skip tensors by their header and load only the ones it wants. ``.safetensors`` files are
read by :mod:`pecli.io.reading.safetensors_file` (bounded reads, no memory map: a file cut
short while read is an error, not SIGBUS), bfloat16 arriving as ``ml_dtypes.bfloat16``; rows
of a tensor can be read without the rest (:meth:`Checkpoint.part`). ``.npz`` members are
read from the archive's own headers (:mod:`pecli.io.reading.npz_file`); a member stored
uncompressed is read by bounded reads too, a compressed one whole. Nothing is unpickled.
Writing ``.safetensors`` files is :mod:`pecli.io.tensors`' (one writer for every command).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.errors import ParameterError
from .paths import note_input, offsets_problem

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
            array: np.ndarray = self.handle.read(key)
            return array
        if self._last is None or self._last[0] != key:
            self._last = None  # the previous member is let go before the next is read
            self._last = (key, self.handle.read(key))
        return self._last[1]

    def part(self, key: str, index: tuple[slice, ...]) -> np.ndarray:
        """``tensor[index]``, without reading the rest where the format allows.

        A ``.safetensors`` file or an uncompressed ``.npz`` member reads only the entries of
        the first sliced axis; a compressed member is read whole first. ``index`` holds at
        most one slice per axis (NumPy's IndexError otherwise).
        """
        shape = self.info(key).shape
        if self.kind == "npz" and self.handle.members[key].offset is None:
            return np.array(self.load(key)[index])
        axis = 0
        while axis < len(index) - 1 and shape[axis] == 1 and index[axis] == slice(None):
            axis += 1
        if index[axis].step not in (None, 1):  # axis < len(index) <= len(shape)
            return np.array(self.load(key)[index])
        rows = self.handle.read(key, index[axis], axis)
        return np.array(rows[(*index[:axis], slice(None), *index[axis + 1 :])])


#: A zip archive's first bytes: a member's local header, or (no member) the end record.
ZIP_HEADS = (b"PK\x03\x04", b"PK\x05\x06")


def is_checkpoint(path: str) -> bool:
    """Whether ``path`` names a checkpoint: its suffix, else a zip or safetensors header."""
    if path.lower().endswith(CHECKPOINT_SUFFIXES):
        return True
    return path != "-" and os.path.isfile(path) and _checkpoint_head(path)


def _checkpoint_head(path: str) -> bool:
    """A zip archive's first bytes, or 8 bytes of header length and the JSON's ``{``."""
    with open(path, "rb") as handle:
        head = handle.read(9)
    return head.startswith(ZIP_HEADS) or head[8:] == b"{"


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
    if problem := offsets_problem(path, "checkpoint (.safetensors or .npz file)"):
        raise ParameterError(parameter, problem, path)
    note_input(path)
    with open(path, "rb") as handle:
        zipped = handle.read(4) in ZIP_HEADS
    opener = _open_npz if zipped else _open_safetensors
    with opener(path, parameter) as checkpoint:
        if not checkpoint.tensors:  # nothing to identify, compare or read: say so, once
            kind = "an .npz archive" if zipped else "a .safetensors file"
            raise ParameterError(parameter, f"is {kind} that holds no tensors", path)
        yield checkpoint


@contextlib.contextmanager
def _open_safetensors(path: str, parameter: str) -> Iterator[Checkpoint]:
    from .reading.safetensors_file import SafetensorsFile

    what = "a .safetensors file or an .npz archive"
    with SafetensorsFile(path, parameter=parameter, what=what) as handle:
        tensors = [
            TensorInfo(key, e.shape, _DTYPE_NAMES.get(e.code, e.code))
            for key, e in handle.entries.items()
        ]
        yield Checkpoint(path, "safetensors", tensors, dict(handle.metadata), handle)


@contextlib.contextmanager
def _open_npz(path: str, parameter: str) -> Iterator[Checkpoint]:
    from .reading.npz_file import NpzFile

    handle = NpzFile(path, parameter=parameter)
    try:
        tensors = [
            TensorInfo(key, m.shape, "object" if m.dtype.hasobject else m.dtype.name)
            for key, m in handle.members.items()
        ]
        yield Checkpoint(path, "npz", tensors, {}, handle)
    finally:
        handle.close()
