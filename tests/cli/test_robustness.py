"""pecli as a Unix tool: pipes, signals, atomic files, locale, terminals, disk room, memory.

Most of these run the installed ``pecli`` in a subprocess, because a real pipe, signal,
terminal or file system is what they are about.
"""

from __future__ import annotations

import os
import pty
import re
import resource
import select
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import slow_formulas as slow

from pecli import encoding_table
from pecli.io.writing import write_table


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=120, **kwargs)


# -- bad input ------------------------------------------------------------------------------


def test_stray_value_after_a_flag_is_a_usage_error(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_cli("compute", "--d", "4", "--n", "2", "--header", "False", "-o", "t.csv")
    assert result.exit_code == 2 and "False" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_negative_start_parses_as_a_value(run_cli):
    result = run_cli("compute", "--d", "4", "--n", "3", "--start", "-3", "--no-header")
    assert result.exit_code == 0, result.stderr
    values = np.loadtxt(result.stdout.splitlines(), delimiter=",")
    expected = [[np.sin(p), np.cos(p), np.sin(p / 100), np.cos(p / 100)] for p in (-3, -2, -1)]
    np.testing.assert_allclose(values, expected, atol=3e-8)


def test_dash_means_stdout_never_a_file(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_cli("compute", "--d", "4", "--n", "1", "-o", "-")
    assert result.exit_code == 0 and result.stdout.startswith("sin_1,")
    assert list(tmp_path.iterdir()) == []


def test_unwritable_destination_is_one_line_and_leaves_nothing(pecli_cmd, tmp_path):
    # a "folder" that is a file, and a folder no one may create files in (/proc, even root)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for target in (blocker / "t.csv", Path("/proc/pecli-test.csv")):
        result = run([*pecli_cmd, "compute", "--d", "4", "-o", str(target)])
        assert result.returncode in (1, 2), result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_binary_output_is_not_written_to_a_terminal(pecli_cmd):
    main, secondary = pty.openpty()
    try:
        proc = subprocess.run(
            [*pecli_cmd, "compute", "--d", "4", "--format", "npy"],
            stdout=secondary,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(secondary)
        os.close(main)
    assert proc.returncode == 2
    assert "terminal" in proc.stderr and "npy" in proc.stderr


def test_output_does_not_depend_on_the_locale(pecli_cmd):
    outputs = set()
    for loc in ("C", "de_DE.UTF-8", "fr_FR.UTF-8"):
        env = {**os.environ, "LC_ALL": loc, "LANG": loc, "LC_NUMERIC": loc}
        result = run([*pecli_cmd, "compute", "--d", "8", "--n", "5"], env=env)
        assert result.returncode == 0
        outputs.add(result.stdout)
    (text,) = outputs
    assert "," in text and all(len(line.split(",")) == 8 for line in text.splitlines())
    assert "0.84147096" in text  # '.' decimal point


# -- pipes and interruptions ----------------------------------------------------------------


@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_head_closes_the_pipe_and_pecli_ends_quietly(pecli_cmd, unbuffered):
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    cmd = [*pecli_cmd, "compute", "--d", "512", "--n", "100000", "--format", "csv"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # what head does after its first line
    stderr = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 141  # documented: 128 + SIGPIPE
    assert first.startswith(b"sin_1,cos_1,")
    assert stderr == ""


@pytest.mark.parametrize(
    "args",
    [
        ("compute", "--d", "4", "--n", str(10**12)),
        ("grid", "100000", "100000", "--d", "8", "--format", "csv"),
        (
            "rope",
            "cache",
            "--theta",
            "1e4",
            "--head-dim",
            "4",
            "--n",
            str(10**12),
            "--format",
            "csv",
        ),
    ],
    ids=["compute", "grid", "rope-cache"],
)
def test_head_ends_an_endless_table_at_once(pecli_cmd, args):
    """Before: the CSV source kept feeding polars after head left (n = 1e8: 7 s; 1e12: hours)."""
    proc = subprocess.Popen([*pecli_cmd, *args], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(timeout=60) == 141  # ended, and long before it could write 10^12 rows


def start_long_run(pecli_cmd, target: Path) -> subprocess.Popen[bytes]:
    n = "5000000" if target.suffix == ".npy" else "3000000"  # CSV: a minute's work
    cmd = [*pecli_cmd, "compute", "--d", "512", "--n", n, "-o", str(target)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not list(target.parent.glob(f".{target.name}.*.part")):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.3)  # well into the write
    return proc


@pytest.mark.parametrize("suffix", ["npy", "csv"])
@pytest.mark.parametrize(
    ("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)]
)
def test_interrupt_leaves_no_partial_file_and_keeps_the_old_one(
    pecli_cmd, tmp_path, sig, status, suffix
):
    target = tmp_path / f"big.{suffix}"
    target.write_bytes(b"previous result")
    proc = start_long_run(pecli_cmd, target)
    proc.send_signal(sig)
    try:  # acted on at once, not after the table (CSV: the sink runs in its own thread)
        _, stderr = proc.communicate(timeout=15)
    finally:
        proc.kill()
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.returncode == status
    assert b"Traceback" not in stderr
    assert [p.name for p in tmp_path.iterdir()] == [target.name]
    assert target.read_bytes() == b"previous result"


def test_failed_write_keeps_the_old_file(monkeypatch, tmp_path):
    target = tmp_path / "t.npy"
    target.write_bytes(b"old")

    def blocks():
        yield np.zeros((2, 4), np.float32)
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        write_table(
            blocks(), output=target, fmt="npy", shape=(4, 4), dtype=np.dtype("f4"), columns=[]
        )
    assert [p.name for p in tmp_path.iterdir()] == ["t.npy"] and target.read_bytes() == b"old"


# -- streaming --------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["npy", "csv"])
def test_streamed_bytes_equal_the_in_memory_bytes(tmp_path, fmt):
    table = encoding_table(d=16, n=101, start=0)
    names = [f"c{k}" for k in range(16)]
    one, many = tmp_path / f"one.{fmt}", tmp_path / f"many.{fmt}"
    common = {"fmt": fmt, "shape": table.shape, "dtype": table.dtype, "columns": names}
    write_table([table], output=one, **common)
    write_table(np.array_split(table, 13), output=many, **common)
    assert one.read_bytes() == many.read_bytes()


def test_shards_concatenate_to_the_whole_table(run_cli, tmp_path):
    for name, args in {"whole": ["--n", "5000"], "a": ["--n", "2345"]}.items():
        assert (
            run_cli("compute", "--d", "64", *args, "-o", str(tmp_path / f"{name}.npy")).exit_code
            == 0
        )
    args = ["--d", "64", "--n", "2655", "--start", "2346", "-o", str(tmp_path / "b.npy")]
    assert run_cli("compute", *args).exit_code == 0
    shards = [np.load(tmp_path / f"{name}.npy") for name in ("a", "b")]
    np.testing.assert_array_equal(np.concatenate(shards), np.load(tmp_path / "whole.npy"))


def peak_rss_mib(cmd: list[str], **kwargs) -> float:
    code = (
        "import resource, subprocess, sys;"
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL);"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *cmd], capture_output=True, text=True, check=True, **kwargs
    )
    return float(out.stdout)


def test_peak_memory_stays_flat_in_n(pecli_cmd, tmp_path):
    # 200,000 × 512 float32 is a 410 MB file; an in-memory table (plus float64 temporaries)
    # would need well over 1 GB. Streaming keeps the process near its start-up size.
    small = peak_rss_mib(
        [*pecli_cmd, "compute", "--d", "512", "--n", "1000", "-o", str(tmp_path / "s.npy")]
    )
    big = peak_rss_mib(
        [*pecli_cmd, "compute", "--d", "512", "--n", "200000", "-o", str(tmp_path / "b.npy")]
    )
    assert (tmp_path / "b.npy").stat().st_size > 200000 * 512 * 4
    assert big < small + 120, (small, big)
    # CSV: polars' buffers take ~100 MB more than npy, but do not grow with the table
    # (an in-memory 40,000 x 512 CSV would hold ~220 MB of text on top)
    csv = [
        peak_rss_mib([*pecli_cmd, "compute", "--d", "512", "--n", n, "--format", "csv"])
        for n in ("1000", "40000")
    ]
    assert csv[1] < csv[0] + 150, csv


# -- room on the disk -----------------------------------------------------------------------


def test_no_room_is_refused_up_front_naming_both_sizes(run_cli, tmp_path, monkeypatch):
    import shutil

    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage._replace(free=1_000_000))
    result = run_cli("compute", "--d", "512", "--n", "1000", "-o", str(tmp_path / "t.npy"))
    assert result.exit_code == 1
    assert "2048128 bytes" in result.stderr and "1000000 bytes" in result.stderr
    assert list(tmp_path.iterdir()) == []
    csv = run_cli("compute", "--d", "512", "--n", "1000", "-o", str(tmp_path / "t.csv"))
    assert csv.exit_code == 1 and "1000000 bytes" in csv.stderr
    assert (
        run_cli("compute", "--d", "512", "--n", "100", "-o", str(tmp_path / "t.npy")).exit_code == 0
    )


def test_no_room_on_a_real_small_file_system(pecli_cmd, tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True
    ).returncode:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        result = run(
            [*pecli_cmd, "compute", "--d", "512", "--n", "1000", "-o", str(mount / "t.npy")]
        )
        assert result.returncode == 1 and "not enough room" in result.stderr
        assert list(mount.iterdir()) == []
    finally:
        subprocess.run(["umount", str(mount)], check=True)


# -- progress --------------------------------------------------------------------------------


def run_with_terminal_stderr(cmd: list[str], stdout_path: Path) -> tuple[int, bytes]:
    """Run with stderr on a pseudo-terminal; return (status, what the terminal received)."""
    main, secondary = pty.openpty()
    with stdout_path.open("wb") as out:
        proc = subprocess.Popen(
            cmd, stdout=out, stderr=secondary, env={**os.environ, "COLUMNS": "100"}
        )
    os.close(secondary)
    seen = b""
    while True:
        ready, _, _ = select.select([main], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        elif proc.poll() is not None:
            break
    os.close(main)
    return proc.wait(timeout=60), seen


def test_progress_bar_only_on_a_terminal_and_never_in_the_data(pecli_cmd, tmp_path):
    cmd = [*pecli_cmd, "compute", "--d", "512", "--n", "20000", "--format", "npy"]
    status, terminal = run_with_terminal_stderr(cmd, tmp_path / "a.npy")
    assert status == 0
    assert b"compute" in terminal and b"rows" in terminal
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy")[:3], encoding_table(d=512, n=3))
    status, terminal = run_with_terminal_stderr([*cmd, "--quiet"], tmp_path / "b.npy")
    assert status == 0 and terminal == b""
    assert (tmp_path / "a.npy").read_bytes() == (tmp_path / "b.npy").read_bytes()
    piped = run(
        [*pecli_cmd, "compute", "--d", "512", "--n", "20000", "-o", str(tmp_path / "c.npy")]
    )
    assert piped.returncode == 0  # no bar when stderr is piped; only the file's name
    wrote, certified = piped.stderr.splitlines()
    assert wrote == f"pecli: wrote {tmp_path / 'c.npy'}"
    assert re.fullmatch(
        r"pecli: every value correctly rounded to float32: \d+ recomputed", certified
    )


# -- figures -----------------------------------------------------------------------------------


def test_huge_heatmap_is_refused_before_any_work(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = run_cli("heatmap", "--d", "128", "--n", "5000000")
    assert result.exit_code == 2 and "'--n'" in result.stderr and "heatmap" in result.stderr
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KiB
    assert list(tmp_path.iterdir()) == []


def test_add_shows_progress_on_a_terminal_only(pecli_cmd, tmp_path):
    data = tmp_path / "x.npy"
    np.save(data, np.zeros((300000, 8), np.float32))
    cmd = [*pecli_cmd, "add", "-i", str(data), "--format", "npy"]
    status, terminal = run_with_terminal_stderr(cmd, tmp_path / "y.npy")
    assert status == 0 and b"add" in terminal and b"rows" in terminal
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), encoding_table(d=8, n=300000))
    status, terminal = run_with_terminal_stderr([*cmd, "--quiet"], tmp_path / "z.npy")
    assert status == 0 and terminal == b""


def test_csv_header_keeps_duplicate_names_and_quotes_commas(tmp_path):
    table = np.array([[0.5, -1.25, 3.0, 1e-7]], dtype=np.float32)
    out = tmp_path / "t.csv"
    columns = ["a", "a", "x,y", "b"]
    write_table([table], output=out, fmt="csv", shape=(1, 4), dtype=table.dtype, columns=columns)
    assert out.read_text() == 'a,a,"x,y",b\n0.5,-1.25,3.0,1e-7\n'


def test_special_outputs_are_written_not_replaced(run_cli, tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    assert run_cli("compute", "--d", "4", "--n", "2", "-o", str(fifo)).exit_code == 0
    received = reader.communicate(timeout=30)[0].decode()
    assert received.startswith("sin_1,cos_1,sin_2,cos_2\n0.84147096,")
    assert fifo.is_fifo()
    target = tmp_path / "real.csv"
    target.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(target.name)
    assert run_cli("compute", "--d", "4", "--n", "1", "-o", str(link)).exit_code == 0
    assert link.is_symlink() and target.read_text().startswith("sin_1,")
    result = run_cli("compute", "--d", "4", "--n", "1", "--format", "csv", "-o", os.devnull)
    assert result.exit_code == 0 and Path(os.devnull).is_char_device()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "pipe.csv", "real.csv"]


@pytest.mark.parametrize(
    "args",
    [["conventions"], ["precision", "--n", "100"], ["wavelengths", "--d", "4096"], ["--help"]],
)
def test_closed_pipe_is_141_for_tables_and_help_too(pecli_cmd, args):
    proc = subprocess.Popen([*pecli_cmd, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before anything is written
    stderr = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 141
    assert stderr == b""


def test_a_real_failure_with_stdout_on_devnull_keeps_its_status(pecli_cmd, tmp_path):
    np.save(tmp_path / "noise.npy", np.random.default_rng(0).random((20, 8)))
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.run(
            [*pecli_cmd, "identify", str(tmp_path / "noise.npy")], stdout=devnull, check=False
        )
    assert proc.returncode == 1  # matches nothing: 1, not the closed-pipe 141


def test_precision_shows_progress_on_a_terminal_only(pecli_cmd, tmp_path):
    cmd = [*pecli_cmd, "precision", "--d", "64", "--n", "200000"]
    status, terminal = run_with_terminal_stderr(cmd, tmp_path / "report.txt")
    assert status == 0 and b"precision" in terminal and b"rows" in terminal
    assert "first position with error > 0.001" in (tmp_path / "report.txt").read_text()
    piped = run([*cmd[:-1], "2000"])  # rich draws a bar as it starts: 2,000 rows would show one
    assert piped.returncode == 0 and piped.stderr == ""


@pytest.mark.parametrize("unbuffered", ["1", ""])
@pytest.mark.parametrize("fmt", ["csv", "json", "table"])
def test_reader_leaving_in_the_middle_of_a_large_write_is_141(pecli_cmd, fmt, unbuffered):
    # one ~450 KB write into a 64 KiB pipe: the kernel takes part of it, then the reader goes;
    # an unbuffered stdout (python -u) reports the partial write instead of failing
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    cmd = [*pecli_cmd, "wavelengths", "--d", "16384", "--format", fmt]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    time.sleep(0.5)  # the writer is blocked on the full pipe
    assert len(proc.stdout.read(100)) == 100
    proc.stdout.close()
    stderr = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 141
    assert stderr == b""


@pytest.mark.parametrize("name", ["t.npy", "t.csv"])  # blocks in this thread; polars' worker
def test_a_swallowed_signal_still_stops_the_run(run_cli, tmp_path, monkeypatch, capsys, name):
    # a handler's KeyboardInterrupt raised inside a weakref callback or __del__ is lost
    # ("Exception ignored in …"); the recorded signal still stops streaming and sets the status
    import types

    from pecli.io import guard

    monkeypatch.setitem(guard._received, "signal", int(signal.SIGTERM))
    target = tmp_path / name
    target.write_bytes(b"old")
    result = run_cli("compute", "--d", "8", "--n", "10", "-o", str(target))
    assert result.exit_code == 143
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == [name]
    report = types.SimpleNamespace(exc_value=KeyboardInterrupt(), exc_type=KeyboardInterrupt)
    guard._unraisable(report)  # the lost interrupt is not reported on stderr
    assert capsys.readouterr().err == ""


def test_long_names_and_links_are_checked_like_plain_paths(run_cli, tmp_path):
    longest = tmp_path / ("a" * 251 + ".csv")  # 255 bytes: legal, too long for .NAME.*.part
    assert run_cli("compute", "--d", "4", "--n", "2", "-o", str(longest)).exit_code == 0
    assert longest.read_text().startswith("sin_1,") and list(tmp_path.iterdir()) == [longest]
    result = run_cli("compute", "--d", "4", "--n", "2", "-o", str(tmp_path / ("b" * 252 + ".csv")))
    assert result.exit_code == 2 and "at most 255 bytes" in result.stderr
    link = tmp_path / "link.csv"
    link.symlink_to(tmp_path / "missing" / "x.csv")
    result = run_cli("compute", "--d", "4", "--n", "2", "-o", str(link))
    assert result.exit_code == 2 and "'--output': must be in an existing folder" in result.stderr


# -- file modes, memory of add, signals during fourier ---------------------------------------


@pytest.mark.parametrize(
    ("umask", "args", "names"),
    [
        (0o022, ["compute", "--d", "4", "--n", "3", "-o", "t.npy"], ["t.npy"]),
        (0o027, ["compute", "--d", "4", "--n", "3", "-o", "t.npy"], ["t.npy"]),
        (0o027, ["compute", "--d", "4", "--n", "3", "-o", "t.csv"], ["t.csv"]),  # polars' sink
        (0o077, ["wavelengths", "--d", "8", "-o", "w.csv"], ["w.csv"]),
        (
            0o027,
            ["heatmap", "--d", "8", "--n", "5", "-o", "h.png", "--data", "h.csv"],
            ["h.csv", "h.png"],
        ),
    ],
    ids=["npy-022", "npy-027", "csv-027", "wavelengths-077", "figure-and-data-027"],
)
def test_new_files_follow_the_umask(pecli_cmd, tmp_path, umask, args, names):
    # as any Unix tool: 0666 less the umask (the temporary file is 0600 until it is renamed)
    result = run([*pecli_cmd, *args], cwd=tmp_path, umask=umask)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    for name in names:
        mode = stat.S_IMODE((tmp_path / name).stat().st_mode)
        assert mode == 0o666 & ~umask, (name, oct(mode))


def test_add_on_a_large_npy_keeps_one_block_resident(pecli_cmd, tmp_path):
    # a 300 MiB float32 input is memory-mapped and read in ~4 MiB blocks; pages already done
    # are handed back (MADV_DONTNEED), so the peak resident size must not grow with the file
    n, d = 150 * 1024, 512
    big = tmp_path / "big.npy"
    data = np.lib.format.open_memmap(big, mode="w+", dtype=np.float32, shape=(n, d))
    for first in range(0, n, 8192):  # real pages in the page cache, not a sparse file
        data[first : first + 8192] = np.arange(first, min(first + 8192, n), dtype=np.float32)[
            :, None
        ]
    data.flush()
    del data
    small = tmp_path / "small.npy"
    np.save(small, np.ones((1024, d), np.float32))
    file_mib = big.stat().st_size / 2**20
    assert file_mib > 290
    baseline = peak_rss_mib([*pecli_cmd, "add", "-i", str(small), "-o", str(tmp_path / "s.npy")])
    out = tmp_path / "out.npy"
    peak = peak_rss_mib([*pecli_cmd, "add", "-i", str(big), "-o", str(out)])
    assert peak - baseline < 0.25 * file_mib, (baseline, peak, file_mib)
    result = np.load(out, mmap_mode="r")
    assert result.shape == (n, d)
    (last_pe,) = slow.vaswani(1, d, start=n)  # row n gets pe(n) (--start 1)
    np.testing.assert_allclose(result[-1], np.float32(n - 1 + np.array(last_pe)), rtol=0, atol=0.02)


def test_fourier_csv_stops_at_once_on_sigterm_and_leaves_nothing(pecli_cmd, tmp_path):
    # 10,000,000 values × 16 features: about 25 s and 3 GB of CSV if it ran to the end
    target = tmp_path / "gamma.csv"
    cmd = [*pecli_cmd, "fourier", "--linspace", "0", "1", "10000000", "--k", "8"]
    proc = subprocess.Popen(
        [*cmd, "-o", str(target)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        while not any(p.stat().st_size > 1 << 20 for p in tmp_path.glob(".gamma.csv.*.part")):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no CSV data after 60 s"
            time.sleep(0.02)  # polars' sink is writing rows: 1 MiB past the header line
        proc.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        try:
            _, stderr = proc.communicate(timeout=2)
        except subprocess.TimeoutExpired:
            pytest.fail("fourier still writing 2 s after SIGTERM")
        took = time.monotonic() - sent
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == 143, stderr
    assert took < 2 and b"Traceback" not in stderr
    assert list(tmp_path.iterdir()) == []  # neither gamma.csv nor its .part file
