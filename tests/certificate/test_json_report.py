"""``--json`` of every certified writer (issue 36): one JSON object on stderr, true to the file.

Each writer of tests/certified_writers.py is run with ``--json``; the object is checked
against the file read back independently (numpy, the safetensors package), against the
safetensors metadata and the two-line report of the same run without ``--json``.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import subprocess

import mpmath
import numpy as np
import pytest
from certified_writers import WRITERS, Writer
from planted import rounded

KEYS = ["output", "format", "dtype", "shape", "tensors", "certificate", "not_certified", "notes"]
CERTIFICATE_KEYS = ["claim", "checked", "recomputed", "values", "message"]
CASES = [(w, s) for w in WRITERS for s in w.suffixes]


def _ids(case: tuple[Writer, str]) -> str:
    writer, suffix = case
    return f"{writer.name}-{' '.join(writer.args[-1:])}{suffix}"


def the_report(stderr: str) -> dict:
    """stderr as exactly one JSON object on one line (anything else fails)."""
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    report = json.loads(lines[0])
    assert isinstance(report, dict) and list(report) == KEYS
    return report


def _read_back(path, suffix: str) -> dict[str, np.ndarray]:
    """The arrays in the file, read without pecli."""
    if suffix == ".npy":
        return {"": np.load(path)}
    if suffix == ".safetensors":
        from safetensors.numpy import load_file

        return load_file(str(path))
    rows = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return {"": rows}


def _metadata(path) -> dict[str, str]:
    raw = path.read_bytes()
    size = int.from_bytes(raw[:8], "little")
    return json.loads(raw[8 : 8 + size]).get("__metadata__", {})


def _count(message: str) -> int:
    """The recomputed count a certificate's line says (``0 undecided``: none)."""
    found = re.search(r"(\d+) recomputed|0 undecided|proven", message)
    assert found, message
    return int(found[1]) if found[1] else 0


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_the_json_report_says_what_the_file_holds(run_cli, tmp_path, case):
    writer, suffix = case
    out = tmp_path / f"t{suffix}"
    done = run_cli(*writer.command, *writer.args, "-o", str(out), "--json")
    assert done.exit_code == 0, done.stderr
    report = the_report(done.stderr)
    arrays = _read_back(out, suffix)
    assert report["output"] == str(out)
    assert report["format"] == suffix.removeprefix(".")
    if suffix == ".safetensors":
        tensors = {k: {"dtype": a.dtype.name, "shape": list(a.shape)} for k, a in arrays.items()}
        assert report["tensors"] == tensors
        alone = next(iter(tensors.values()))["shape"] if len(tensors) == 1 else None
        assert report["shape"] == alone
        assert {a.dtype.name for a in arrays.values()} == {report["dtype"]}
    else:
        assert report["tensors"] is None
        assert report["shape"] == list(arrays[""].shape)
        if suffix == ".npy":
            assert report["dtype"] == arrays[""].dtype.name
    certificate = report["certificate"]
    assert list(certificate) == CERTIFICATE_KEYS and report["not_certified"] is None
    written = sum(a.size for a in arrays.values())
    assert certificate["claim"] in ("correctly rounded", "proven")
    assert 0 < certificate["checked"] <= written and certificate["values"] == written
    assert 0 <= certificate["recomputed"] <= certificate["checked"]
    assert _count(certificate["message"]) == certificate["recomputed"]
    if suffix == ".safetensors":
        assert _metadata(out)["pecli_certificate"] == certificate["message"]
    plain = run_cli(*writer.command, *writer.args, "-o", str(tmp_path / f"plain{suffix}"))
    assert plain.exit_code == 0, plain.stderr
    said = [line.removeprefix("pecli: ") for line in plain.stderr.splitlines()]
    assert said[-2:] == [f"wrote {tmp_path / f'plain{suffix}'}", certificate["message"]]


@pytest.mark.parametrize("writer", WRITERS, ids=[w.name for w in WRITERS])
def test_quiet_still_prints_the_report_and_only_it(run_cli, tmp_path, writer):
    out = tmp_path / f"q{writer.suffixes[0]}"
    quiet = run_cli(*writer.command, *writer.args, "-o", str(out), "-q")
    assert quiet.exit_code == 0 and quiet.stderr == "", quiet.stderr
    done = run_cli(*writer.command, *writer.args, "-o", str(out), "-q", "--json")
    assert done.exit_code == 0, done.stderr
    assert the_report(done.stderr)["certificate"]["values"] == _read_back(out, ".npy")[""].size


@pytest.mark.parametrize("writer", [w for w in WRITERS if w.stdout], ids=lambda w: w.name)
def test_the_report_of_a_table_on_stdout(run_cli, writer):
    done = run_cli(*writer.command, *writer.args, "-o", "-", "--format", writer.stdout, "--json")
    assert done.exit_code == 0, done.stderr
    report = the_report(done.stderr)
    table = np.load(io.BytesIO(done.stdout_bytes))
    assert report["output"] == "-" and report["format"] == "npy"
    assert report["shape"] == list(table.shape) and report["dtype"] == table.dtype.name
    assert report["certificate"]["values"] == table.size


@pytest.mark.parametrize("writer", WRITERS, ids=[w.name for w in WRITERS])
def test_stderr_as_the_output_is_refused_with_json(run_cli, writer):
    done = run_cli(*writer.command, *writer.args, "-o", "/dev/stderr", "--json")
    assert done.exit_code == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert "--output" in line and "--json" in line and "stderr" in line


def test_the_file_stderr_goes_to_is_refused_and_kept(tmp_path, pecli_cmd):
    log = tmp_path / "log.npy"
    log.write_bytes(b"before\n")
    with open(log, "ab") as stderr:
        args = [*pecli_cmd, "compute", "--d", "4", "--n", "2", "-o", str(log), "--json"]
        done = subprocess.run(args, stderr=stderr, stdout=subprocess.PIPE, timeout=120)
    assert done.returncode == 2 and done.stdout == b""
    lines = log.read_bytes().decode().splitlines()
    assert lines[0] == "before" and len(lines) == 2 and "--json" in lines[1]


@pytest.mark.parametrize("fmt", ["npy", "csv"])
def test_stdout_mixed_with_stderr_is_refused_with_json(tmp_path, pecli_cmd, fmt):
    """``-o - --json 2>&1``: the report would land inside the data; apart, both are whole."""
    args = [*pecli_cmd, "compute", "--d", "4", "--n", "2", "-o", "-", "--format", fmt, "--json"]
    mixed = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    assert mixed.returncode == 2
    (line,) = mixed.stdout.decode().splitlines()  # one line, no data
    assert "--output" in line and "--json" in line and "2>&1" in line
    with open(tmp_path / "both", "wb") as both:  # one file opened once for both: the same
        done = subprocess.run(args, stdout=both, stderr=both, timeout=120)
    assert done.returncode == 2
    apart = subprocess.run(args, capture_output=True, timeout=120)  # two pipes
    assert apart.returncode == 0 and json.loads(apart.stderr)["output"] == "-"
    assert apart.stdout.startswith(b"\x93NUMPY" if fmt == "npy" else b"sin_1,cos_1")


def test_a_writer_not_certified_says_why(run_cli, tmp_path):
    out = tmp_path / "falcon.npy"
    done = run_cli(
        "alibi",
        "bias",
        "--heads",
        "4",
        "--n",
        "6",
        "--convention",
        "falcon",
        "-o",
        str(out),
        "--json",
    )
    assert done.exit_code == 0, done.stderr
    report = the_report(done.stderr)
    assert report["certificate"] is None and "falcon" in report["not_certified"]
    assert report["shape"] == list(np.load(out).shape)
    framework = run_cli(
        "rope",
        "cache",
        "--head-dim",
        "8",
        "--n",
        "3",
        "--arithmetic",
        "transformers",
        "-o",
        str(tmp_path / "t.npy"),
        "--json",
    )
    report = the_report(framework.stderr)
    assert report["certificate"] is None and "transformers" in report["not_certified"]
    assert report["notes"] and "θ = 10000" in report["notes"][0]  # the note, inside


def test_float64_reports_the_bound_only(run_cli, tmp_path):
    out = tmp_path / "x.npy"
    done = run_cli(
        "xpos", "--head-dim", "8", "--n", "4", "--dtype", "float64", "-o", str(out), "--json"
    )
    certificate = the_report(done.stderr)["certificate"]
    assert certificate["claim"] == "error bound" and certificate["checked"] == 0


def _cos(position: int, theta: float, k: int, width: int) -> mpmath.mpf:
    with mpmath.workprec(200):
        return mpmath.cos(position * mpmath.mpf(theta) ** (-mpmath.mpf(2 * k) / width))


def test_a_real_tie_is_reported_recomputed(run_cli, tmp_path):
    # cos(205618·ω_253), head 512, θ 10000: float64's error bound cannot decide its rounding
    # (tests/certificate/test_certified_axes.py); the JSON counts it and the value is mpmath's
    out = tmp_path / "tie.npy"
    args = ["--theta", "10000", "--head-dim", "512", "--positions", "205618", "--form", "half"]
    done = run_cli("rope", "cache", *args, "-o", str(out), "--json")
    assert done.exit_code == 0, done.stderr
    certificate = the_report(done.stderr)["certificate"]
    assert certificate["recomputed"] >= 1
    assert float(np.load(out)[0, 253]) == rounded(_cos(205618, 10000.0, 253, 512), "float32")


def test_every_value_recomputed_when_planted_undecided(run_cli, tmp_path, monkeypatch):
    from pecli.core import direct
    from pecli.core.certificate import ErrorBound

    monkeypatch.setattr(direct, "DIRECT_BOUND", ErrorBound(relative=0.05))  # all undecided
    out = tmp_path / "all.npy"
    done = run_cli("compute", "--d", "4", "--n", "3", "--relative", "-o", str(out), "--json")
    assert done.exit_code == 0, done.stderr
    certificate = the_report(done.stderr)["certificate"]
    table = np.load(out)  # rows n−1 … −(n−1); position 0's row is exact, maybe decided
    assert certificate["checked"] == table.size == 20
    assert 16 <= certificate["recomputed"] <= 20  # a 5% bound decides no other value
    omegas = (mpmath.mpf(1), mpmath.mpf(10000) ** -0.5)  # ω_i = C^(-2(i-1)/d), d = 4
    with mpmath.workprec(200):
        expect = [
            [rounded(f(p * omega), "float32") for omega in omegas for f in (mpmath.sin, mpmath.cos)]
            for p in (2, 1, 0, -1, -2)
        ]
    assert table.tolist() == expect


@pytest.mark.parametrize(
    "command",
    [
        ("rope", "cache", "--head-dim", "8", "--n", "4"),
        ("rope", "axes", "--preset", "flux", "--grid", "2x3"),
        ("compute", "--d", "4", "--n", "3"),
        ("xpos", "--head-dim", "8", "--n", "3"),
    ],
)
def test_a_safetensors_name_that_is_stdout_writes_it(tmp_path, pecli_cmd, command):
    link = tmp_path / "out.safetensors"
    os.symlink("/dev/stdout", link)
    with open(tmp_path / "file.bin", "wb") as stdout:
        done = subprocess.run(
            [*pecli_cmd, *command, "-o", str(link), "--json"],
            stdout=stdout,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    from safetensors.numpy import load

    tensors = load((tmp_path / "file.bin").read_bytes())
    report = the_report(done.stderr.decode())
    assert {k: list(v.shape) for k, v in tensors.items()} == {
        k: v["shape"] for k, v in report["tensors"].items()
    }
    assert report["certificate"]["values"] == sum(math.prod(v.shape) for v in tensors.values())
