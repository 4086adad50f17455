"""The .npy reader (io/reading/npy.py) on files built byte by byte from the format's spec.

NumPy's format description (numpy.lib.format, "Format Version 1.0" and "2.0"): the magic
``\\x93NUMPY``, a major and minor version byte, the header length (2 bytes little-endian in
1.0, 4 in 2.0), an ASCII dict literal (``descr``, ``fortran_order``, ``shape``) padded with
spaces and ended by ``\\n``, then the data, C or Fortran order. The expected rows are read off
those bytes by hand, never by pecli or by ``np.load``.
"""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest

from pecli.core.errors import ParameterError
from pecli.io.reading import npy

MAGIC = b"\x93NUMPY"


def _npy(descr: str, shape: tuple[int, ...], data: bytes, *, fortran=False, major=1) -> bytes:
    """A .npy file by the spec: magic, version, header length, padded header, data."""
    header = f"{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape!r}, }}"
    prefix = len(MAGIC) + 2 + (2 if major == 1 else 4)
    header += " " * (-(prefix + len(header) + 1) % 64) + "\n"
    length = struct.pack("<H" if major == 1 else "<I", len(header))
    return MAGIC + bytes([major, 0]) + length + header.encode("latin1") + data


def _f8(*values: float) -> bytes:
    return struct.pack(f"<{len(values)}d", *values)


def _rows(matrix, rows):
    return [(first, block.tolist()) for first, block in matrix.read_blocks(rows)]


def _file(tmp_path, content: bytes) -> str:
    path = tmp_path / "t.npy"
    path.write_bytes(content)
    return str(path)


def _open_after_magic(path: str):
    handle = open(path, "rb")  # noqa: SIM115
    assert handle.read(6) == MAGIC
    return handle


@pytest.mark.parametrize("major", [1, 2])
def test_a_c_ordered_file_is_read_in_row_blocks(tmp_path, major):
    """Shape (3, 2), '<f8', C order: data 1 … 6 are rows [1, 2], [3, 4], [5, 6]; blocks of
    2 rows start at rows 0 and 2. Versions 1.0 and 2.0 differ only in the length field."""
    path = _file(tmp_path, _npy("<f8", (3, 2), _f8(1, 2, 3, 4, 5, 6), major=major))
    with _open_after_magic(path) as handle:
        matrix = npy.read_npy(handle, path, "x")
    assert matrix.shape == (3, 2)
    assert _rows(matrix, 2) == [(0, [[1.0, 2.0], [3.0, 4.0]]), (2, [[5.0, 6.0]])]


def test_a_fortran_ordered_file_runs_the_first_axis_fastest(tmp_path):
    """Shape (2, 2, 2), Fortran order, data 0 … 7: a[i, j, k] = i + 2j + 4k. Rows are the
    inner axes row-major: row 0 = a[0,0,0], a[0,0,1], a[0,1,0], a[0,1,1] = 0, 4, 2, 6."""
    data = _f8(*range(8))
    path = _file(tmp_path, _npy("<f8", (2, 2, 2), data, fortran=True))
    with _open_after_magic(path) as handle:
        matrix = npy.read_npy(handle, path, "x")
    assert _rows(matrix, 1) == [(0, [[0.0, 4.0, 2.0, 6.0]]), (1, [[1.0, 5.0, 3.0, 7.0]])]
    stream = io.BytesIO(_npy("<f8", (2, 2, 2), data, fortran=True)[6:])
    assert _rows(npy.read_npy(stream, None, "x"), 1) == [
        (0, [[0.0, 4.0, 2.0, 6.0]]),
        (1, [[1.0, 5.0, 3.0, 7.0]]),
    ]


def test_a_fortran_table_of_three_rows_in_blocks_of_two(tmp_path):
    """Shape (3, 2), Fortran order, data 1 … 6: column 0 is 1, 2, 3 and column 1 is 4, 5, 6,
    so the rows are [1, 4], [2, 5], [3, 6], whatever the block size."""
    path = _file(tmp_path, _npy("<f8", (3, 2), _f8(1, 2, 3, 4, 5, 6), fortran=True))
    with _open_after_magic(path) as handle:
        matrix = npy.read_npy(handle, path, "x")
    assert _rows(matrix, 2) == [(0, [[1.0, 4.0], [2.0, 5.0]]), (2, [[3.0, 6.0]])]


def test_big_endian_integers_are_read_as_their_values(tmp_path):
    """'>i4' stores 258 as 00 00 01 02 and −1 as ff ff ff ff."""
    data = bytes([0, 0, 1, 2, 255, 255, 255, 255])
    path = _file(tmp_path, _npy(">i4", (1, 2), data))
    with _open_after_magic(path) as handle:
        assert _rows(npy.read_npy(handle, path, "x"), 8) == [(0, [[258.0, -1.0]])]


@pytest.mark.parametrize(("cut", "refused"), [(0, False), (1, True)])
def test_a_file_shorter_than_its_shape_is_refused_before_its_rows(tmp_path, cut, refused):
    """(2, 2) '<f8' needs 32 data bytes: all of them is a table, one byte fewer is not."""
    content = _npy("<f8", (2, 2), _f8(1, 2, 3, 4))
    path = _file(tmp_path, content[: len(content) - cut])
    with _open_after_magic(path) as handle:
        if refused:
            with pytest.raises(
                ParameterError, match=r"truncated \.npy file: it ends before its header's shape"
            ):
                npy.read_npy(handle, path, "x")
        else:
            assert _rows(npy.read_npy(handle, path, "x"), 5) == [(0, [[1, 2], [3, 4]])]


def test_an_empty_shape_has_no_rows(tmp_path):
    """Shape (0, 4): no data bytes, no rows to read."""
    path = _file(tmp_path, _npy("<f8", (0, 4), b""))
    with _open_after_magic(path) as handle:
        matrix = npy.read_npy(handle, path, "x")
    assert matrix.shape == (0, 4) and _rows(matrix, 3) == []


def test_a_stream_is_read_block_by_block_and_a_short_one_refused():
    """stdin: (3, 2) '<f8' from a stream after its magic; without its last value it is a
    truncated stream, named by the bytes it had (8 of the block's 16)."""
    content = _npy("<f8", (3, 2), _f8(1, 2, 3, 4, 5, 6))[6:]
    assert _rows(npy.read_npy(io.BytesIO(content), None, "x"), 2) == [
        (0, [[1.0, 2.0], [3.0, 4.0]]),
        (2, [[5.0, 6.0]]),
    ]
    short = npy.read_npy(io.BytesIO(content[:-8]), None, "x")
    with pytest.raises(ParameterError, match=r"truncated \.npy stream") as caught:
        _rows(short, 2)
    assert caught.value.value == "8 bytes"


def test_a_version_other_than_1_and_2_is_named():
    """Version 3.1's header is not read: ValueError naming the version."""
    with pytest.raises(ValueError, match=r"format version 3\.1: only 1\.0 and 2\.0"):
        npy.header_fields(io.BytesIO(b""), (3, 1))


def test_a_negative_dimension_is_refused_in_the_header():
    """NumPy parses shape (2, -3); the header check refuses it."""
    content = _npy("<f8", (2, -3), b"")[8:]
    with pytest.raises(ValueError, match=r"shape \(2, -3\) has a negative dimension"):
        npy.header_fields(io.BytesIO(content), (1, 0))


def _load(tmp_path, content: bytes, **kwargs):
    return npy.load_keeping_dtype(_file(tmp_path, content), "t.npy", "x", **kwargs)


def test_a_whole_table_keeps_its_float_dtype_in_native_order(tmp_path):
    """'>f4' 1.5 (3f c0 00 00) and −2 (c0 00 00 00): float32 values, native byte order."""
    table = _load(tmp_path, _npy(">f4", (1, 2), bytes.fromhex("3fc00000c0000000")))
    assert table.dtype == np.float32 and table.dtype.isnative
    assert table.tolist() == [[1.5, -2.0]]


def test_a_fortran_whole_table_keeps_its_order(tmp_path):
    """(2, 2) '<f8' Fortran, data 1, 2, 3, 4: columns [1, 2] and [3, 4]."""
    table = _load(tmp_path, _npy("<f8", (2, 2), _f8(1, 2, 3, 4), fortran=True))
    assert table.tolist() == [[1.0, 3.0], [2.0, 4.0]]


def test_two_byte_void_items_are_bfloat16(tmp_path):
    """'|V2' items 3f 80 and c0 40 (big-endian bytes of bfloat16 1 and −3), stored
    little-endian: 80 3f and 40 c0."""
    table = _load(tmp_path, _npy("|V2", (1, 2), bytes.fromhex("803f40c0")))
    assert table.dtype.name == "bfloat16"
    assert table.astype(np.float64).tolist() == [[1.0, -3.0]]


@pytest.mark.parametrize(
    ("value", "refused"),
    [(2**53, False), (2**53 + 1, True), (-(2**53), False), (-(2**53) - 1, True)],
)
def test_integers_past_2_to_the_53_are_refused(tmp_path, value, refused):
    """float64 holds every integer up to ±2^53; 2^53 + 1 would be read as 2^53."""
    content = _npy("<i8", (1, 1), struct.pack("<q", value))
    if refused:
        with pytest.raises(ParameterError, match="within ±2\\^53") as caught:
            _load(tmp_path, content)
        assert caught.value.value == value
    else:
        table = _load(tmp_path, content)
        assert table.dtype == np.float64 and table.tolist() == [[float(value)]]


def test_complex_numbers_are_kept_only_when_asked(tmp_path):
    """'<c16' 1 + 2j: refused as a table, kept (complex128) for a freqs_cis."""
    content = _npy("<c16", (1, 1), _f8(1.0, 2.0))
    with pytest.raises(ParameterError, match="must hold real numbers"):
        _load(tmp_path, content)
    assert _load(tmp_path, content, complex_ok=True).tolist() == [[1 + 2j]]


@pytest.mark.parametrize(("most", "refused"), [(6, False), (5, True)])
def test_a_table_larger_than_the_limit_is_refused_on_its_header(
    tmp_path, monkeypatch, most, refused
):
    """(3, 2) holds 6 values: within a limit of 6, past a limit of 5."""
    monkeypatch.setattr(npy, "MAX_TABLE_VALUES", most)
    content = _npy("<f8", (3, 2), _f8(1, 2, 3, 4, 5, 6))
    if refused:
        with pytest.raises(ParameterError, match="at most 5 values"):
            _load(tmp_path, content)
    else:
        assert _load(tmp_path, content).shape == (3, 2)


@pytest.mark.parametrize(("cut", "refused"), [(0, False), (1, True)])
def test_a_whole_table_shorter_than_its_shape_is_refused(tmp_path, cut, refused):
    """(1, 2) '<f8' needs 16 data bytes."""
    content = _npy("<f8", (1, 2), _f8(1, 2))
    content = content[: len(content) - cut]
    if refused:
        with pytest.raises(
            ParameterError, match=r"truncated \.npy file: it ends before its header's shape"
        ):
            _load(tmp_path, content)
    else:
        assert _load(tmp_path, content).tolist() == [[1.0, 2.0]]


def test_the_declared_dtype_or_none(tmp_path):
    """The header's descr '>i2' is the dtype; bytes that are no .npy give None."""
    assert npy.npy_dtype(_file(tmp_path, _npy(">i2", (1,), b"\x00\x01"))) == np.dtype(">i2")
    assert npy.npy_dtype(_file(tmp_path, b"not a table")) is None


def test_a_reason_is_its_first_line_or_the_error_s_name():
    """A message of several lines gives its first; an empty one the exception's name."""
    assert npy._why(ValueError("  first\nsecond")) == "first"
    assert npy._why(EOFError()) == "EOFError"


def test_a_one_value_file_is_read_from_its_bytes(tmp_path):
    """Shape (1, 1), '<f8' 7.5: one row [7.5] (one value is no empty table)."""
    path = _file(tmp_path, _npy("<f8", (1, 1), _f8(7.5)))
    with _open_after_magic(path) as handle:
        assert _rows(npy.read_npy(handle, path, "x"), 4) == [(0, [[7.5]])]


def test_a_zero_dimensional_array_is_one_row_of_one_value(tmp_path):
    """Shape (): one value (the product of no dimensions), read as one row, from a file and
    from a stream."""
    content = _npy("<f8", (), _f8(3.0))
    path = _file(tmp_path, content)
    with _open_after_magic(path) as handle:
        assert _rows(npy.read_npy(handle, path, "x"), 4) == [(0, [[3.0]])]
    assert _rows(npy.read_npy(io.BytesIO(content[6:]), None, "x"), 4) == [(0, [[3.0]])]


def test_a_header_numpy_cannot_parse_is_refused_naming_the_file_or_stdin(tmp_path):
    """A version 1.0 header whose dict lacks 'shape' is no .npy header: the refusal names
    the file it came from, or stdin."""
    header = "{'descr': '<f8', 'fortran_order': False, }".ljust(117) + "\n"
    content = MAGIC + b"\x01\x00" + struct.pack("<H", len(header)) + header.encode()
    path = _file(tmp_path, content)
    with _open_after_magic(path) as handle, pytest.raises(ParameterError) as caught:
        npy.read_npy(handle, path, "x")
    assert caught.value.value == path and caught.value.rule.startswith("must be a valid .npy")
    with pytest.raises(ParameterError) as caught:
        npy.read_npy(io.BytesIO(content[6:]), None, "x")
    assert caught.value.value == "stdin"


def test_a_fortran_file_of_unequal_inner_axes(tmp_path):
    """Shape (2, 2, 3), Fortran order, data 0 … 11: a[i, j, k] = i + 2j + 4k, so row 0 is
    a[0, j, k] for j = 0, 1 and k = 0, 1, 2: 0, 4, 8, 2, 6, 10; row 1 is each plus 1."""
    path = _file(tmp_path, _npy("<f8", (2, 2, 3), _f8(*range(12)), fortran=True))
    with _open_after_magic(path) as handle:
        matrix = npy.read_npy(handle, path, "x")
    row = [0.0, 4.0, 8.0, 2.0, 6.0, 10.0]
    assert _rows(matrix, 2) == [(0, [row, [v + 1 for v in row]])]
