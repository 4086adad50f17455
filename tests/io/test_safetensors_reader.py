"""pecli's own ``.safetensors`` reader and writer agree with the safetensors library.

The reader (no memory map, issue 23) must refuse what the library refuses, and read what it
reads, value for value; the streamed writer's files must read back through the library.
Expected verdicts come from the library itself (``safe_open(..., "np")``), run here.
"""

from __future__ import annotations

import json
import math
import struct

import ml_dtypes
import numpy as np
import pytest
from safetensors import safe_open
from safetensors.numpy import save_file

from pecli.core.errors import ParameterError
from pecli.io.reading.safetensors_file import SafetensorsFile
from pecli.io.tensors import write_safetensors, write_safetensors_parts


def _blob(header, data=b"", raw=None, size=None):
    text = raw if raw is not None else json.dumps(header).encode()
    return struct.pack("<Q", len(text) if size is None else size) + text + data


def _e(dtype, shape, offsets):
    return {"dtype": dtype, "shape": shape, "data_offsets": offsets}


ONE = b'{"a": {"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
CASES = {
    "ok": _blob({"a": _e("F32", [2], [0, 8])}, b"\1" * 8),
    "gap": _blob({"a": _e("F32", [1], [0, 4]), "b": _e("F32", [1], [8, 12])}, b"\0" * 12),
    "overlap": _blob({"a": _e("F32", [2], [0, 8]), "b": _e("F32", [1], [4, 8])}, b"\0" * 8),
    "short-data": _blob({"a": _e("F32", [2], [0, 8])}, b"\0" * 4),
    "extra-data": _blob({"a": _e("F32", [1], [0, 4])}, b"\0" * 8),
    "size-mismatch": _blob({"a": _e("F32", [3], [0, 8])}, b"\0" * 8),
    "negative-shape": _blob({"a": _e("F32", [-2], [0, 8])}, b"\0" * 8),
    "float-shape": _blob({"a": _e("F32", [2.0], [0, 8])}, b"\0" * 8),
    "bool-shape": _blob({"a": _e("F32", [True], [0, 4])}, b"\0" * 4),
    "huge-shape": _blob({"a": _e("F32", [2**62, 2**62], [0, 8])}, b"\0" * 8),
    "unknown-dtype": _blob({"a": _e("X9", [2], [0, 8])}, b"\0" * 8),
    "metadata-int": _blob({"__metadata__": {"k": 1}, "a": _e("F32", [2], [0, 8])}, b"\0" * 8),
    "metadata-list": _blob({"__metadata__": [1], "a": _e("F32", [2], [0, 8])}, b"\0" * 8),
    "array-header": _blob(None, raw=b"[1,2]"),
    "not-utf8": _blob(None, raw=b'{"\xff": 1}'),
    "huge-length": _blob(None, raw=b"{}", size=2**63),
    "length-past-end": _blob(None, raw=b"{}", size=100),
    "empty": _blob({}),
    "empty-with-data": _blob({}, b"\0" * 8),
    "leading-space": _blob(None, raw=b" " + ONE) + b"\0" * 4,
    "three-offsets": _blob({"a": _e("F32", [2], [0, 8, 9])}, b"\0" * 8),
    "reversed-offsets": _blob({"a": _e("F32", [0], [8, 0])}, b"\0" * 8),
    "deep-nesting": _blob(None, raw=b"{" + b'"a":{' * 5000 + b"}" * 5001),
    "trailing-garbage": _blob(None, raw=ONE + b" xx") + b"\0" * 4,
    "entry-not-object": _blob({"a": 5}),
    "unicode-name": _blob({"é☃": _e("F16", [2], [0, 4])}, b"\1\2\3\4"),
    "zero-size": _blob({"a": _e("F32", [0, 3], [0, 0]), "b": _e("I8", [1], [0, 1])}, b"\7"),
}


def _library(path):
    try:
        with safe_open(str(path), "np") as handle:
            return {key: handle.get_tensor(key) for key in handle.keys()}  # noqa: SIM118
    except Exception:
        return None


@pytest.mark.parametrize("blob", CASES.values(), ids=CASES.keys())
def test_the_reader_refuses_and_reads_what_the_library_does(tmp_path, blob):
    path = tmp_path / "h.safetensors"
    path.write_bytes(blob)
    want = _library(path)
    try:
        with SafetensorsFile(str(path), parameter="file") as handle:
            got = {key: handle.read(key) for key in handle.entries}
    except ParameterError as error:
        assert want is None, error
        assert "must be a .safetensors file" in error.rule
        return
    assert want is not None and got.keys() == want.keys()
    for key in want:
        assert got[key].dtype == want[key].dtype and np.array_equal(got[key], want[key])


@pytest.mark.parametrize("length", [100_000_000, 100_000_001])
def test_a_header_of_10_to_the_8_bytes_is_allowed_and_one_more_is_too_large(tmp_path, length):
    """The library's own limit: a length of 10^8 is refused only for running past the file."""
    path = tmp_path / "h.safetensors"
    path.write_bytes(_blob(None, raw=b"{}", size=length))
    with pytest.raises(Exception, match="header") as library:
        safe_open(str(path), "np")
    too_large = "header too large" in str(library.value)
    assert too_large == (length > 10**8)  # the library's verdict, then pecli's the same
    with pytest.raises(ParameterError) as error:
        SafetensorsFile(str(path), parameter="file")
    said = f"header of {length} bytes, more than 100000000" if too_large else "in a file of 10"
    assert said in error.value.rule


def test_float8_is_read_where_numpy_has_no_type(tmp_path):
    """The library's NumPy API refuses F8_E4M3; ml_dtypes reads it (the rest stays equal)."""
    path = tmp_path / "f8.safetensors"
    path.write_bytes(_blob({"a": _e("F8_E4M3", [2], [0, 2])}, b"\x38\x40"))
    with SafetensorsFile(str(path), parameter="file") as handle:
        values = handle.read("a")
    assert values.dtype == ml_dtypes.float8_e4m3fn and values.astype(float).tolist() == [1.0, 2.0]


def test_rows_are_read_alone_and_written_files_read_back(tmp_path):
    rng = np.random.default_rng(3)
    tensors = {
        "w": rng.random((6, 5), dtype=np.float32),
        "b16": rng.random((3, 2)).astype(ml_dtypes.bfloat16),
        "big_endian": np.arange(4, dtype=">i4"),
        "scalar": np.array(2.5),
    }
    save_file(
        {k: v.astype(v.dtype.newbyteorder("<")) for k, v in tensors.items()},
        str(tmp_path / "lib.safetensors"),
    )
    write_safetensors(tensors, output=tmp_path / "ours.safetensors", metadata={"k": "v"})
    parts = [("w", np.dtype(np.float32), (6, 5), [tensors["w"][:2], tensors["w"][2:]])]
    write_safetensors_parts(parts, output=tmp_path / "parts.safetensors")
    for name in ("lib", "ours", "parts"):
        read = _library(tmp_path / f"{name}.safetensors")
        assert read is not None
        for key, value in read.items():
            assert np.array_equal(value, tensors[key]), (name, key)
        with SafetensorsFile(str(tmp_path / f"{name}.safetensors"), parameter="f") as handle:
            assert np.array_equal(handle.read("w", slice(2, 4)), tensors["w"][2:4])
    with safe_open(str(tmp_path / "ours.safetensors"), "np") as handle:
        assert handle.metadata() == {"k": "v"}
    with SafetensorsFile(str(tmp_path / "lib.safetensors"), parameter="f") as handle:
        # rows of an axis the tensor does not have: the tensor whole (0-d, then 1-d)
        assert handle.read("scalar", slice(0, 1), axis=0).tolist() == 2.5
        assert handle.read("big_endian", slice(0, 1), axis=1).tolist() == [0, 1, 2, 3]


def test_blocks_that_do_not_fill_the_shape_leave_no_file(tmp_path):
    parts = [("w", np.dtype(np.float32), (4, 2), [np.zeros((3, 2), np.float32)])]
    with pytest.raises(ValueError, match="expected 32"):
        write_safetensors_parts(parts, output=tmp_path / "w.safetensors")
    assert list(tmp_path.iterdir()) == []


def test_each_dtype_code_takes_the_bytes_the_library_takes(tmp_path):
    """Eight elements of each dtype code pecli knows: the one data length (0…71 bytes) the
    library's ``deserialize`` takes (8 × bits / 8: F4 4 bytes, F6 6, C64 64, …) pecli opens,
    one byte fewer or more it refuses."""
    from safetensors import deserialize

    from pecli.io.reading.safetensors_file import _BITS

    path = tmp_path / "t.safetensors"

    def library(blob: bytes) -> bool:
        try:
            deserialize(blob)
            return True
        except Exception:
            return False

    def pecli(blob: bytes) -> bool:
        path.write_bytes(blob)
        try:
            with SafetensorsFile(str(path), parameter="file"):
                return True
        except ParameterError:
            return False

    def blob(code: str, n: int) -> bytes:
        return _blob({"a": _e(code, [8], [0, n])}, b"\0" * n)

    for code in _BITS:
        (n,) = [n for n in range(72) if library(blob(code, n))]
        assert [pecli(blob(code, m)) for m in (n - 1, n, n + 1)] == [False, True, False], code


def test_closing_twice_closes_no_other_file(tmp_path):
    """close() is idempotent: the second call closes nothing (not the standard input or
    output, fd 0 and 1, which are put back whatever happens)."""
    import os

    path = tmp_path / "t.safetensors"
    path.write_bytes(CASES["ok"])
    saved = os.dup(0), os.dup(1)
    try:
        handle = SafetensorsFile(str(path), parameter="file")
        handle.close()
        handle.close()
        os.fstat(0), os.fstat(1)  # EBADF if fd 0 or 1 was closed
    finally:
        for fd, copy in enumerate(saved):
            os.dup2(copy, fd)
            os.close(copy)


def test_a_file_opened_as_fd_0_is_closed_too(tmp_path):
    """With the standard input closed, the file gets descriptor 0 (POSIX: the lowest free
    one); close() must close it all the same (fd 0 is put back whatever happens)."""
    import os

    path = tmp_path / "t.safetensors"
    path.write_bytes(CASES["ok"])
    saved = os.dup(0)
    try:
        os.close(0)
        handle = SafetensorsFile(str(path), parameter="file")
        assert handle.fd == 0
        handle.close()
        with pytest.raises(OSError):
            os.fstat(0)  # EBADF: closed
    finally:
        os.dup2(saved, 0)
        os.close(saved)


@pytest.mark.parametrize("change", ["append", "touch"])
def test_a_file_that_changed_after_its_header_is_refused_even_if_its_bytes_are_there(
    tmp_path, change
):
    """The header's promise holds for the file as it was opened (size, mtime): bytes appended
    or a new mtime after the header was read, and a read of tensor bytes still present is
    "changed while it was read", not values of another file."""
    import os

    path = tmp_path / "t.safetensors"
    path.write_bytes(CASES["ok"])
    with SafetensorsFile(str(path), parameter="file") as handle:
        if change == "append":
            with open(path, "ab") as end:
                end.write(b"\0" * 8)
        else:
            stat = path.stat()
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        with pytest.raises(ParameterError, match="changed while it was read"):
            handle.read("a")


def test_offsets_that_run_backwards_are_a_broken_entry_not_a_size(tmp_path):
    """``data_offsets`` ``[begin, end]`` with end before begin (the format's rule: begin <= end)
    is a broken entry, whatever the shape: not "-8 bytes for its shape"."""
    path = tmp_path / "t.safetensors"
    for offsets in ([8, 0], [4, 0]):
        path.write_bytes(_blob({"a": _e("F32", [0], offsets), "b": _e("F32", [2], [0, 8])}))
        with pytest.raises(ParameterError, match="tensor 'a' has a broken header entry"):
            SafetensorsFile(str(path), parameter="file")


@pytest.mark.parametrize(
    "rows", [slice(4, 2), slice(3, 3), slice(9, 12), slice(-2, None), slice(1, 3)]
)
@pytest.mark.parametrize(("shape", "axis"), [((6, 5), 0), ((6, 3, 2), 0), ((1, 6, 5), 1)])
def test_rows_read_alone_are_numpy_s_slice_of_the_tensor_even_empty(tmp_path, rows, shape, axis):
    """``read(key, rows, axis)`` (only 1s before ``axis``) is NumPy's slice of that axis: a
    slice that ends before it starts, or starts past the end, is zero rows, not one."""
    table = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    want = table[(slice(None),) * axis + (rows,)]
    save_file({"w": table}, str(tmp_path / "t.safetensors"))
    with SafetensorsFile(str(tmp_path / "t.safetensors"), parameter="file") as handle:
        got = handle.read("w", rows, axis)
    assert got.shape == want.shape and np.array_equal(got, want)


def test_a_size_that_does_not_fit_the_shape_says_the_bytes_it_has(tmp_path):
    """F32 of shape [3] needs 12 bytes (the format: 4 per value); offsets [4, 12] give 8."""
    path = tmp_path / "t.safetensors"
    path.write_bytes(_blob({"b": _e("F32", [1], [0, 4]), "a": _e("F32", [3], [4, 12])}, bytes(12)))
    with pytest.raises(ParameterError, match="tensor 'a' has 8 bytes for its shape"):
        SafetensorsFile(str(path), parameter="file")
