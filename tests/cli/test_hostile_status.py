"""Right status, one line, the right culprit: bad files, memory limits, overflow (issue 23).

Each case ran the installed ``pecli`` and got a traceback, "internal error", a file blamed
for a memory limit (or the reverse), a silent ``inf``, or a rule naming the wrong option.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess

import numpy as np
import pytest
from shell import bash

needs_prlimit = pytest.mark.skipif(shutil.which("prlimit") is None, reason="needs prlimit")


def _run(pecli_cmd, *args, cwd, megabytes=None, timeout=60):
    limit = ["prlimit", f"--as={megabytes << 20}"] if megabytes else []
    return subprocess.run(
        [*limit, *pecli_cmd, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _one_line(result, status, *parts):
    assert result.returncode == status, (result.returncode, result.stderr[-800:])
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    for part in parts:
        assert part in result.stderr, result.stderr


@needs_prlimit
@pytest.mark.parametrize(
    ("megabytes", "args"),
    [
        (100, ["grid", "2", "2", "--d", "8"]),
        (60, ["--help"]),
        (30, ["--version"]),
        (80, ["grid", "2", "2", "--d", "8", "-o", "g.npy"]),
        (90, ["rope", "--help"]),
    ],
)
def test_too_little_memory_to_start_is_one_line(pecli_cmd, tmp_path, megabytes, args):
    result = _run(pecli_cmd, *args, cwd=tmp_path, megabytes=megabytes)
    _one_line(result, 1, "out of memory")
    assert result.stdout == "" and list(tmp_path.iterdir()) == []


def _encrypted_npz(path):
    np.savez(path, pe=np.zeros((4, 8), np.float32))
    data = bytearray(path.read_bytes())
    for magic, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # general purpose flags
        at = data.find(magic)
        data[at + flags_at] |= 1  # bit 0: encrypted
    path.write_bytes(bytes(data))


BAD_FILES = {
    "nested-config": (
        "c.json",
        "[" * 100_000 + "]" * 100_000,
        ["rope", "config", "c.json"],
        "c.json",
    ),
    "digits-config": (
        "c.json",
        '{"rope_theta": ' + "9" * 5000 + ', "head_dim": 8}',
        ["rope", "config", "c.json"],
        "c.json",
    ),
    "nested-freqs": (
        "c.json",
        '{"a":' * 100_000 + "1" + "}" * 100_000,
        ["rope", "freqs", "--config", "c.json"],
        "c.json",
    ),
    "encrypted-npz": ("m.npz", None, ["identify", "m.npz"], "m.npz"),
    "4000-digits": (
        "c.json",
        '{"rope_theta": ' + "9" * 4000 + ', "head_dim": 8}',
        ["rope", "config", "c.json"],
        "'FILE': field rope_theta",
    ),  # OverflowError
    "factor-overflows": (
        "c.json",
        '{"head_dim": 8, "rope_scaling": {"rope_type": "linear", "factor": 1e308}}',
        ["rope", "freqs", "--config", "c.json"],
        "'--config': field factor",
    ),  # blamed --factor, never given
}


@pytest.mark.parametrize(("name", "text", "args", "said"), BAD_FILES.values(), ids=BAD_FILES.keys())
def test_a_hostile_file_is_a_usage_error_naming_it(pecli_cmd, tmp_path, name, text, args, said):
    if text is None:
        _encrypted_npz(tmp_path / name)
    else:
        (tmp_path / name).write_text(text)
    result = _run(pecli_cmd, *args, cwd=tmp_path)
    _one_line(result, 2, said)
    assert "'--factor'" not in result.stderr and "9999" not in result.stderr


def test_rope_identify_blames_a_lying_npy_header_as_identify_does(pecli_cmd, tmp_path):
    header = {"descr": "<f4", "fortran_order": False, "shape": (1 << 20, 1 << 20)}
    with open(tmp_path / "big.npy", "wb") as handle:
        np.lib.format.write_array_header_1_0(handle, header)
        handle.write(b"\0" * 4096)
    for args in (["identify", "big.npy"], ["rope", "identify", "big.npy"]):
        _one_line(_run(pecli_cmd, *args, cwd=tmp_path), 2, "big.npy")


@needs_prlimit
def test_permute_blames_the_memory_limit_not_the_file(pecli_cmd, tmp_path):
    width = 1 << 26  # 2 rows (one head) × 2^26 float32: 512 MiB of zeros, a sparse file
    entry = {"wq": {"dtype": "F32", "shape": [2, width], "data_offsets": [0, 8 * width]}}
    text = json.dumps(entry).encode()
    head = len(text).to_bytes(8, "little") + text
    with open(tmp_path / "w.safetensors", "wb") as handle:
        handle.write(head)
        handle.truncate(len(head) + 8 * width)
    args = ["rope", "permute", "--input", "w.safetensors", "--tensor", "wq", "-o", "o.safetensors"]
    result = _run(pecli_cmd, *args, cwd=tmp_path, megabytes=300)
    _one_line(result, 1, "out of memory")
    assert "must be" not in result.stderr and not (tmp_path / "o.safetensors").exists()


@needs_prlimit
def test_permute_streams_one_head_at_a_time(pecli_cmd, tmp_path):
    """A 64 MiB tensor permuted under 200 MB (it needs ~130): it was read whole, then copied."""
    from safetensors.numpy import load_file, save_file

    from pecli.core.rope.permute import permute_rows

    weight = np.random.default_rng(0).random((1024, 16384), dtype=np.float32)
    save_file({"wq": weight, "norm": np.ones(8, np.float32)}, str(tmp_path / "w.safetensors"))
    args = ["rope", "permute", "--input", "w.safetensors", "--tensor", "wq", "--heads", "8"]
    result = _run(pecli_cmd, *args, "-o", "o.safetensors", cwd=tmp_path, megabytes=200)
    assert result.returncode == 0, result.stderr
    written = load_file(str(tmp_path / "o.safetensors"))
    assert np.array_equal(written["wq"], permute_rows(weight, 8))
    assert np.array_equal(written["norm"], np.ones(8, np.float32))


YARN = [
    "rope",
    "cache",
    "--rope-type",
    "yarn",
    "--factor",
    "4",
    "--head-dim",
    "8",
    "--n",
    "4",
    "--original-max-position-embeddings",
    "16",
]
OVERFLOW = {
    "float16": [*YARN, "--dtype", "float16", "--attention-factor", "70000", "--format", "csv"],
    "bfloat16": [*YARN, "--dtype", "bfloat16", "--attention-factor", "1e39", "-o", "c.safetensors"],
    "float32": [*YARN, "--attention-factor", "1e300", "-o", "c.safetensors"],
}


@pytest.mark.parametrize("args", OVERFLOW.values(), ids=OVERFLOW.keys())
def test_an_attention_factor_that_overflows_the_dtype_is_refused(pecli_cmd, tmp_path, args):
    result = _run(pecli_cmd, *args, "-q", cwd=tmp_path)
    _one_line(result, 2, "'--attention-factor'", "in magnitude for")
    assert result.stdout == "" and list(tmp_path.iterdir()) == []


def test_no_infinity_is_written_as_json(pecli_cmd, tmp_path):
    args = ["rope", "freqs", "--rope-type", "linear", "--factor", "1e308", "--format", "json"]
    result = _run(pecli_cmd, *args, cwd=tmp_path)
    if result.returncode == 0:  # written: then as strict JSON, every number finite

        def refuse(name):
            raise AssertionError(f"{name} in the JSON")

        json.loads(result.stdout, parse_constant=refuse)
    else:
        _one_line(result, 2, "'--factor'")


def _conflicting_config(path):
    path.write_text(
        json.dumps(
            {
                "head_dim": 8,
                "rope_theta": 10000.0,
                "rope_scaling": {"rope_type": "linear", "factor": 2.0},
                "rope_parameters": {"rope_type": "linear", "factor": 8.0, "rope_theta": 10000.0},
            }
        )
    )


CONFUSING = {
    "seq-len": (["rope", "config", "c.json", "--seq-len", "-5"], "'--seq-len'"),
    "key-on-npy": (["rope", "identify", "x.npy", "--key", "pe"], "applies only to .safetensors"),
    "patch-alone": (
        ["plot-grid", "4", "4", "--d", "16", "--patch", "1", "1", "-o", "g.png"],
        "'--patch'",
    ),
}


@pytest.mark.parametrize(("args", "said"), CONFUSING.values(), ids=CONFUSING.keys())
def test_a_confusing_request_gets_a_clear_refusal(pecli_cmd, tmp_path, args, said):
    _conflicting_config(tmp_path / "c.json")
    np.save(tmp_path / "x.npy", np.ones(4, np.float32))
    _one_line(_run(pecli_cmd, *args, cwd=tmp_path), 2, said)
    assert not (tmp_path / "g.png").exists()


def test_conflicting_rope_scaling_and_rope_parameters_get_one_clear_note(pecli_cmd, tmp_path):
    _conflicting_config(tmp_path / "c.json")
    result = _run(pecli_cmd, "rope", "config", "c.json", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    findings = json.loads(result.stdout)["findings"]
    both = [f for f in findings if "rope_scaling" in f and "rope_parameters" in f]
    assert len(both) == 1, findings
    assert not [f for f in findings if "reader ignores it" in f], findings


@pytest.mark.parametrize("command", ["config", "permute"])
def test_report_formats_offered_are_the_ones_taken(pecli_cmd, tmp_path, command):
    result = _run(pecli_cmd, "rope", command, "--help", cwd=tmp_path)
    assert "[table|json]" in result.stdout and "csv" not in result.stdout.split("--format")[1][:40]


def test_a_csv_too_large_for_the_disk_is_refused_before_work(pecli_cmd, tmp_path):
    args = ["rope", "cache", "--head-dim", "131072", "--n", "100000000", "-o", "huge.csv", "-q"]
    result = _run(pecli_cmd, *args, cwd=tmp_path, timeout=20)  # was 47 s of formatting
    _one_line(result, 1, "not enough room for huge.csv")
    assert list(tmp_path.iterdir()) == []


@needs_prlimit
def test_a_safetensors_cache_is_streamed_under_a_memory_limit(pecli_cmd, tmp_path):
    """Before: the whole file was built in memory (safetensors.numpy.save), so 250 MB failed
    (or aborted in Rust); now one row block at a time is held."""
    from safetensors.numpy import load_file

    args = ["rope", "cache", "--n", "100000", "--head-dim", "128", "-o", "m.safetensors", "-q"]
    result = _run(pecli_cmd, *args, cwd=tmp_path, megabytes=250)
    assert result.returncode == 0, result.stderr
    cache = load_file(str(tmp_path / "m.safetensors"))
    omega = 10000.0 ** -(np.arange(0, 128, 2) / 128)
    for p in (0, 54321, 99999):
        want = np.cos(p * np.concatenate([omega, omega]))
        np.testing.assert_allclose(cache["cos"][p], want, atol=2e-7)


def test_an_empty_memory_error_still_says_why():
    """Python's own allocator raises MemoryError() with no text: "out of memory: " was all."""
    from pecli.cli._app import _explain

    assert _explain(MemoryError()) == ("out of memory: a memory limit was reached", 1)


def test_a_reader_going_away_stays_quiet_with_stdin_closed(pecli_cmd, tmp_path):
    """``| head`` ends the table early: status 141 and nothing said, whatever stdin is (only a
    stdout closed from the start is named)."""
    script = (
        f"{shlex.join(pecli_cmd)} compute --d 512 --n 100000 --format csv <&- "
        "| head -c 10 > /dev/null; exit ${PIPESTATUS[0]}"
    )
    result = bash(script, tmp_path, timeout=120)
    assert result.returncode == 141 and result.stderr == ""
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [["--help"], ["rope", "--help"], ["compute", "--help"]])
def test_help_into_a_pipe_whose_reader_is_gone_is_141(pecli_cmd, tmp_path, args):
    """click meets EPIPE on the help text and exits with 1 (its PacifyFlushWrapper); the run
    must still say "pipe closed" as the shell does for SIGPIPE: 128 + 13, nothing on stderr."""
    import os

    reader, writer = os.pipe()
    os.close(reader)  # every write to the pipe fails with EPIPE
    try:
        result = subprocess.run(
            [*pecli_cmd, *args], stdout=writer, stderr=subprocess.PIPE, cwd=tmp_path, timeout=60
        )
    finally:
        os.close(writer)
    assert (result.returncode, result.stderr) == (141, b"")


def test_a_verdict_of_no_match_is_status_1_not_a_closed_pipe(run_cli, tmp_path):
    """random-fourier --read: a table no input rebuilds is "NOT read", status 1 (docs/zoo.md);
    only a closed stdout turns status 1 into 141. Noise in [-1.4, 1.4] is no sin/cos table."""
    from safetensors.numpy import save_file

    save_file({"W": np.array([0.5, 1.0, 2.0, 4.0], np.float32)}, str(tmp_path / "f.safetensors"))
    np.save(tmp_path / "t.npy", np.random.default_rng(0).uniform(-1.4, 1.4, size=(3, 8)))
    result = run_cli(
        "random-fourier", str(tmp_path / "f.safetensors"), "--read", str(tmp_path / "t.npy")
    )
    assert result.exit_code == 1 and "NOT read" in result.stdout, result.output
