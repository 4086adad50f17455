"""Checkpoints: ``compute -o pe.safetensors`` and ``identify model.safetensors`` / ``.npz``.

The checkpoints are built here with the ``safetensors`` library itself (and NumPy's
``savez``), from tables made by the slow loops of ``slow_formulas`` (the libraries' own
formulas, one entry at a time), never by pecli.
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Iterator
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
import slow_formulas
from safetensors import safe_open
from safetensors.numpy import load_file, save_file

import pecli
from pecli.core.errors import ParameterError

BF16 = np.dtype(ml_dtypes.bfloat16)


def library_table(name: str, n: int, d: int, dtype: object = np.float32) -> np.ndarray:
    """The library's table, rounded once to ``dtype`` from float64 (ml_dtypes for bf16 rounds
    through float32; fine here: identify accepts either rounding)."""
    return np.array(slow_formulas.preset_table(name, n, d, 10000.0)).astype(dtype)


def learned(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """A learned table as models initialise it: normal, std 0.02."""
    return (0.02 * rng.standard_normal(shape)).astype(np.float32)


@pytest.fixture(scope="module")
def tensors() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(11)
    return {
        "encoder.embed_positions.weight": library_table("whisper", 150, 64),
        "decoder.embed_positions.weight": learned(rng, (150, 64)),
        "pos_embed": library_table("pytorch", 50, 32, BF16)[None],
        "half.pe": library_table("tensor2tensor", 40, 16, np.float16)[:, None, :],
        "layer.bias": np.zeros(64, np.float32),
        "steps": np.arange(10),
    }


def verdicts(run_cli, path: str, *args: str) -> dict[str, dict]:
    result = run_cli("identify", path, "--json", *args)
    assert result.exit_code in (0, 1), result.output
    return {f["key"]: f for f in json.loads(result.stdout)}


def check_findings(found: dict[str, dict]) -> None:
    whisper = found["encoder.embed_positions.weight"]
    assert whisper["verdict"] == "identified"
    assert "whisper" in whisper["identification"]["presets"]
    assert whisper["identification"]["start"] == 0
    learned_table = found["decoder.embed_positions.weight"]
    assert learned_table["verdict"] == "not sinusoidal" and learned_table["residual"] > 0.5
    assert learned_table["identification"] is None
    pos = found["pos_embed"]["identification"]
    assert pos["presets"][0] == "pytorch" and pos["storage"] == "bfloat16"  # also saved as float32
    half = found["half.pe"]["identification"]
    assert half["presets"][0] == "tensor2tensor" and half["storage"] == "float16"
    assert found["layer.bias"]["verdict"] == found["steps"]["verdict"] == "skipped"


def test_identify_lists_every_tensor_of_a_safetensors_file(run_cli, tmp_path, tensors):
    save_file(tensors, tmp_path / "model.safetensors")
    found = verdicts(run_cli, str(tmp_path / "model.safetensors"))
    assert sorted(found) == sorted(tensors)
    check_findings(found)
    result = run_cli("identify", str(tmp_path / "model.safetensors"))
    assert result.exit_code == 0
    assert "not sinusoidal" in result.stdout and "rebuild with" in result.stdout
    # layer.bias (one axis) and steps (integers) are no float tables: 2 of the 6
    assert "2 tensors skipped by their header" in " ".join(result.stdout.split())


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed])
def test_npz_archives_are_read_the_same_way(run_cli, tmp_path, tensors, save):
    plain = {k: v.astype(np.float32) if v.dtype == BF16 else v for k, v in tensors.items()}
    save(tmp_path / "model.npz", **plain)
    found = verdicts(run_cli, str(tmp_path / "model.npz"))
    check_findings(found)


def test_key_picks_one_tensor(run_cli, tmp_path, tensors):
    save_file(tensors, tmp_path / "m.safetensors")
    result = run_cli("identify", str(tmp_path / "m.safetensors"), "--key", "pos_embed")
    assert result.exit_code == 0 and "storage" in result.stdout and "bfloat16" in result.stdout
    learned_key = "decoder.embed_positions.weight"
    result = run_cli("identify", str(tmp_path / "m.safetensors"), "--key", learned_key)
    assert result.exit_code == 1 and "not sinusoidal" in result.stdout
    assert "no column pairs on the unit circle" in result.stderr  # why, not "matches no …"


def test_a_missing_key_lists_the_keys_that_exist_abbreviated(run_cli, tmp_path):
    save_file(
        {f"layer{i:02d}": np.zeros(3, np.float32) for i in range(12)}, tmp_path / "m.safetensors"
    )
    result = run_cli("identify", str(tmp_path / "m.safetensors"), "--key", "pe")
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert "\n" not in line and "'--key'" in line and "layer00, layer01" in line
    assert "… and 4 more" in line and "layer11" not in line


@pytest.mark.parametrize("content", [b"", b"hello, not a checkpoint", b"\x93NUMPY\x01\x00"])
def test_a_file_that_is_not_a_checkpoint_is_one_line_status_2(run_cli, tmp_path, content):
    (tmp_path / "m.safetensors").write_bytes(content)
    result = run_cli("identify", str(tmp_path / "m.safetensors"))
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert "must be a .safetensors file" in result.stderr


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_compute_writes_a_safetensors_table_with_its_metadata(run_cli, tmp_path, dtype):
    out = tmp_path / "pe.safetensors"
    args = ["--convention", "whisper", "--d", "64", "--n", "150", "--dtype", dtype]
    result = run_cli("compute", *args, "-o", str(out))
    assert result.exit_code == 0, result.output
    stored = load_file(out)["positional_encoding"]
    want = library_table("whisper", 150, 64, np.float64)
    assert stored.dtype.name == dtype and stored.shape == (150, 64)
    np.testing.assert_allclose(
        stored.astype(np.float64), want, atol=2**-8 if dtype == "bfloat16" else 1e-3
    )
    with safe_open(out, framework="numpy") as f:
        meta = f.metadata()
    assert meta["convention"] == "whisper" and meta["d"] == "64" and meta["start"] == "0"
    assert meta["base"] == "10000.0" and meta["dtype"] == dtype
    assert meta["pecli_version"] == pecli.__version__
    found = verdicts(run_cli, str(out))["positional_encoding"]
    assert found["metadata"] == "agrees (bit for bit)"
    assert found["identification"]["storage"] == dtype


@pytest.mark.parametrize(
    "args",
    [
        ["--convention", "mlx", "--d", "8"],  # amplitude sqrt(2/d): no pair on the unit circle
        ["--convention", "diffusers", "--angle-scale", "1000", "--d", "16"],
        ["--convention", "distilbert", "--d", "9", "--dtype", "float16"],
    ],  # odd d ending in a sine
    ids=["mlx", "diffusers-scale", "distilbert-odd"],
)
def test_pecli_tables_with_every_knob_are_known_by_their_metadata(run_cli, tmp_path, args):
    out = tmp_path / "pe.safetensors"
    assert run_cli("compute", *args, "--n", "50", "-o", str(out), "-q").exit_code == 0
    with safe_open(out, framework="numpy") as f:  # the knobs are recorded, so it rebuilds
        meta = f.metadata()
    assert {"odd_d", "angle_scale", "full_turns", "amplitude"} <= set(meta)
    found = verdicts(run_cli, str(out))["positional_encoding"]
    assert found["metadata"] == "agrees (bit for bit)"
    assert found["verdict"] == "identified"  # before: "not sinusoidal" for mlx
    assert found["residual"] == 0.0  # rebuilt bit for bit: nothing left over


def test_the_key_names_the_tensor(run_cli, tmp_path):
    out = tmp_path / "pe.safetensors"
    assert run_cli("compute", "--d", "8", "--n", "4", "--key", "pe", "-o", str(out)).exit_code == 0
    assert list(load_file(out)) == ["pe"]


def test_metadata_that_disagrees_with_the_numbers_is_said(run_cli, tmp_path):
    out = tmp_path / "pe.safetensors"
    assert (
        run_cli(
            "compute", "--convention", "pytorch", "--d", "16", "--n", "30", "-o", str(out)
        ).exit_code
        == 0
    )
    with safe_open(out, framework="numpy") as f:
        meta, table = f.metadata(), f.get_tensor("positional_encoding")
    save_file({"positional_encoding": table}, out, metadata={**meta, "start": "1"})
    found = verdicts(run_cli, str(out))["positional_encoding"]
    assert found["verdict"] == "identified" and found["identification"]["start"] == 0
    assert found["metadata"].startswith("disagrees: values differ by up to")
    save_file({"positional_encoding": table}, out, metadata={**meta, "dtype": "float16"})
    found = verdicts(run_cli, str(out))["positional_encoding"]
    assert found["metadata"] == "disagrees: metadata says dtype float16, stored float32"


@pytest.mark.parametrize(
    ("args", "option", "words"),
    [
        (["--dtype", "bfloat16", "-o", "{tmp}/pe.npy"], "--dtype", ".safetensors"),
        (["--dtype", "bfloat16", "-o", "{tmp}/pe.csv"], "--dtype", ".safetensors"),
        (["--dtype", "bfloat16"], "--dtype", "csv cannot hold it"),
        (["--key", "pe", "-o", "{tmp}/pe.npy"], "--key", ".safetensors output only"),
        (["--key", "__metadata__", "-o", "{tmp}/pe.safetensors"], "--key", "not starting with __"),
        (["--n", "100000000", "-o", "{tmp}/pe.safetensors"], "--n", "within 1 GiB"),
    ],
)
def test_bad_requests_are_one_line_status_2_and_write_nothing(
    run_cli, tmp_path, args, option, words
):
    result = run_cli("compute", *[a.format(tmp=tmp_path) for a in args])
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and f"'{option}'" in result.stderr
    assert words in result.stderr and result.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_float16_npy_holds_the_rounded_table(run_cli, tmp_path):
    out = tmp_path / "pe.npy"
    assert (
        run_cli("compute", "--d", "8", "--n", "5", "--dtype", "float16", "-o", str(out)).exit_code
        == 0
    )
    table = np.load(out)
    assert table.dtype == np.float16
    np.testing.assert_array_equal(table, pecli.encoding_table(d=8, n=5, dtype="float16"))


#: Runs a command and prints the peak resident memory (KiB) of its processes alone.
PEAK = (
    "import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], capture_output=True);"
    "sys.stderr.buffer.write(done.stdout);"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(done.returncode)"
)
#: One learned tensor of the large checkpoint: 8192 × 8192 float32.
LEARNED_BYTES = 8192 * 8192 * 4


@pytest.fixture(scope="module")
def large_checkpoint(tmp_path_factory) -> Iterator[str]:
    """~0.94 GB: three 256 MiB learned matrices, a 128 MiB vector and Whisper's table.

    The matrices are zeros but for their first 64 rows of random values (untouched zero pages
    cost no memory here); what identify reads of them is what a real checkpoint would show.
    """
    rng = np.random.default_rng(5)
    tensors = {}
    for i in range(3):
        weight = np.zeros((8192, 8192), np.float32)
        weight[:64] = 0.02 * rng.standard_normal((64, 8192), dtype=np.float32)
        tensors[f"layers.{i}.mlp.weight"] = weight
    tensors["embed_tokens.bias"] = np.zeros(1 << 25, np.float32)
    tensors["encoder.embed_positions.weight"] = library_table("whisper", 1500, 384)
    folder = tmp_path_factory.mktemp("large")
    save_file(tensors, folder / "model.safetensors")
    del tensors
    yield str(folder / "model.safetensors")
    shutil.rmtree(folder)  # 899 MiB: never left in the temp folder (retention keeps factory dirs)


def test_a_large_checkpoint_is_scanned_in_the_memory_of_its_table(large_checkpoint, pecli_cmd):
    import subprocess
    import sys

    command = [*pecli_cmd, "identify", large_checkpoint, "--json"]
    done = subprocess.run(
        [sys.executable, "-c", PEAK, *command], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    found = {f["key"]: f for f in json.loads(done.stderr)}
    assert found["encoder.embed_positions.weight"]["verdict"] == "identified"
    assert [found[f"layers.{i}.mlp.weight"]["verdict"] for i in range(3)] == ["not sinusoidal"] * 3
    assert found["embed_tokens.bias"]["verdict"] == "skipped"
    peak = int(done.stdout) * 1024
    assert peak < LEARNED_BYTES, f"peak {peak / 2**20:.0f} MiB: a learned tensor was read whole"


#: Checkpoints saved by transformers / safetensors (tools/library_fixtures/generate_checkpoints.py).
LIBRARY_CHECKPOINTS = Path(__file__).parent.parent / "fixtures" / "libraries" / "checkpoints"
#: The preset each model's sinusoidal tables follow, by the fixture's first word.
MODEL_PRESETS = {"whisper": "whisper", "marian": "hf-marian"}


@pytest.mark.parametrize(
    "provenance", sorted(LIBRARY_CHECKPOINTS.glob("*.json")), ids=lambda path: path.stem
)
def test_the_tables_of_checkpoints_saved_by_the_libraries_are_found(run_cli, provenance):
    meta = json.loads(provenance.read_text(encoding="utf-8"))
    assert (LIBRARY_CHECKPOINTS / meta["file"]).stat().st_size <= 1 << 20
    found = verdicts(run_cli, str(LIBRARY_CHECKPOINTS / meta["file"]))
    identified = sorted(key for key, f in found.items() if f["verdict"] == "identified")
    assert identified == meta["sinusoidal"]  # which tensors the library fills with sinusoids
    preset = MODEL_PRESETS[provenance.stem.split("_")[0]]
    for key in identified:
        reading = found[key]["identification"]
        assert preset in reading["presets"], reading["presets"]
        assert reading["start"] == 0 and reading["storage"] == meta["dtype"]
    learned = {f["verdict"] for key, f in found.items() if key not in identified}
    assert learned == {"not sinusoidal", "skipped"}


def test_npz_members_are_read_by_their_headers_and_never_mapped(tmp_path):
    from pecli.io.checkpoints import open_checkpoint

    table = np.asfortranarray(library_table("whisper", 30, 8))
    np.savez(tmp_path / "plain.npz", pe=table, steps=np.arange(3), obj=np.array([{}], dtype=object))
    np.savez_compressed(tmp_path / "packed.npz", pe=table)
    with open_checkpoint(str(tmp_path / "plain.npz")) as checkpoint:
        heads = {t.key: (t.shape, t.dtype) for t in checkpoint.tensors}
        assert heads == {
            "pe": ((30, 8), "float32"),
            "steps": ((3,), "int64"),
            "obj": ((1,), "object"),
        }
        read = checkpoint.load("pe")  # a memory map would end with SIGBUS on a shrinking file
        assert not isinstance(read, np.memmap) and np.array_equal(read, table)
        assert np.array_equal(checkpoint.part("pe", (slice(0, 5), slice(2, 4))), table[:5, 2:4])
        c_order = checkpoint.part("steps", (slice(1, 3),))  # only rows 1 and 2 are read
        assert np.array_equal(c_order, [1, 2])
    with open_checkpoint(str(tmp_path / "packed.npz")) as checkpoint:
        read = checkpoint.load("pe")
        assert not isinstance(read, np.memmap) and np.array_equal(read, table)


def test_rotary_buffers_in_a_checkpoint_point_to_rope_identify(run_cli, tmp_path):
    inv_freq = 1 / 10000.0 ** (np.arange(0, 64, 2) / 64)
    path = tmp_path / "llama.safetensors"
    embed = np.asarray(slow_formulas.vaswani(20, 8), dtype=np.float32)
    key = "model.layers.0.self_attn.rotary_emb.inv_freq"
    save_file({key: inv_freq.astype(np.float32), "embed": embed}, path)
    result = run_cli("identify", str(path))
    assert result.exit_code == 0, result.stderr
    hint = f"pecli rope identify {path} --tensor {key}"
    assert hint in " ".join(result.stdout.split())  # before: only "1 tensors skipped"


def test_key_on_a_table_file_says_it_applies_to_checkpoints_only(run_cli, tmp_path):
    np.save(tmp_path / "w.npy", library_table("pytorch", 20, 8))
    result = run_cli("identify", str(tmp_path / "w.npy"), "--key", "pe")
    assert result.exit_code == 2, result.output
    assert "'--key'" in result.stderr and "applies only to .safetensors and .npz files" in (
        result.stderr
    )
    assert "header too large" not in result.stderr


def _truncated_npz(path: Path, table: np.ndarray, compression: int) -> None:
    """An archive whose member declares ``table``'s shape but holds 100 bytes fewer."""
    import io
    import zipfile

    buffer = io.BytesIO()
    np.save(buffer, table)
    with zipfile.ZipFile(path, "w", compression) as archive:
        archive.writestr("pe.npy", buffer.getvalue()[:-100])


@pytest.mark.parametrize("case", ["nan", "inf", "int", "stored", "deflated"])
def test_key_verdicts_say_what_the_tensor_is(run_cli, tmp_path, case):
    import zipfile

    table = library_table("pytorch", 20, 8)
    out = tmp_path / "m.npz"
    if case in ("nan", "inf"):
        table[15, 3] = np.nan if case == "nan" else np.inf  # below the screened rows too
        np.savez(out, pe=table)
    elif case == "int":
        np.savez(out, pe=(table * 100).astype(np.int32))
    else:
        compression = zipfile.ZIP_STORED if case == "stored" else zipfile.ZIP_DEFLATED
        _truncated_npz(out, table, compression)
    words = {"int": "not a float table"}.get(case, "holds NaN/inf values")
    words = "truncated" if case in ("stored", "deflated") else words
    result = run_cli("identify", str(out), "--key", "pe")
    assert result.exit_code == 1, result.output
    assert words in result.stdout and words in result.stderr
    assert "matches no convention" not in result.stderr
    assert "no column pairs" not in result.stdout and "not float tables" not in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--d", "8", "--n", "3", "--start", "1", "--dtype", "bfloat16"],  # narrow: the fit is not
        [
            "--convention",
            "diffusers",
            "--flip-sin-to-cos",
            "--d",
            "9",
            "--n",
            "5",
            "--angle-scale",
            "1000",
            "--dtype",
            "float16",
        ],
        ["--convention", "mlx", "--d", "16", "--n", "20"],
    ],
    ids=["narrow-bf16", "diffusers-knobs", "mlx"],
)
def test_the_rebuild_command_of_a_pecli_checkpoint_makes_the_same_bytes(
    run_cli, tmp_path, monkeypatch, args
):
    import shlex

    monkeypatch.chdir(tmp_path)
    assert run_cli("compute", *args, "-o", "orig.safetensors", "-q").exit_code == 0
    lines = run_cli("identify", "orig.safetensors").stdout.splitlines()
    (command,) = [line.split("rebuild with ", 1)[1] for line in lines if "rebuild with" in line]
    assert run_cli(*shlex.split(command)[1:], "-q").exit_code == 0  # writes pe.safetensors
    assert load_file("pe.safetensors").keys() == load_file("orig.safetensors").keys()
    with safe_open("pe.safetensors", "numpy") as a, safe_open("orig.safetensors", "numpy") as b:
        key = "positional_encoding"
        assert a.get_tensor(key).tobytes() == b.get_tensor(key).tobytes()


def test_an_open_note_is_shown_unless_pecli_s_metadata_rebuilds_the_table(run_cli, tmp_path):
    # pytorch's table, d = 4, positions 100 and 101, in bfloat16: the reference formulas give
    # the same bits from position 410392, so the start is open. With no metadata the rebuild
    # line carries that note; beside pecli's bit-for-bit rebuild from its metadata it does not.
    def table(start: int) -> np.ndarray:
        return np.array(slow_formulas.preset_table("pytorch", 2, 4, 10000.0, start)).astype(BF16)

    assert table(100).tobytes() == table(410392).tobytes() != table(101).tobytes()
    save_file({"positional_encoding": table(100)}, tmp_path / "bare.safetensors")
    out = " ".join(run_cli("identify", str(tmp_path / "bare.safetensors")).stdout.split())
    assert "rebuild with" in out and "(note: " in out
    assert "the rows are the same from positions 100, 410392," in out.split("(note: ", 1)[1]
    own = tmp_path / "own.safetensors"
    args = ["--d", "4", "--n", "2", "--start", "100", "--dtype", "bfloat16", "-q"]
    assert run_cli("compute", *args, "-o", str(own)).exit_code == 0
    out = " ".join(run_cli("identify", str(own)).stdout.split())
    assert "pecli's metadata agrees (bit for bit)" in out and "rebuild with" in out
    assert "note:" not in out and "not determined" not in out


def test_a_part_reads_only_the_rows_of_its_first_sliced_axis(tmp_path, monkeypatch):
    """(1, 4096, 8): the leading axis of 1 is skipped, rows 5 … 7 of axis 1 are the read."""
    from pecli.io.checkpoints import open_checkpoint
    from pecli.io.reading.safetensors_file import SafetensorsFile

    pe = np.arange(4096 * 8, dtype=np.float32).reshape(1, 4096, 8)
    save_file({"pe": pe}, str(tmp_path / "m.safetensors"))
    read, shapes = SafetensorsFile.read, []

    def spy(*args: object) -> np.ndarray:
        shapes.append((array := read(*args)).shape)
        return array

    monkeypatch.setattr(SafetensorsFile, "read", spy)
    every = slice(None)
    with open_checkpoint(str(tmp_path / "m.safetensors")) as checkpoint:
        rows = checkpoint.part("pe", (every, slice(5, 8), slice(2, 4)))
    # entry (0, r, c) is 8·r + c: rows 5 … 7, columns 2 and 3, written out by hand
    assert rows.tolist() == [[[42.0, 43.0], [50.0, 51.0], [58.0, 59.0]]]
    assert shapes[0] == (1, 3, 8)  # 3 rows of 8 read, not the 4096


def test_a_part_with_fewer_slices_than_axes_is_numpy_s_indexing(tmp_path):
    from pecli.io.checkpoints import open_checkpoint

    save_file({"x": np.float32([[[1, 2, 3]]])}, str(tmp_path / "m.safetensors"))  # (1, 1, 3)
    with open_checkpoint(str(tmp_path / "m.safetensors")) as checkpoint:
        assert checkpoint.part("x", (slice(None), slice(None))).tolist() == [[[1, 2, 3]]]
        assert checkpoint.part("x", (slice(None), slice(0, 1), slice(1, 3))).tolist() == [[[2, 3]]]


def test_read_arrays_takes_every_tensor_with_the_metadata_or_a_csv_table(tmp_path):
    from pecli.io.reading.arrays import read_arrays

    first, second = np.eye(2, dtype=np.float32), np.arange(3, dtype=np.float64)
    save_file({"a": first, "b": second}, str(tmp_path / "m.safetensors"), metadata={"k": "v"})
    arrays, metadata = read_arrays(str(tmp_path / "m.safetensors"))
    assert sorted(arrays) == ["a", "b"] and metadata == {"k": "v"}
    assert arrays["a"].tolist() == [[1.0, 0.0], [0.0, 1.0]] and arrays["b"].tolist() == [0, 1, 2]
    (tmp_path / "t.csv").write_text("x,y\n1.5,2\n3,4.25\n", encoding="utf-8")
    arrays, metadata = read_arrays(str(tmp_path / "t.csv"))
    assert arrays["table"].tolist() == [[1.5, 2.0], [3.0, 4.25]] and metadata == {}


@pytest.mark.parametrize(
    ("dtype", "value", "nonfinite"),
    [
        (np.float64, 1e300, False),  # finite in float64, inf once cast to float32
        (np.float64, 3.5e38, False),  # just past float32's largest, 3.4028235e38
        (np.float64, np.inf, True),
        (np.float32, np.nan, True),
        (np.float16, np.inf, True),
        (ml_dtypes.bfloat16, np.inf, True),
        (ml_dtypes.bfloat16, 3e38, False),
    ],  # bfloat16 reaches float32's range
)
def test_a_value_is_non_finite_in_its_own_dtype(run_cli, tmp_path, dtype, value, nonfinite):
    table = library_table("pytorch", 100, 8, np.float64)
    table[80, 3] = value  # below the 64 screened rows: the whole table's check decides
    save_file({"pe": table.astype(dtype)}, str(tmp_path / "m.safetensors"))
    result = run_cli("identify", str(tmp_path / "m.safetensors"), "--key", "pe")
    assert result.exit_code == 1 and "internal error" not in result.stderr, result.output
    assert ("holds NaN/inf values" in result.stderr) == nonfinite


def test_a_big_endian_array_is_written_little_endian_as_safetensors_requires(tmp_path):
    from pecli.io.tensors import write_safetensors

    values = np.array([1.5, -2.0, 3.25], dtype=">f4")
    write_safetensors({"w": values}, output=tmp_path / "w.safetensors")
    read = load_file(str(tmp_path / "w.safetensors"))["w"]  # the safetensors library's reader
    assert read.dtype == np.dtype("<f4") and read.tolist() == [1.5, -2.0, 3.25]


def _npz_spy(monkeypatch) -> list[tuple[object, tuple[int, ...]]]:
    """Each NpzFile.read: the rows asked for and the shape of what was read."""
    from pecli.io.reading.npz_file import NpzFile

    read, calls = NpzFile.read, []

    def spy(self, key: str, rows: slice | None = None, axis: int = 0) -> np.ndarray:
        calls.append((rows, (array := read(self, key, rows, axis)).shape))
        return array

    monkeypatch.setattr(NpzFile, "read", spy)
    return calls


def test_a_part_of_a_stored_npz_member_reads_its_rows_and_a_compressed_one_is_read_once(
    tmp_path, monkeypatch
):
    """Stored: only rows 5 … 7 of 4096 are read; compressed: read whole once, its parts cut
    from that one copy (a zip member cannot be read from the middle)."""
    from pecli.io.checkpoints import open_checkpoint

    pe = np.arange(4096 * 8, dtype=np.float32).reshape(4096, 8)  # entry (r, c) is 8·r + c
    np.savez(tmp_path / "stored.npz", pe=pe)
    np.savez_compressed(tmp_path / "packed.npz", pe=pe)
    calls = _npz_spy(monkeypatch)
    with open_checkpoint(str(tmp_path / "stored.npz")) as checkpoint:
        rows = checkpoint.part("pe", (slice(5, 8), slice(2, 4)))
        step_one = checkpoint.part("pe", (slice(5, 8, 1), slice(2, 4)))
    assert rows.tolist() == step_one.tolist() == [[42.0, 43.0], [50.0, 51.0], [58.0, 59.0]]
    assert calls == [(slice(5, 8), (3, 8)), (slice(5, 8, 1), (3, 8))]
    calls.clear()
    with open_checkpoint(str(tmp_path / "packed.npz")) as checkpoint:
        first = checkpoint.part("pe", (slice(5, 8), slice(2, 4)))
        later = checkpoint.part("pe", (slice(4095, 4096), slice(0, 1)))
    assert first.tolist() == rows.tolist() and later.tolist() == [[8.0 * 4095]]
    assert calls == [(None, (4096, 8))]


def test_a_part_with_a_step_reads_the_tensor_whole(tmp_path, monkeypatch):
    from pecli.io.checkpoints import open_checkpoint

    pe = np.arange(40, dtype=np.float64).reshape(10, 4)
    np.savez(tmp_path / "m.npz", pe=pe)
    calls = _npz_spy(monkeypatch)
    with open_checkpoint(str(tmp_path / "m.npz")) as checkpoint:
        every_other = checkpoint.part("pe", (slice(0, 10, 2), slice(1, 2)))
    assert every_other.ravel().tolist() == [1.0, 9.0, 17.0, 25.0, 33.0]
    assert calls == [(None, (10, 4))]


def test_is_checkpoint_goes_by_suffix_then_by_the_first_bytes(tmp_path):
    from pecli.io.checkpoints import is_checkpoint

    save_file({"x": np.zeros(2, np.float32)}, str(tmp_path / "weights"))  # no suffix
    with open(tmp_path / "arrays.bin", "wb") as handle:  # a zip archive under another name
        np.savez(handle, x=np.zeros(2))
    (tmp_path / "table.txt").write_text("1,2\n3,4\n", encoding="utf-8")
    assert is_checkpoint(str(tmp_path / "weights")) and is_checkpoint(str(tmp_path / "arrays.bin"))
    assert is_checkpoint(str(tmp_path / "missing.NPZ"))  # the suffix alone, any case
    assert not is_checkpoint(str(tmp_path / "table.txt"))
    assert not is_checkpoint("-") and not is_checkpoint(str(tmp_path / "missing"))
    assert not is_checkpoint(str(tmp_path))  # a folder


def test_a_folder_is_refused_before_it_is_opened_as_a_checkpoint(tmp_path):
    from pecli.io.checkpoints import open_checkpoint

    with pytest.raises(ParameterError) as caught, open_checkpoint(str(tmp_path), parameter="file"):
        pass
    assert caught.value.parameter == "file" and "is a folder: a checkpoint" in str(caught.value)


def test_blocks_short_of_their_shape_are_refused_and_no_file_is_left(tmp_path):
    from pecli.io.tensors import write_safetensors_parts

    out = tmp_path / "t.safetensors"
    parts = [("x", np.dtype("float32"), (3, 2), [np.zeros((2, 2), np.float32)])]
    with pytest.raises(ValueError, match="tensor x got 16 bytes, expected 24"):
        write_safetensors_parts(parts, output=out)
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_a_dtype_safetensors_does_not_store_is_refused_by_name(tmp_path):
    from pecli.io.tensors import write_safetensors

    with pytest.raises(ParameterError, match="holds tensor z of unsupported dtype"):
        write_safetensors({"z": np.zeros(2, np.complex64)}, output=tmp_path / "z.safetensors")
    assert list(tmp_path.iterdir()) == []


def test_read_arrays_takes_one_named_tensor_and_lists_the_rest_when_it_is_missing(tmp_path):
    from pecli.io.reading.arrays import read_arrays

    names = [f"t{i:02d}" for i in range(10)]
    save_file(
        {n: np.full(2, i, np.float32) for i, n in enumerate(names)},
        str(tmp_path / "m.safetensors"),
        metadata={"k": "v"},
    )
    arrays, metadata = read_arrays(str(tmp_path / "m.safetensors"), tensor="t03")
    assert (
        list(arrays) == ["t03"] and arrays["t03"].tolist() == [3.0, 3.0] and metadata == {"k": "v"}
    )
    with pytest.raises(ParameterError) as caught:
        read_arrays(str(tmp_path / "m.safetensors"), tensor="t99")
    shown = ", ".join(names[:8]) + ", … and 2 more"
    assert caught.value.parameter == "tensor" and f"(it has: {shown})" in str(caught.value)
    np.save(tmp_path / "t.npy", np.eye(2))
    with pytest.raises(
        ParameterError, match=r"applies only to \.safetensors, \.npz and \.gguf files"
    ):
        read_arrays(str(tmp_path / "t.npy"), tensor="t03")
    assert read_arrays(str(tmp_path / "t.npy"))[0]["table"].tolist() == [[1, 0], [0, 1]]


@pytest.mark.parametrize(
    ("shape", "ok"),
    [((5,), True), ((5, 1), True), ((1, 5), True), ((2, 3), False), ((1, 1, 5), False)],
)
def test_as_vector_takes_a_row_or_a_column_and_nothing_wider(shape, ok):
    from pecli.io.tensors import as_vector

    table = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    if ok:
        assert as_vector(table).tolist() == list(range(table.size))
    else:
        with pytest.raises(ParameterError) as caught:
            as_vector(table, parameter="file")
        assert str(caught.value) == f"file must hold one vector (got 'shape {shape}')"


@pytest.mark.parametrize(("count", "more"), [(8, ""), (9, ", … and 1 more")])
def test_a_missing_key_lists_eight_names_and_counts_the_rest(tmp_path, count, more):
    from pecli.io.checkpoints import open_checkpoint
    from pecli.io.tensors import missing_tensor

    names = [f"t{i}" for i in range(count)]
    save_file({n: np.zeros(1, np.float32) for n in names}, str(tmp_path / "m.safetensors"))
    with (
        pytest.raises(ParameterError) as caught,
        open_checkpoint(str(tmp_path / "m.safetensors")) as c,
    ):
        c.info("nope")
    shown = f"(it has: {', '.join(names[:8])}{more})"
    assert shown in str(caught.value)
    assert shown in str(missing_tensor("m.safetensors", names, "nope"))


def test_tensors_written_one_after_the_other_are_read_back_by_safetensors(tmp_path):
    from pecli.io.tensors import write_safetensors_parts

    cos, sin = np.arange(6, dtype=np.float32).reshape(3, 2), -np.arange(6.0).reshape(3, 2)
    parts = [
        ("cos", cos.dtype, cos.shape, [cos[:2], cos[2:]]),
        ("sin", sin.dtype, sin.shape, [sin]),
    ]
    write_safetensors_parts(parts, output=tmp_path / "t.safetensors", metadata={"k": "v"})
    back = load_file(str(tmp_path / "t.safetensors"))
    assert np.array_equal(back["cos"], cos) and np.array_equal(back["sin"], sin)
    with safe_open(str(tmp_path / "t.safetensors"), "numpy") as handle:
        assert handle.metadata() == {"k": "v"}


@pytest.mark.parametrize(
    "tensors",
    [
        {"x": np.arange(6, dtype=np.float32).reshape(2, 3)},
        {"x": np.zeros((0, 4), np.float32)},
        {"a": np.ones(3, np.float64), "b": np.arange(4, dtype=np.int16)},
    ],
    ids=["one", "empty", "two"],
)
@pytest.mark.parametrize("metadata", [{}, {"k": "é位"}], ids=["bare", "utf8"])
def test_a_written_file_is_byte_for_byte_what_safetensors_writes(tmp_path, tensors, metadata):
    """The header as the library writes it: compact UTF-8 JSON (not \\u escapes), padded with
    spaces to a multiple of 8, offsets in order; an empty tensor writes no bytes."""
    from pecli.io.tensors import write_safetensors

    save_file(tensors, str(tmp_path / "theirs.safetensors"), metadata=metadata or None)
    write_safetensors(tensors, output=tmp_path / "ours.safetensors", metadata=metadata)
    ours, theirs = ((tmp_path / f"{w}.safetensors").read_bytes() for w in ("ours", "theirs"))
    assert ours == theirs


def _numpy_table(n: int, d: int, first: int = 1) -> np.ndarray:
    """sin/cos of the article, interleaved, written with NumPy alone (the oracle)."""
    p = np.arange(first, first + n, dtype=np.float64)[:, None]
    omega = 10000.0 ** (-np.arange(0, d, 2) / d)
    table = np.empty((n, d))
    table[:, 0::2], table[:, 1::2] = np.sin(p * omega), np.cos(p * omega)
    return table


@pytest.mark.parametrize("d", [2, 8])
def test_the_screen_sees_a_table_stored_with_its_components_as_rows(d):
    from pecli.analysis.checkpoints.screen import columns_residual

    table = _numpy_table(40, d).T  # (d, n): a tensor of width d read as rows of components
    assert columns_residual(lambda r, c: table[r, c], d, 40) < 1e-12
    other = np.full((d, 40), 0.3)
    assert columns_residual(lambda r, c: other[r, c], d, 40) > 0.5


def test_the_screen_gives_no_residual_to_a_table_holding_a_nan():
    from pecli.analysis.checkpoints.screen import circle_residual

    table = _numpy_table(20, 8)
    assert circle_residual(table) < 1e-12
    table[3, 5] = np.nan
    assert circle_residual(table) == np.inf


def test_the_screen_residual_is_the_largest_off_the_circle_of_the_best_layout():
    """[sin | cos] of ω_i = 10000^(-2i/8), positions 0…19, written here, with sin(5·ω_0) =
    sin 5 made 1.001 times too large: its pair is off the circle by (1.001² − 1)·sin² 5, every
    other entry is on it, and every other layout is far off (more than 0.5)."""
    from pecli.analysis.checkpoints.screen import circle_residual

    angles = np.outer(np.arange(20.0), 10000.0 ** (-np.arange(4) / 4))
    table = np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
    table[5, 0] *= 1.001
    expected = (1.001**2 - 1) * math.sin(5.0) ** 2  # 0.0018399…
    assert circle_residual(table) == pytest.approx(expected, rel=1e-9)


def test_the_screen_of_transposed_rows_reads_position_0():
    """[sin | cos] of d = 8 written here, transposed to rows of components; position 0's
    sin ω_0 and cos ω_0 (0 and 1) made 0.6 and 0.6: that pair is off the circle by
    |0.36 + 0.36 − 1| = 0.28, the best layout's largest residual (by hand)."""
    from pecli.analysis.checkpoints.screen import columns_residual

    angles = np.outer(np.arange(40.0), 10000.0 ** (-np.arange(4) / 4))
    table = np.concatenate([np.sin(angles), np.cos(angles)], axis=1).T  # (8, 40)
    table[0, 0] = table[4, 0] = 0.6
    residual = columns_residual(lambda r, c: table[r, c], 8, 40)
    assert residual == pytest.approx(0.28, abs=1e-12)


def test_the_screen_reads_a_single_row_and_refuses_a_single_column():
    """One row, position 7 of [sin | cos] of d = 8 written here: on the circle (a residual
    of rounding only); with its first sine made 0.6 and cosine 0.6, 0.28 off (by hand). One
    column pairs nothing: no residual (infinite)."""
    from pecli.analysis.checkpoints.screen import circle_residual

    angles = 7.0 * 10000.0 ** (-np.arange(4) / 4)
    row = np.concatenate([np.sin(angles), np.cos(angles)])[None, :]
    assert circle_residual(row) < 1e-12
    row[0, 0] = row[0, 4] = 0.6
    assert circle_residual(row) == pytest.approx(0.28, abs=1e-12)
    assert circle_residual(np.full((5, 1), 0.5)) == math.inf


def test_the_screen_sets_aside_an_odd_widths_last_column_of_zeros():
    """[sin | cos] of d = 10 (written here) and an eleventh column of zeros, as a padded
    table: the zeros set aside, the ten columns pair on the circle (rounding only)."""
    from pecli.analysis.checkpoints.screen import circle_residual

    angles = np.outer(np.arange(30.0), 10000.0 ** (-np.arange(5) / 5))
    table = np.concatenate([np.sin(angles), np.cos(angles), np.zeros((30, 1))], axis=1)
    assert circle_residual(table) < 1e-12


def test_the_screen_pairs_a_width_with_no_grid_layout_in_its_own_layouts():
    from pecli.analysis.checkpoints.screen import circle_residual

    interleaved = _numpy_table(20, 10)
    half_split = np.concatenate([interleaved[:, 0::2], interleaved[:, 1::2]], axis=1)
    assert circle_residual(half_split) < 1e-12  # [sin | cos] of d = 10: no grid preset's blocks


def test_the_screen_of_transposed_rows_needs_every_pair_of_a_layout_on_the_circle():
    from pecli.analysis.checkpoints.screen import columns_residual

    p = np.arange(1, 41, dtype=np.float64)
    rows = np.full((8, 40), 0.3)
    rows[0], rows[4] = np.sin(p), np.cos(p)  # one half-split pair; rows 1 and 5 are not one
    assert columns_residual(lambda r, c: rows[r, c], 8, 40) > 0.5


def test_zero_rows_are_no_circle_and_a_zero_matrix_is_scanned(run_cli, tmp_path):
    """Rows 0, 1, h, h + 1 all zero (a bias-like matrix, a table's padding columns): no pair of
    them is on the circle, so no residual (inf); the scan of a zero matrix gives a verdict."""
    from pecli.analysis.checkpoints.screen import columns_residual

    zeros = np.zeros((8, 40))
    assert columns_residual(lambda r, c: zeros[r, c], 8, 40) == np.inf
    save_file({"w": zeros.astype(np.float32)}, str(tmp_path / "z.safetensors"))
    found = verdicts(run_cli, str(tmp_path / "z.safetensors"))
    assert found["w"]["verdict"] == "not sinusoidal", found


def test_a_grid_whose_width_cuts_a_pair_is_screened_on_its_whole_pairs():
    """positional-encodings' 3-D table at d = 13 ends on a lone sine: its pairs still circle.

    ``PositionalEncoding3D(13)`` gives each axis ceil(13/6)·2 = 6 channels, ``[sin, cos]``
    interleaved per frequency 10000^(-k/6), k = 0, 2, 4, and cuts the 18 to 13: column 12 is
    the z axis's first sine, whose cosine is cut off. Built here in a slow loop from that
    formula; the screen must pair only the whole pairs (sin² + cos² = 1 to rounding).
    """
    from pecli.analysis.checkpoints.screen import circle_residual

    inv = [10000.0 ** (-k / 6) for k in (0, 2, 4)]
    rows = []
    for x, y, z in np.ndindex(3, 4, 5):
        row = [f(p * w) for p in (x, y, z) for w in inv for f in (math.sin, math.cos)]
        rows.append(row[:13])
    assert circle_residual(np.array(rows)) < 1e-12
