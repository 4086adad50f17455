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
    import pecli.analysis.ports.diff as diff

    def ends_early(*args, **kwargs):
        raise EOFError("No data left in file")

    monkeypatch.setattr(diff, "compare", ends_early)
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
        ("--tensor-a", "foo", a, a): "'--tensor-a': applies only to .safetensors, .npz and .gguf",
        ("--tensor-b", "foo", a, a): "'--tensor-b': applies only to .safetensors, .npz and .gguf",
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
        said = f"Invalid value for '{option}': must be a finite number >= 0 (got nan)"
        assert said in result.output
    assert run_cli("diff", a, b, "--atol", "1").exit_code == 0


def _irope(run_cli, tmp_path, config, *args: str):
    import json

    (tmp_path / "config.json").write_text(json.dumps(config))
    return run_cli("rope", "irope", "--config", str(tmp_path / "config.json"), *args)


BAD_LLAMA4_FIELDS = {
    "num_hidden_layers": ["abc", -3, 1e30, 10**11, True],
    "no_rope_layers": [5, [1, 0, "a"], [1, 2]],
    "no_rope_layer_interval": [0, 2.5],
    "attention_chunk_size": [-1, "x"],
    "floor_scale": [0, "x"],
    "attn_scale": ["x"],
}


def test_irope_refuses_each_bad_config_field(run_cli, tmp_path):
    """Strings were internal errors, 10^11 layers ran out of time, floor_scale 0 gave inf."""
    for key, values in BAD_LLAMA4_FIELDS.items():
        for value in values:
            result = _irope(run_cli, tmp_path, {key: value})
            assert result.exit_code == 2, (key, value, result.output)
            assert f"Invalid value for '--config': field {key} must be" in result.output
            assert "internal error" not in result.output


def test_irope_positions_beyond_int64_and_layers_beyond_any_model(run_cli):
    result = run_cli("rope", "irope", "--positions", str(10**23))
    assert result.exit_code == 2 and "must be integers from 0 to 2^53" in result.output
    result = run_cli("rope", "irope", "--layers", str(10**11))
    assert result.exit_code == 2 and "'--layers'" in result.output


def test_irope_reads_the_interval_a_null_chunk_and_no_tuning(run_cli, tmp_path):
    """transformers' Llama4TextConfig: no_rope_layer_interval makes the list when there is
    none; attention_chunk_size null means full attention; attn_temperature_tuning false
    leaves the NoPE queries unscaled (Llama4TextAttention.forward)."""
    config = {
        "num_hidden_layers": 6,
        "no_rope_layer_interval": 2,
        "attention_chunk_size": None,
        "attn_temperature_tuning": False,
        "floor_scale": 8192,
        "attn_scale": 0.1,
    }
    result = _irope(run_cli, tmp_path, config, "--positions", "0,65535")
    assert result.exit_code == 0, result.output
    assert "NoPE layers: 1 3 5" in result.stdout
    assert "full attention, no chunks" in result.stdout
    assert "65535       1.0000000" in result.stdout
    assert "note:" not in result.stdout


def test_irope_says_which_llama4_fields_a_config_lacks(run_cli, tmp_path):
    """A Llama 3.1 config gave Llama 4's map without a word that none of it was read."""
    result = _irope(run_cli, tmp_path, {"rope_theta": 500000.0, "num_hidden_layers": 32})
    assert result.exit_code == 0, result.output
    note = "note: not in the config, Llama 4's defaults used: no_rope_layer_interval, "
    assert note + "attention_chunk_size, floor_scale, attn_scale" in result.stdout
    assert "32 layers: 24 RoPE layers" in result.stdout


def test_irope_layers_is_over_the_configs_list(run_cli, tmp_path):
    """docs/cli.md: --layers is num_hidden_layers over the config's; the list ignored it."""
    result = _irope(run_cli, tmp_path, {"no_rope_layers": [1, 0, 1]}, "--layers", "8")
    assert result.exit_code == 0, result.output
    assert "8 layers: 6 RoPE layers" in result.stdout and "NoPE layers: 3 7\n" in result.stdout


def test_gguf_of_a_folder_or_a_pipe_is_named(pecli_cmd, tmp_path):
    """A folder was 'error: Is a directory' with status 1; a pipe 'a truncated GGUF file:
    it ends at byte 0'. Each is a usage error naming FILE and why."""
    from pathlib import Path

    gguf = Path(__file__).parent.parent / "fixtures" / "libraries" / "gguf" / "llama31.gguf"
    (tmp_path / "model").mkdir()
    result = _run(pecli_cmd, "gguf", "show", "model", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Invalid value for 'FILE': is a folder: a GGUF is read at offsets" in result.stderr
    shell = f"cat '{gguf}' | {' '.join(pecli_cmd)} gguf show /dev/stdin"
    result = subprocess.run(
        ["bash", "-c", shell], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 2, result.stderr
    assert "is not a regular file: a GGUF is read at offsets" in result.stderr
    assert result.stderr.count("\n") == 1


def test_llama_cpp_arithmetic_names_the_rope_type_it_lacks(run_cli):
    """It said "llama.cpp is repeated for rope types … (got longrope)" for --arithmetic."""
    spec = ["--rope-type", "dynamic", "--factor", "2", "--max-position-embeddings", "9"]
    result = run_cli("rope", "cache", "--arithmetic", "llama.cpp", "--n", "2", *spec)
    assert result.exit_code == 2, result.output
    expected = (
        "Invalid value for '--arithmetic': llama.cpp's float32 loop is repeated for default, "
        "linear, llama3, yarn only (got llama.cpp with dynamic)"
    )
    assert expected in result.output, result.output


def test_gguf_check_phi3_type_row_does_not_contradict_itself(run_cli):
    """The row read 'agree  longrope  none': expected longrope, found none, and agreeing."""
    from pathlib import Path

    folder = Path(__file__).parent.parent / "fixtures" / "libraries" / "gguf"
    config = str(folder / "phi3.config.json")
    result = run_cli("gguf", "check", str(folder / "phi3.gguf"), "--config", config)
    assert result.exit_code == 0, result.output
    row = next(line for line in result.stdout.splitlines() if "rope.scaling.type " in line)
    assert row.split()[1:] == ["agree", "longrope", "or", "none", "none"], row


def test_diff_offset_of_one_position_is_singular(run_cli, tmp_path):
    """'A starts 1 positions later' (a 1-based table against a 0-based one)."""
    angles = np.outer(np.arange(0, 40, dtype=np.float64), 1 / 100.0 ** (np.arange(8) / 8))
    table = np.concatenate([np.cos(angles), np.sin(angles)], 1).astype(np.float32)
    np.save(tmp_path / "a.npy", table[1:33])
    np.save(tmp_path / "b.npy", table[0:32])
    result = run_cli("diff", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"))
    assert result.exit_code == 1, result.output
    assert "B's row 1 is A's row 0 (A starts 1 position later)" in result.stdout, result.stdout


def test_diff_of_a_single_number_or_no_rows_is_refused(run_cli, tmp_path):
    """A 0-d .npy was 'internal error: IndexError', a (0, 4) one a ValueError from reshape."""
    np.save(tmp_path / "a.npy", np.ones((3, 4), np.float32))
    a = str(tmp_path / "a.npy")
    for name, value in {"s.npy": np.float32(1), "e.npy": np.zeros((0, 4), np.float32)}.items():
        np.save(tmp_path / name, value)
        result = run_cli("diff", a, str(tmp_path / name))
        assert result.exit_code == 2, (name, result.output)
        rule = "Invalid value for 'B': must hold a vector or a table of at least one value"
        assert rule in result.output and "internal error" not in result.output


def test_rope_identify_says_the_arithmetic_its_metadata_rebuilt(run_cli, tmp_path):
    """A llama.cpp cache was 'the cache it describes (rope_type …, start 0) is these values,
    bit for bit', as if exact: the float32 arithmetic it was rebuilt with went unsaid."""
    for arithmetic in ("llama.cpp", "transformers", "exact"):
        out = str(tmp_path / f"{arithmetic}.safetensors")
        made = run_cli(
            "rope",
            "cache",
            "--theta",
            "500000",
            "--head-dim",
            "8",
            "--n",
            "64",
            "--arithmetic",
            arithmetic,
            "-q",
            "-o",
            out,
        )
        assert made.exit_code == 0, made.output
        result = run_cli("rope", "identify", out)
        assert result.exit_code == 0, result.output
        note = next(line for line in result.stdout.splitlines() if "metadata agrees" in line)
        assert ("arithmetic" in note) == (arithmetic != "exact"), note
        assert arithmetic == "exact" or f"start 0, arithmetic {arithmetic})" in note, note
