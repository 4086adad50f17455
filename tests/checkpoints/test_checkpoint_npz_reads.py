""".npz members read from their headers: only the rows asked for, where they are contiguous.

:class:`pecli.io.reading.npz_file.NpzFile` reads a stored (uncompressed) member straight from
the archive: a run of entries of an axis with only 1s before it, in C order, is one block of
the file, and only that block is read; anything else is read whole and sliced. The oracle is
NumPy's own indexing of the array that was saved; a spy on the bounded reader sees how many
entries were read. Pickles are never read, even from a member rewritten after opening.
"""

from __future__ import annotations

import io
import zipfile
import zlib

import numpy as np
import pytest

from pecli.io.reading import npz_file


@pytest.fixture
def reads(monkeypatch):
    """The shapes of the arrays the bounded reader fills, in order."""
    shapes, real = [], npz_file.read_into

    def spy(fd, array, offset):
        shapes.append(array.shape)
        return real(fd, array, offset)

    monkeypatch.setattr(npz_file, "read_into", spy)
    return shapes


def _archive(tmp_path, save=np.savez, **arrays):
    path = tmp_path / "a.npz"
    save(path, **arrays)
    return npz_file.NpzFile(str(path), parameter="FILE")


def test_rows_after_leading_1s_are_read_alone(tmp_path, reads):
    table = np.arange(18, dtype=np.float32).reshape(1, 6, 3)
    archive = _archive(tmp_path, pe=table)
    try:
        got = archive.read("pe", slice(2, 4), axis=1)
        assert reads == [(1, 2, 3)]
        assert got.tolist() == table[:, 2:4].tolist()
        assert archive.read("pe", slice(5, 9), axis=0).shape == (0, 6, 3)
        assert archive.read("pe").tolist() == table.tolist() and reads[-1] == (1, 6, 3)
    finally:
        archive.close()


@pytest.mark.parametrize(
    ("table", "axis"),
    [
        (np.arange(36, dtype=np.float32).reshape(2, 6, 3), 1),  # 2 blocks of rows, not one
        (np.asfortranarray(np.arange(18, dtype=np.float32).reshape(6, 3)), 0),  # rows strided
    ],
)
def test_rows_that_are_not_one_block_are_read_whole_then_sliced(tmp_path, reads, table, axis):
    archive = _archive(tmp_path, pe=table)
    try:
        got = archive.read("pe", slice(2, 4), axis=axis)
        assert reads == [table.shape]
        assert got.tolist() == table[(slice(None),) * axis + (slice(2, 4),)].tolist()
    finally:
        archive.close()


def test_a_compressed_member_is_read_through_zipfile(tmp_path, reads):
    table = np.arange(12, dtype=np.int16).reshape(4, 3)
    archive = _archive(tmp_path, np.savez_compressed, pe=table)
    try:
        assert archive.members["pe"].offset is None
        assert archive.read("pe", slice(1, 3)).tolist() == table[1:3].tolist()
        assert reads == []
    finally:
        archive.close()


def _with_crc(data: bytes, crc: int) -> bytes:
    """``data`` and 4 more bytes whose CRC-32 is ``crc`` (the CRC register run backwards)."""
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0xEDB88320 if c & 1 else c >> 1
        table.append(c)
    top = {value >> 24: i for i, value in enumerate(table)}
    state, picks = crc ^ 0xFFFFFFFF, []
    for _ in range(4):
        picks.append(top[state >> 24])
        state = ((state ^ table[picks[-1]]) << 8) & 0xFFFFFFFF
    state, tail = zlib.crc32(data) ^ 0xFFFFFFFF, bytearray()
    for i in reversed(picks):
        tail.append((state ^ i) & 0xFF)
        state = (state >> 8) ^ table[i]
    return data + bytes(tail)


class _Opener:
    """Unpickled, it creates the file ``marker``: proof that a pickle ran."""

    marker = ""

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_member_turned_into_a_pickle_after_opening_is_never_unpickled(tmp_path):
    """The archive is rewritten in place after its headers were read (float64 then): the
    compressed member is now an object array with the old CRC-32, so zipfile passes it;
    NumPy's reader must still refuse the pickle (allow_pickle=False), and nothing runs."""
    path, _Opener.marker = tmp_path / "a.npz", str(tmp_path / "ran")
    np.savez_compressed(path, pe=np.random.default_rng(0).normal(size=8192))  # > any buffer
    archive = npz_file.NpzFile(str(path), parameter="FILE")
    try:
        crc = archive.archive.getinfo("pe.npy").CRC
        npy = io.BytesIO()
        np.save(npy, np.array([_Opener()], dtype=object), allow_pickle=True)
        data = _with_crc(npy.getvalue(), crc)
        assert zlib.crc32(data) == crc
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as rewritten:  # same inode
            rewritten.writestr("pe.npy", data)
        with pytest.raises(ValueError, match="allow_pickle=False"):
            archive.read("pe")
    finally:
        archive.close()
    assert not (tmp_path / "ran").exists()


def test_closing_twice_closes_the_descriptor_once(tmp_path, monkeypatch):
    """close() is idempotent: the second call closes no descriptor (not stdout's fd 1)."""
    import os

    archive = _archive(tmp_path, x=np.arange(3.0))
    closed, real = [], os.close

    def spy(fd):
        closed.append(fd)
        if fd > 2:  # a mutant's second close must not close the test's own stdout
            real(fd)

    monkeypatch.setattr(npz_file.os, "close", spy)
    archive.close()
    archive.close()
    assert len(closed) == 1
