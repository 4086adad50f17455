"""The readers' edges the command tests do not reach: a GGUF file read by ``read_arrays``, the
CSV size bound's message, a non-blocking output written whole, the tensor-name refusal's list
of formats, and the size of each bounded read call."""

from __future__ import annotations

import math
import os
import threading
from pathlib import Path

import numpy as np
import pytest

from pecli.core.errors import ParameterError
from pecli.io.reading import read_table, read_vector
from pecli.io.reading.arrays import ANY_FORMATS, read_arrays

GGUF = Path(__file__).parents[1] / "fixtures" / "libraries" / "gguf"


def test_a_gguf_file_gives_its_one_frequency_tensor():
    """llama31.gguf (gguf 0.19.0, as llama.cpp's convert_hf_to_gguf.py writes Llama 3.1):
    ``rope_freqs.weight`` holds the llama3 factors of its config, written out here as the
    converter computes them (θ = 500000, d = 4096 / 32, factor 8, low 1, high 4, L 8192)."""
    arrays, metadata = read_arrays(str(GGUF / "llama31.gguf"), formats=ANY_FORMATS)
    assert list(arrays) == ["rope_freqs.weight"] and metadata == {}
    factors = []
    for j in range(64):
        wavelength = 2 * math.pi * 500000.0 ** (2 * j / 128)
        if wavelength < 8192 / 4.0:
            factors.append(1.0)
        elif wavelength > 8192 / 1.0:
            factors.append(8.0)
        else:
            smooth = (8192 / wavelength - 1.0) / (4.0 - 1.0)
            factors.append(1 / ((1 - smooth) / 8.0 + smooth))
    got = arrays["rope_freqs.weight"]
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, factors, rtol=1e-6)  # the converter's float32 arithmetic


def test_a_csv_file_past_the_bound_names_the_bound_in_mib(tmp_path, monkeypatch):
    from pecli.io import reading

    monkeypatch.setattr(reading, "MAX_CSV_BYTES", 1 << 20)
    path = tmp_path / "big.csv"
    path.write_text("0.5,0.25\n" * 120_000)  # 1,080,000 bytes
    with pytest.raises(ParameterError) as caught:
        read_table(str(path))
    assert "must be at most 1 MiB as CSV" in str(caught.value)
    assert "1,080,000 bytes" in str(caught.value)


def test_a_full_non_blocking_output_is_waited_for_and_written_whole():
    """A non-blocking pipe (64 KiB) whose reader starts only once a write found it full (the
    raw write returns None): every byte arrives, in order, none skipped."""
    from pecli.io.pipes import guarded

    data = bytes(range(256)) * 1024  # 256 KiB
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    full, received = threading.Event(), []

    class Raw:
        def __init__(self) -> None:
            self.file = os.fdopen(write_end, "wb", buffering=0)

        def write(self, view):
            written = self.file.write(view)
            if written is None:
                full.set()
            return written

        def fileno(self) -> int:
            return write_end

        def flush(self) -> None:
            pass

        def close(self) -> None:
            self.file.close()

    def drain() -> None:
        full.wait(30)
        with os.fdopen(read_end, "rb") as reader:
            received.append(reader.read())

    thread = threading.Thread(target=drain)
    thread.start()
    with guarded(Raw(), stdout=False) as out:  # type: ignore[arg-type]
        assert out.write(data) == len(data)
    thread.join(30)
    assert full.is_set() and received == [data]


def test_a_npy_of_integers_is_read_as_float64_and_bfloat16_kept(tmp_path):
    """Integers become float64 (exact within ±2^53, refused past it); a bfloat16 table keeps
    its dtype. Values by hand."""
    import ml_dtypes

    from pecli.io.reading.npy import load_keeping_dtype

    path = str(tmp_path / "t.npy")
    np.save(path, np.array([[1, -2], [3, 2**53]], dtype=np.int64))
    got = load_keeping_dtype(path, "t.npy", "--table")
    assert got.dtype == np.float64 and got.tolist() == [[1.0, -2.0], [3.0, 2.0**53]]
    np.save(path, np.array([2**53 + 1], dtype=np.int64))
    with pytest.raises(ParameterError, match="within ±2\\^53"):
        load_keeping_dtype(path, "t.npy", "--table")
    np.save(path, np.array([0.5, -3.0], dtype=ml_dtypes.bfloat16))
    got = load_keeping_dtype(path, "t.npy", "--table")
    assert got.dtype == ml_dtypes.bfloat16 and got.astype(np.float64).tolist() == [0.5, -3.0]


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
def test_npy_format_versions_1_and_2_are_read_and_3_is_named(tmp_path, version):
    """NumPy's own writer at each header version (``np.lib.format.write_array``): 1.0 and
    2.0 read value for value; 3.0 (UTF-8 field names) refused by
    its version, as the reader says it reads 1.0 and 2.0 only."""
    table = np.arange(12.0).reshape(4, 3) / 7
    path = tmp_path / "t.npy"
    with open(path, "wb") as handle:
        np.lib.format.write_array(handle, table, version=version)
    assert path.read_bytes()[6:8] == bytes(version)  # the version bytes after the magic
    if version == (3, 0):
        with pytest.raises(ParameterError, match=r"format version 3\.0"):
            read_table(path)
        return
    np.testing.assert_array_equal(read_table(path), table)


def test_a_table_with_a_batch_axis_of_one_is_read_as_its_table(tmp_path):
    """ViT's ``pos_embed`` layout, (1, tokens, d) = (1, 5, 4): the (5, 4) table itself."""
    table = np.arange(20.0).reshape(1, 5, 4) / 3
    np.save(tmp_path / "p.npy", table)
    np.testing.assert_array_equal(read_table(tmp_path / "p.npy"), table[0])


@pytest.mark.parametrize("text", ['{"rope_theta": 10000.0}\n', "\ufeff  \n [[0.5, 0.25]]\n"])
def test_a_json_file_is_refused_as_json_not_read_as_csv(tmp_path, text):
    """A model's config.json (an object) and a JSON array, the second after a byte-order mark
    and blank space: both are refused by the JSON rule, which points to `rope config`."""
    path = tmp_path / "config.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ParameterError) as caught:
        read_table(path)
    assert caught.value.parameter == "file"
    assert "not JSON: pecli rope config reads a model's config.json" in caught.value.rule


@pytest.mark.parametrize(
    ("formats", "named"),
    [
        (ANY_FORMATS, ".safetensors, .npz and .gguf"),
        ((".npy", ".safetensors", ".npz"), ".safetensors and .npz"),
        ((".npy", ".csv", ".safetensors"), ".safetensors"),
    ],
)
def test_a_tensor_name_for_a_npy_file_names_the_container_formats_read(tmp_path, formats, named):
    """A ``.npy`` file is one table, so a tensor name is refused by naming the formats that
    hold named tensors among those the caller reads, in English list form (written out by
    hand): "A, B and C", "A and B", "A"."""
    np.save(tmp_path / "t.npy", np.eye(2))
    with pytest.raises(ParameterError) as caught:
        read_arrays(str(tmp_path / "t.npy"), tensor="pe", formats=formats)
    assert caught.value.parameter == "tensor"
    assert caught.value.rule == f"applies only to {named} files (a .npy or CSV file is one table)"


def test_a_read_asks_at_most_64_mib_of_each_call(monkeypatch):
    """The module's rule: each ``preadv`` call asks for at most 64 MiB (2^26 bytes). An array
    one byte longer takes two calls, 2^26 bytes at the offset, then 1 byte 2^26 further on.
    The calls are recorded (and answered in full) without touching the array's memory."""
    from pecli.io.reading import bounded

    asked = []

    def preadv(fd, buffers, offset):
        asked.append((fd, [len(b) for b in buffers], offset))
        return sum(len(b) for b in buffers)

    monkeypatch.setattr(bounded.os, "preadv", preadv)
    assert bounded.read_into(7, np.empty(2**26 + 1, np.uint8), 100)
    assert asked == [(7, [2**26], 100), (7, [1], 100 + 2**26)]


def test_a_header_wider_than_as_many_rows_as_it_names_is_refused():
    """A header of 3 names over 3 rows of 2 numbers: every line must have the first line's
    cell count (3), the second line has 2 (lines counted from 1)."""
    from pecli.io.reading.csv_text import parse_csv

    with pytest.raises(ParameterError) as error:
        parse_csv("a,b,c\n1,2\n3,4\n5,6\n", "--input")
    assert error.value.rule.startswith("must have the same number of cells on every CSV line (3")
    assert "2 cells on line 2" in str(error.value)


def test_a_vector_of_csv_text_is_taken_as_written_not_as_a_narrow_dtype(tmp_path, run_cli):
    """Positions and timesteps are inputs: "0.7" is 0.7, not float16's 0.7001953125, and 70000
    is 70000, not bfloat16's 70144 (a new user's rope cache had cos(70144) at position 70000).
    A table's CSV still finds its storage dtype back (identify reads stored tables)."""
    (tmp_path / "p.csv").write_text("0\n0.7\n2\n70000\n")
    assert read_vector(tmp_path / "p.csv").tolist() == [0.0, 0.7, 2.0, 70000.0]
    args = ("--theta", "10000", "--head-dim", "2", "--dtype", "float64", "--format", "csv")
    result = run_cli("rope", "cache", *args, "--positions", str(tmp_path / "p.csv"))
    rows = [line.split(",") for line in result.stdout.splitlines()[1:]]
    assert [float(r[0]) for r in rows] == [math.cos(p) for p in (0.0, 0.7, 2.0, 70000.0)]
