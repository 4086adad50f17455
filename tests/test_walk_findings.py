"""What a new user ran into on a walk through the README and the porting workflow.

Each test is one finding: the command as the user typed it, and what they should have seen
(one line naming the option, the right status, nothing replaced).
"""

from __future__ import annotations

import subprocess

import numpy as np


def _run(pecli_cmd, *args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*pecli_cmd, *args], capture_output=True, text=True, cwd=cwd, timeout=120, check=False
    )


def test_an_empty_npy_is_a_bad_file_not_an_interrupt(pecli_cmd, tmp_path):
    """``pecli diff a.npy empty.npy`` said "interrupted" with status 130 (click's EOFError)."""
    np.save(tmp_path / "a.npy", np.ones((3, 4), np.float32))
    (tmp_path / "empty.npy").write_bytes(b"")
    for args in (("diff", "a.npy", "empty.npy"), ("rope", "identify", "empty.npy")):
        result = _run(pecli_cmd, *args, cwd=tmp_path)
        assert result.returncode == 2, (args, result.returncode, result.stderr)
        assert "interrupted" not in result.stderr
        assert result.stderr.count("\n") == 1 and result.stderr.strip(), result.stderr
        assert "Invalid value for " in result.stderr


def test_an_eof_error_anywhere_is_a_failure_not_an_interrupt(run_cli, monkeypatch, tmp_path):
    """Any EOFError a command meets is one line and status 1, never 130 'interrupted'."""
    import pecli.analysis.ports.compare as compare

    def ends_early(*args, **kwargs):
        raise EOFError("No data left in file")

    monkeypatch.setattr(compare, "compare", ends_early)
    np.save(tmp_path / "a.npy", np.ones((3, 4), np.float32))
    a = str(tmp_path / "a.npy")
    result = run_cli("diff", a, a)
    assert result.exit_code == 1, result.output
    assert "interrupted" not in result.output
    assert "unexpected end of input (No data left in file)" in result.output


def test_diff_names_tensor_a_and_b_and_refuses_them_on_a_plain_table(run_cli, tmp_path):
    """``--tensor-a foo`` on a .npy was ignored; on a .safetensors it was blamed on --tensor."""
    from safetensors.numpy import save_file

    np.save(tmp_path / "a.npy", np.ones((3, 4), np.float32))
    save_file({"cos": np.ones((3, 2), np.float32)}, str(tmp_path / "c.safetensors"))
    a, c = str(tmp_path / "a.npy"), str(tmp_path / "c.safetensors")
    cases = {
        ("--tensor-a", "foo", a, a): "'--tensor-a': applies only to .safetensors and .gguf",
        ("--tensor-b", "foo", a, a): "'--tensor-b': applies only to .safetensors and .gguf",
        ("--tensor-b", "co", c, c): "'--tensor-b': must name a tensor of",
    }
    for (option, value, x, y), message in cases.items():
        result = run_cli("diff", x, y, option, value)
        assert result.exit_code == 2, (option, result.output)
        assert message in result.output, result.output


def test_diff_refuses_a_nan_tolerance(run_cli, tmp_path):
    """``--ulps nan`` made every entry equal: two different tables passed with status 0."""
    np.save(tmp_path / "a.npy", np.ones((3, 4), np.float32))
    np.save(tmp_path / "b.npy", np.full((3, 4), 1.5, np.float32))
    a, b = str(tmp_path / "a.npy"), str(tmp_path / "b.npy")
    for option in ("--ulps", "--atol"):
        result = run_cli("diff", a, b, option, "nan")
        assert result.exit_code == 2, (option, result.output)
        assert f"Invalid value for '{option}': must be a number >= 0 (got nan)" in result.output
    assert run_cli("diff", a, b, "--atol", "1").exit_code == 0
