"""Every certified writer's report, on every channel it has (issue 36), with planted undecided.

The kernels' bounds are widened (``DIRECT_BOUND``, ``CONSECUTIVE_BOUND``, ALiBi's
``PRODUCT_BOUND``) so that every value not exactly 0 is undecided and goes through the
fallback: the count each writer reports is then known by hand (values of the table, or of its
per-axis / per-pair / per-distance values, less the sines at position 0, which the direct
bound decides as 0). Each channel is read back: the line on stderr after ``pecli: wrote``
(none with ``-q``, none when the table goes to stdout, whose lines stay pure data), and the
``pecli_certificate`` metadata of a ``.safetensors`` output, parsed from the file's header.
No writer has a ``--json`` option; the JSON outputs (``rope freqs``, ``alibi slopes``) are
records of float64 or proven values (docs/exactness.md, "What is covered").
"""

from __future__ import annotations

import json
import struct

import mpmath
import numpy as np
import pytest
from certified_writers import ADD_DATA
from planted import rounded

from pecli.core import direct, kernels
from pecli.core.certificate import ErrorBound
from pecli.core.zoo.alibi import certified

WROTE = "pecli: wrote "


@pytest.fixture
def undecided(monkeypatch):
    """Every kernel's bound so wide that each value not exactly 0 is undecided."""
    monkeypatch.setattr(direct, "DIRECT_BOUND", ErrorBound(relative=0.05))
    monkeypatch.setattr(kernels, "CONSECUTIVE_BOUND", ErrorBound(absolute=0.05))
    monkeypatch.setattr(certified, "PRODUCT_BOUND", ErrorBound(relative=0.05))


def _metadata(path) -> dict[str, str]:
    raw = path.read_bytes()
    return json.loads(raw[8 : 8 + struct.unpack("<Q", raw[:8])[0]])["__metadata__"]


def _tensor(path, key: str) -> np.ndarray:
    """A float32 tensor of a safetensors file, read from its header by hand."""
    raw = path.read_bytes()
    size = struct.unpack("<Q", raw[:8])[0]
    entry = json.loads(raw[8 : 8 + size])[key]
    begin, end = (8 + size + offset for offset in entry["data_offsets"])
    assert entry["dtype"] == "F32"
    return np.frombuffer(raw[begin:end], dtype="<f4").reshape(entry["shape"])


#: (command, its report with every value undecided): the count by hand.
WRITERS = {
    # 3 rows × 4 columns, positions 1..3: no exact 0
    "compute": (["compute", "--d", "4", "--n", "3", "--start", "1"], 12),
    # rows 1, 0, −1: 12 values less the 2 sines of position 0
    "compute --relative": (["compute", "--d", "4", "--n", "2", "--relative"], 10),
    "compute float16": (
        ["compute", "--d", "4", "--n", "3", "--start", "1", "--dtype", "float16"],
        12,
    ),
    # per-axis values: 2 and 3 positions × 2 frequencies × (sin, cos), less 2 sines at 0 each
    "grid": (["grid", "2", "3", "--d", "8"], 6 + 10),
    # 3 × 4 data plus pe(1 … 3): every sum
    "add": (["add", ADD_DATA], 12),
    # 2 values × 2 harmonics × (sin, cos), none at angle 0
    "fourier": (["fourier", "--k", "2", "--dtype", "float32", "0.5", "1.5"], 8),
    # FLUX: t·1000 = 700, 4 frequencies × (sin, cos)
    "timestep": (["timestep", "--model", "flux", "--d", "8", "0.7"], 8),
    # 3 positions × 2 pairs × (cos, sin), each spread to its two channels
    "rope cache": (
        ["rope", "cache", "--theta", "100", "--head-dim", "4", "--n", "3", "--start", "1"],
        12,
    ),
    # Wan: 22, 21, 21 pairs on t, h, w; 2, 3, 4 positions from 0; (cos, sin) less the sines at 0
    "rope axes": (["rope", "axes", "--preset", "wan", "--grid", "2x3x4"], 66 + 105 + 147),
    # heads 2, distances 0, 1, 2: the 2 non-zero products of each head
    "alibi bias": (["alibi", "bias", "--heads", "2", "--n", "3", "--convention", "mpt"], 4),
}


def _said(k: int, dtype: str = "float32") -> str:
    return f"every value correctly rounded to {dtype}: {k} recomputed"


@pytest.mark.parametrize("writer", WRITERS)
def test_each_writer_reports_its_recomputed_values_after_the_file(
    undecided, run_cli, tmp_path, writer
):
    args, k = WRITERS[writer]
    out = tmp_path / "t.npy"
    done = run_cli(*args, "-o", str(out))
    assert done.exit_code == 0, done.stderr
    dtype = "float16" if "float16" in args else "float32"
    assert done.stderr.splitlines() == [WROTE + str(out), "pecli: " + _said(k, dtype)]
    quiet = run_cli(*args, "-q", "-o", str(tmp_path / "q.npy"))
    assert quiet.exit_code == 0 and quiet.stderr == ""


@pytest.mark.parametrize(
    "writer",
    ["compute", "compute --relative", "grid", "timestep", "fourier", "add", "rope cache"],
)
def test_a_csv_file_says_it_and_stdout_holds_only_the_table(undecided, run_cli, tmp_path, writer):
    args, k = WRITERS[writer]
    out = tmp_path / "t.csv"
    done = run_cli(*args, "-o", str(out))
    assert done.exit_code == 0 and done.stderr.splitlines()[-1] == "pecli: " + _said(k)
    piped = run_cli(*args, "-o", "-")
    assert piped.exit_code == 0 and piped.stderr == ""
    assert piped.stdout == out.read_text()  # the data, no report between its lines


@pytest.mark.parametrize("writer", ["compute", "compute float16", "rope cache", "rope axes"])
def test_a_safetensors_file_holds_the_report_said_on_stderr(undecided, run_cli, tmp_path, writer):
    args, k = WRITERS[writer]
    out = tmp_path / "t.safetensors"
    done = run_cli(*args, "-o", str(out))
    assert done.exit_code == 0, done.stderr
    dtype = "float16" if "float16" in args else "float32"
    assert done.stderr.splitlines()[-1] == "pecli: " + _said(k, dtype)
    assert _metadata(out)["pecli_certificate"] == _said(k, dtype)  # once, not per tensor


def test_the_recomputed_values_in_the_files_are_mpmath_s(undecided, run_cli, tmp_path):
    """The recomputed entries written are the correctly rounded ones, in npy and safetensors."""
    run_cli(*WRITERS["compute"][0], "-o", str(tmp_path / "t.npy"))
    run_cli(*WRITERS["rope cache"][0], "-o", str(tmp_path / "c.safetensors"))
    with mpmath.workprec(200):
        omega = [mpmath.mpf(1), mpmath.mpf(10000) ** mpmath.mpf(-0.5)]  # 10000^(-2j/4)
        table = [
            [rounded(f(p * w), "float32") for w in omega for f in (mpmath.sin, mpmath.cos)]
            for p in (1, 2, 3)
        ]
        theta = [mpmath.mpf(1), mpmath.mpf(100) ** mpmath.mpf(-0.5)]  # 100^(-2k/4)
        cos = [[rounded(mpmath.cos(p * w), "float32") for w in theta] for p in (1, 2, 3)]
        sin = [[rounded(mpmath.sin(p * w), "float32") for w in theta] for p in (1, 2, 3)]
    assert np.load(tmp_path / "t.npy").tolist() == table
    assert _tensor(tmp_path / "c.safetensors", "cos").tolist() == [c + c for c in cos]
    assert _tensor(tmp_path / "c.safetensors", "sin").tolist() == [s + s for s in sin]


def test_writers_without_the_certificate_say_nothing_of_it(run_cli, tmp_path):
    """On-purpose arithmetic (a framework's float32, Falcon's bfloat16): no report."""
    for args in (
        [
            "rope",
            "cache",
            "--theta",
            "100",
            "--head-dim",
            "4",
            "--n",
            "3",
            "--arithmetic",
            "transformers",
        ],
        ["alibi", "bias", "--heads", "2", "--n", "3", "--convention", "falcon"],
        ["timestep", "--model", "flux", "--d", "8", "--network-dtype", "bfloat16", "0.7"],
    ):
        done = run_cli(*args, "-o", str(tmp_path / "t.npy"))
        assert done.exit_code == 0, done.stderr
        assert done.stderr.splitlines() == [WROTE + str(tmp_path / "t.npy")]


@pytest.mark.parametrize(
    "args",
    [
        ["compute", "--d", "8", "--n", "4"],
        ["alibi", "slopes", "--heads", "8", "--format", "npy"],
        ["rope", "cache", "--n", "4", "--head-dim", "8", "--theta", "10000"],
    ],
)
def test_a_device_output_gets_no_certificate_line_from_any_writer(run_cli, args):
    """-o /dev/null is no file to vouch for: every writer stays as silent as compute (alibi
    slopes used to say the certificate there)."""
    result = run_cli(*args, "-o", "/dev/null")
    assert result.exit_code == 0 and "correctly rounded" not in result.output, result.output


def test_scaled_is_the_documented_sum_of_two_products_and_the_factor_1_leaves_values():
    """``scaled(v, (hi, lo)) = fl(fl(v·hi) + fl(v·lo))`` (by hand: powers of two, exact);
    the factor ``(1, 0)`` leaves the values as they are (the same array, not a copy)."""
    from pecli.core.certificate.products import scaled

    v = np.array([0.5, -1.0, 3.0])
    assert scaled(v, (1.0, 0.0)) is v
    assert scaled(v, (1.0, 1.0)).tolist() == [1.0, -2.0, 6.0]  # v·1 + v·1
    assert scaled(v, (2.0, 0.25)).tolist() == [1.125, -2.25, 6.75]
    assert scaled(v, (0.0, 0.0)).tolist() == [0.0, -0.0, 0.0]
