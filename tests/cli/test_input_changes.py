"""An input cut short while ``add`` reads it is an error naming it, never a crash (issue 12, 3e).

With a memory map, truncating the input mid-run ended pecli with SIGBUS (status 135) and left a
266 MB ``.part`` file; rows are now read with ``pread``, block by block.
"""

from __future__ import annotations

import os
import subprocess
import time

import numpy as np


def test_a_truncated_input_is_named_and_leaves_nothing(pecli_cmd, tmp_path):
    source = tmp_path / "big.npy"
    table = np.lib.format.open_memmap(source, mode="w+", dtype=np.float32, shape=(400_000, 128))
    table[:] = 1.0
    table.flush()
    del table
    out = tmp_path / "out.npy"
    proc = subprocess.Popen(
        [*pecli_cmd, "add", str(source), "-o", str(out), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60  # a loaded machine may take seconds to get going
    while not list(tmp_path.glob(".out.npy.*.part")) and time.monotonic() < deadline:
        time.sleep(0.005)  # the part file appears once the header has been read
    assert proc.poll() is None  # still reading: the cut falls in the middle of the run
    os.truncate(source, source.stat().st_size // 8)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2, stderr
    assert "changed while it was read" in stderr and stderr.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.npy"]


def test_a_short_file_found_while_reading_is_named(tmp_path):
    """The same check in process: the header promises more rows than the file holds."""
    import pytest

    from pecli import ParameterError
    from pecli.io.reading import read_matrix

    source = tmp_path / "x.npy"
    np.save(source, np.ones((1000, 8)))
    matrix = read_matrix(str(source))
    os.truncate(source, source.stat().st_size - 8 * 8 * 10)
    with pytest.raises(ParameterError, match="changed while it was read"):
        list(matrix.blocks(rows=100))


def test_an_output_folder_renamed_mid_run_keeps_no_part_file(pecli_cmd, tmp_path):
    """The temporary file is removed through the folder's descriptor, wherever it went."""
    import signal

    folder = tmp_path / "out"
    folder.mkdir()
    proc = subprocess.Popen(
        [*pecli_cmd, "compute", "--d", "512", "--n", "400000", "-o", str(folder / "t.npy"), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    time.sleep(0.5)
    assert proc.poll() is None  # still writing: the rename falls in the middle of the run
    folder.rename(tmp_path / "moved")
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == 143
    assert list((tmp_path / "moved").iterdir()) == []


def test_a_lying_npy_header_on_stdin_is_called_truncated(pecli_cmd, tmp_path):
    """A header promising 4 PiB on a pipe is not a 'not enough room' failure (issue 12, 3f)."""
    import io

    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (2**40, 1024)}
    )
    result = subprocess.run(
        [*pecli_cmd, "add", "--format", "npy", "-o", str(tmp_path / "out.npy")],
        input=header.getvalue() + bytes(16384),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2 and b"truncated .npy stream" in result.stderr
    assert list(tmp_path.iterdir()) == []
