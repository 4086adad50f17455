"""``.npz`` archives read member by member from their headers: never unpickled, never mapped.

Each ``.npy`` member's header (shape, order, dtype) is read when the archive is opened. A
member stored uncompressed is read straight from the archive with bounded reads (only the
rows asked for, where they are contiguous), a compressed one through :mod:`zipfile`. No
memory map: a file cut short while it is read is an error, not SIGBUS. A member zipfile
cannot open (encrypted, an unknown compression, corrupt) is a usage error naming the file.
No maths here.
"""

from __future__ import annotations

import contextlib
import math
import os
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.errors import ParameterError
from ..paths import note_input
from .bounded import read_into
from .npy import header_fields

__all__ = ["Member", "NpzFile"]


@dataclass(frozen=True)
class Member:
    """A member's header, and where a stored member's data starts (None: compressed)."""

    name: str
    shape: tuple[int, ...]
    fortran: bool
    dtype: np.dtype
    offset: int | None
    size: int


class NpzFile:
    """An open archive: ``members`` by tensor name (``pe`` for ``pe.npy``), and ``read``."""

    def __init__(self, path: str, *, parameter: str) -> None:
        self.path, self.parameter = path, parameter
        note_input(path)
        try:
            self.archive = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError) as error:
            rule = f"must be a readable .npz archive ({error})"
            raise ParameterError(parameter, rule, path) from None
        self.fd = os.open(path, os.O_RDONLY)
        try:
            self.members = {
                info.filename[: -len(".npy")]: self._member(info)
                for info in self.archive.infolist()
                if info.filename.endswith(".npy")
            }
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Close the archive (idempotent)."""
        self.archive.close()
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    @contextlib.contextmanager
    def _open(self, info: zipfile.ZipInfo) -> Iterator[Any]:
        import zlib

        try:
            with self.archive.open(info) as member:
                yield member
        except (RuntimeError, NotImplementedError, zipfile.BadZipFile, zlib.error) as error:
            rule = f"has a member {info.filename} pecli cannot read ({error})"
            raise ParameterError(self.parameter, rule, self.path) from None

    def _member(self, info: zipfile.ZipInfo) -> Member:
        with self._open(info) as member:
            try:
                version = np.lib.format.read_magic(member)
                shape, fortran, dtype = header_fields(member, version)
            except (ValueError, EOFError) as error:  # a member that is no .npy
                rule = f"has a broken member {info.filename} ({error})"
                raise ParameterError(self.parameter, rule, self.path) from None
            header = member.tell()
        offset = None
        if info.compress_type == zipfile.ZIP_STORED:  # data after the local file header
            local = os.pread(self.fd, 30, info.header_offset)
            skip = int.from_bytes(local[26:28], "little") + int.from_bytes(local[28:30], "little")
            offset = info.header_offset + 30 + skip + header
        size = info.file_size - header
        return Member(info.filename, tuple(shape), bool(fortran), dtype, offset, size)

    def read(self, key: str, rows: slice | None = None, axis: int = 0) -> np.ndarray:
        """Member ``key`` whole, or entries ``rows`` of an axis with only 1s before it.

        Raises
        ------
        ParameterError
            For an object member (pickles are never read).
        ValueError
            If the member's data is shorter than its header declares.

        """
        m = self.members[key]
        if m.dtype.hasobject:
            rule = f"has an object member {key} (pickles are never read)"
            raise ParameterError(self.parameter, rule, self.path)
        if m.offset is None:
            with self._open(self.archive.getinfo(m.name)) as member:
                whole = np.lib.format.read_array(member, allow_pickle=False)
            return whole if rows is None else whole[(slice(None),) * axis + (rows,)]
        if math.prod(m.shape) * m.dtype.itemsize > m.size:
            raise ValueError(f"{m.name} holds {m.size} bytes of data, fewer than its shape")
        return self._stored(m, rows, axis)

    def _stored(self, m: Member, rows: slice | None, axis: int) -> np.ndarray:
        shape, offset = m.shape, m.offset or 0
        if rows is not None and not m.fortran and math.prod(shape[:axis]) == 1:
            first, stop, _ = rows.indices(shape[axis])
            offset += first * math.prod(shape[axis + 1 :]) * m.dtype.itemsize
            shape = (*shape[:axis], max(stop - first, 0), *shape[axis + 1 :])
            rows = None
        array = np.empty(shape, dtype=m.dtype, order="F" if m.fortran else "C")
        if not read_into(self.fd, array, offset):
            raise ParameterError(self.parameter, "changed while it was read", self.path)
        return array if rows is None else array[(slice(None),) * axis + (rows,)]
