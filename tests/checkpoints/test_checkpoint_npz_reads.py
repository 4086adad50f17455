""".npz members read from their headers: only the rows asked for, where they are contiguous.

:class:`pecli.io.reading.npz_file.NpzFile` reads a stored (uncompressed) member straight from
the archive: a run of entries of an axis with only 1s before it, in C order, is one block of
the file, and only that block is read; anything else is read whole and sliced. The oracle is
NumPy's own indexing of the array that was saved; a spy on the bounded reader sees how many
entries were read.
"""

from __future__ import annotations

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
