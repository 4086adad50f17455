"""``add_encoding`` and ``pecli add``: x_pos + pe(pos), input formats, and every bad input."""

from __future__ import annotations

import io
import pickle
import subprocess
import sys

import numpy as np
import pytest
from reference import loop_table

from pecli import ParameterError, add, add_encoding, encoding_table

GOLDEN_12 = [  # docs/encoding.md: pe(1), pe(2) for d = 4
    [0.8414709848, 0.5403023059, 0.0099998333, 0.9999500004],
    [0.9092974268, -0.4161468365, 0.0199986667, 0.9998000067],
]


def test_add_on_zeros_is_the_golden_table():
    got = add_encoding(np.zeros((2, 4)), dtype="float64")
    np.testing.assert_allclose(got, GOLDEN_12, rtol=0, atol=1e-10)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("start", [0, 1, 37])
def test_add_on_zeros_equals_compute_table(dtype, start):
    got = add_encoding(np.zeros((50, 16)), start=start, base=500.0, dtype=dtype)
    np.testing.assert_array_equal(
        got, encoding_table(d=16, n=50, start=start, base=500.0, dtype=dtype)
    )


def test_add_on_data_matches_a_plain_loop_and_rounds_once():
    rng = np.random.default_rng(3)
    x = rng.normal(scale=10, size=(30, 12))
    expected = x + loop_table(list(range(5, 35)), 12)  # rows are positions 5 … 34
    got64 = add_encoding(x, start=5, dtype="float64")
    np.testing.assert_allclose(got64, expected, rtol=0, atol=1e-13)
    got32 = add_encoding(x, start=5, dtype="float32")
    assert got32.dtype == np.float32 and got32.flags.c_contiguous
    np.testing.assert_array_equal(got32, got64.astype(np.float32))


def test_add_accepts_integers_and_the_alias():
    got = add(np.array([[1, 2], [3, 4]], dtype=np.int16), start=0, dtype="float64")
    np.testing.assert_allclose(got, [[1, 3], [3 + np.sin(1), 4 + np.cos(1)]], atol=1e-15)


@pytest.mark.parametrize(
    ("x", "rule"),
    [
        (np.zeros((3, 5)), "even number of columns"),
        (np.zeros(4), "2-D"),
        (np.zeros((2, 2, 2)), "2-D"),
        (np.zeros((0, 4)), "at least one row"),
        (np.array([[0.0, np.inf]]), "finite"),
        (np.zeros((2, 2), dtype=complex), "real numbers"),
        (np.array([[None, None]], dtype=object), "real numbers"),
    ],
)
def test_add_refuses_bad_data(x, rule):
    with pytest.raises(ParameterError) as info:
        add_encoding(x)
    assert info.value.parameter == "x" and rule in info.value.rule


def test_add_names_the_first_non_finite_value():
    x = np.zeros((4, 4))
    x[2, 3] = np.nan
    with pytest.raises(ParameterError, match="row 3, column 4"):
        add_encoding(x)


# ---- the command line -----------------------------------------------------------------


def test_add_npy_to_npy(run_cli, tmp_path):
    x = np.random.default_rng(0).normal(size=(20, 8))
    np.save(tmp_path / "x.npy", x)
    result = run_cli(
        "add", "-i", str(tmp_path / "x.npy"), "--start", "0", "-o", str(tmp_path / "y.npy")
    )
    assert result.exit_code == 0, result.output
    y = np.load(tmp_path / "y.npy", allow_pickle=False)
    assert y.dtype == np.dtype("<f4") and y.flags.c_contiguous
    np.testing.assert_allclose(y, x + loop_table(list(range(20)), 8), rtol=0, atol=1e-6)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", ["<f8", ">f8", ">f4", "<i4", ">i2", "<f2", "<u1"])
def test_add_reads_any_order_and_byte_order(run_cli, tmp_path, order, dtype):
    x = np.arange(24).reshape(6, 4).astype(dtype, order=order)
    np.save(tmp_path / "x.npy", x)
    assert np.load(tmp_path / "x.npy").flags.f_contiguous == (order == "F")
    result = run_cli("add", "-i", str(tmp_path / "x.npy"), "--dtype", "float64", "--format", "npy")
    assert result.exit_code == 0, result.output
    y = np.load(io.BytesIO(result.stdout_bytes), allow_pickle=False)
    assert y.dtype == np.dtype("<f8") and y.flags.c_contiguous
    expected = np.arange(24.0).reshape(6, 4) + loop_table([1, 2, 3, 4, 5, 6], 4)
    np.testing.assert_allclose(y, expected, rtol=0, atol=1e-14)


@pytest.mark.parametrize(("order", "dtype"), [("C", ">f4"), ("F", "<f8"), ("C", "<i2")])
def test_large_npy_is_streamed_in_blocks(tmp_path, monkeypatch, order, dtype):
    """C order: one pread per block, none at open; Fortran order: bounded reads too, no map.

    A memory map of a file cut short while read ends the process with SIGBUS (issue 23).
    """
    import mmap
    import os

    from pecli.io.reading import read_matrix

    maps, reads = [], []
    real_mmap, real_pread = mmap.mmap, os.pread

    def spy_map(*args, **kwargs):
        maps.append(kwargs)
        return real_mmap(*args, **kwargs)

    def spy_read(fd, size, offset):
        reads.append(size)
        return real_pread(fd, size, offset)

    x = np.arange(6000).reshape(1000, 6).astype(dtype, order=order)
    np.save(tmp_path / "x.npy", x)
    monkeypatch.setattr(mmap, "mmap", spy_map)
    monkeypatch.setattr(os, "pread", spy_read)
    matrix = read_matrix(str(tmp_path / "x.npy"))
    assert reads == [] and maps == []
    blocks = list(matrix.blocks(rows=300))
    if order == "C":
        assert reads == [300 * 6 * x.itemsize] * 3 + [100 * 6 * x.itemsize]
    assert maps == []
    assert [first for first, _ in blocks] == [0, 300, 600, 900]
    assert all(b.dtype == np.float64 and b.flags.c_contiguous for _, b in blocks)
    np.testing.assert_array_equal(np.concatenate([b for _, b in blocks]), x)


def test_add_csv_with_header_keeps_the_names(run_cli, tmp_path):
    (tmp_path / "x.csv").write_text("a,b\n1.5,2\n-3,4e1\n")
    result = run_cli("add", "-i", str(tmp_path / "x.csv"), "--dtype", "float64")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "a,b"
    got = np.array([line.split(",") for line in lines[1:]], dtype=float)
    np.testing.assert_allclose(
        got, np.array([[1.5, 2], [-3, 40]]) + loop_table([1, 2], 2), atol=1e-15
    )


def test_add_csv_without_header_and_blank_lines(run_cli, tmp_path):
    (tmp_path / "x.csv").write_text("0,0,0,0\n\n0,0,0,0\n")
    result = run_cli("add", "-i", str(tmp_path / "x.csv"), "--no-header")
    assert result.exit_code == 0, result.output
    got = np.loadtxt(io.StringIO(result.stdout), delimiter=",")
    np.testing.assert_allclose(got, GOLDEN_12, atol=3e-8)


@pytest.mark.parametrize("kind", ["csv", "npy"])
def test_add_reads_stdin_through_a_pipe(pecli_cmd, kind):
    x = np.zeros((2, 4))
    if kind == "npy":
        buffer = io.BytesIO()
        np.save(buffer, x.astype(">f8"))
        data = buffer.getvalue()
    else:
        data = b"0,0,0,0\n0,0,0,0\n"
    done = subprocess.run(
        [*pecli_cmd, "add", "--format", "npy", "--dtype", "float64"],
        input=data,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    np.testing.assert_allclose(np.load(io.BytesIO(done.stdout)), GOLDEN_12, atol=1e-10)


class _Trap:
    """Unpickling this creates a file: if the file appears, something was unpickled."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _bad_inputs(tmp_path):
    trap = str(tmp_path / "UNPICKLED")
    with open(tmp_path / "pickle.npy", "wb") as handle:
        pickle.dump(_Trap(trap), handle)
    np.save(tmp_path / "object.npy", np.array([_Trap(trap)], dtype=object), allow_pickle=True)
    np.save(tmp_path / "odd.npy", np.zeros((3, 5)))
    np.save(tmp_path / "one_d.npy", np.zeros(4))
    np.save(tmp_path / "three_d.npy", np.zeros((2, 2, 2)))
    np.save(tmp_path / "complex.npy", np.zeros((2, 2), dtype=complex))
    np.save(tmp_path / "nan.npy", np.array([[0.0, 0.0], [0.0, np.nan]]))
    np.savez(tmp_path / "archive.npz", x=np.zeros((2, 2)))
    texts = {
        "cell.csv": "1,2\n3,abc\n",
        "ragged.csv": "a,b\n1,2\n3,4,5\n",
        "oddcsv.csv": "1,2,3\n4,5,6\n",
        "infcsv.csv": "x,y\n1,2\n\n3,-inf\n",
        "empty.csv": "",
        "headeronly.csv": "a,b\n",
        "mixedheader.csv": "a,1\n2,3\n",
        "semicolons.csv": "1;2\n3;4\n",
        "underscore.csv": "1,2\n1_0,4\n",
        "zeros.npy": "\0" * 4000,
    }
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
    return trap


BAD = [
    ("pickle.npy", "pickled data is never loaded"),
    ("object.npy", "must hold real numbers (integers or floats); objects are never unpickled"),
    ("odd.npy", "even number of columns d >= 2 (the encoding's width) (got 5 columns)"),
    (
        "one_d.npy",
        "must be a 2-D (n, d) matrix, one row per position (got 1-D array of shape (4,))",
    ),
    ("three_d.npy", "(got 3-D array of shape (2, 2, 2))"),
    ("complex.npy", "(got dtype complex128)"),
    ("nan.npy", "must hold finite numbers only (got nan at row 2, column 2)"),
    ("archive.npz", "not an .npz archive"),
    ("cell.csv", "must hold numbers only (got 'abc' on line 2, column 2)"),
    (
        "ragged.csv",
        "same number of cells on every CSV line (2 on the first) (got 3 cells on line 3)",
    ),
    ("oddcsv.csv", "(got 3 columns)"),
    ("infcsv.csv", "must hold finite numbers only (got -inf on line 4, column 2)"),
    ("empty.csv", "must hold at least one row"),
    ("headeronly.csv", "must hold at least one row (got a header only)"),
    ("mixedheader.csv", "must hold numbers only (got 'a' on line 1, column 1)"),
    ("missing.npy", "must be an existing file (or - for stdin)"),
    ("semicolons.csv", "must be comma-separated (got cells split by semicolons)"),
    ("underscore.csv", "must hold numbers only (got '1_0' on line 2, column 1)"),
    ("zeros.npy", "must be .npy or CSV text (got binary data)"),
]


@pytest.mark.parametrize(("name", "message"), BAD)
def test_bad_input_is_one_line_with_status_2_and_no_output(run_cli, tmp_path, name, message):
    trap = _bad_inputs(tmp_path)
    out = tmp_path / "out" / "y.npy"
    out.parent.mkdir()
    result = run_cli("add", "-i", str(tmp_path / name), "-o", str(out))
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert lines[0].startswith("pecli add: error: Invalid value for '--input': ")
    assert message in lines[0]
    assert list(out.parent.iterdir()) == []
    assert not (tmp_path / "UNPICKLED").exists(), trap


def test_bad_stdin_through_a_real_pipe(pecli_cmd, tmp_path):
    trap = tmp_path / "UNPICKLED"
    for data, message in [
        (pickle.dumps(_Trap(str(trap))), "pickled data is never loaded"),
        (b"1,2\n3,4,5\n", "got 3 cells on line 2"),
        (b"\x00\xff\xfe binary", "must be .npy or CSV text (got binary data)"),
    ]:
        done = subprocess.run([*pecli_cmd, "add"], input=data, capture_output=True, check=False)
        assert done.returncode == 2 and done.stdout == b""
        assert done.stderr.decode().count("\n") == 1 and message in done.stderr.decode()
    assert not trap.exists()


def test_truncated_npy_on_stdin_is_a_usage_error(pecli_cmd):
    buffer = io.BytesIO()
    np.save(buffer, np.zeros((100, 4)))
    done = subprocess.run(
        [*pecli_cmd, "add", "--format", "npy"],
        input=buffer.getvalue()[:-40],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 2 and "truncated" in done.stderr.decode()
    assert "Traceback" not in done.stderr.decode()


def test_add_option_errors_come_before_reading(run_cli, tmp_path):
    result = run_cli("add", "-i", str(tmp_path / "missing.npy"), "--base", "-1")
    assert result.exit_code == 2 and "'--base'" in result.stderr


def test_add_does_not_import_matplotlib_or_rich(tmp_path):
    np.save(tmp_path / "x.npy", np.zeros((3, 4)))
    code = (
        "import sys; from pecli.cli import app; from typer.testing import CliRunner;"
        f"r = CliRunner().invoke(app, ['add', '-i', r'{tmp_path / 'x.npy'}',"
        f" '-o', r'{tmp_path / 'y.npy'}']);"
        "assert r.exit_code == 0, r.output;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'matplotlib', 'polars', 'rich'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("order", ["C", "F"])
def test_add_reads_a_big_endian_npy_on_stdin_in_either_order(run_cli, order):
    x = np.arange(40.0).reshape(10, 4)
    buffer = io.BytesIO()
    np.save(buffer, x.astype(">f8", order=order))
    result = run_cli("add", "--format", "npy", "--dtype", "float64", input=buffer.getvalue())
    assert result.exit_code == 0, result.output
    y = np.load(io.BytesIO(result.stdout_bytes), allow_pickle=False)
    np.testing.assert_allclose(y, x + loop_table(list(range(1, 11)), 4), rtol=0, atol=1e-13)


@pytest.mark.parametrize("order", ["C", "F"])
def test_npy_stream_is_read_block_by_block(order):
    from pecli.io.reading import _read_stream

    x = np.arange(70, dtype="<i4").reshape(10, 7)
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(x, order=order))
    buffer.seek(0)
    matrix = _read_stream(buffer, None, "input")
    assert matrix.shape == (10, 7) and matrix.columns is None
    blocks = list(matrix.blocks(rows=4))
    assert [first for first, _ in blocks] == [0, 4, 8]
    np.testing.assert_array_equal(np.concatenate([b for _, b in blocks]), x)


def test_sums_beyond_float32_need_float64(run_cli, tmp_path):
    np.save(tmp_path / "big.npy", np.full((3, 4), 1e300))
    out = tmp_path / "out.npy"
    result = run_cli("add", "-i", str(tmp_path / "big.npy"), "-o", str(out))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "'--dtype': must be float64 for values beyond ±3.4e38 (got 1e+300)" in result.stderr
    assert not out.exists()
    result = run_cli("add", "-i", str(tmp_path / "big.npy"), "-o", str(out), "--dtype", "float64")
    assert result.exit_code == 0 and np.all(np.load(out) == 1e300)
