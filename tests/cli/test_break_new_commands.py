"""What a break-it campaign on the commands added in issues 22 and 26 found, each kept fixed.

Each case failed before its fix: a hang, an internal error, a wrong status, a terminal escape
copied to the screen or a non-finite number written.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest


def _s(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def _gguf(path: Path, arch: str, *, freqs: list[float] | None = None, extra: bytes = b"") -> str:
    """A GGUF v3 file: general.architecture, {arch}.rope.dimension_count and rope_freqs."""
    kvs = [_s("general.architecture") + struct.pack("<I", 8) + _s(arch)]
    tensors, data = [], b""
    if freqs is not None:
        kvs.append(_s("llama.rope.dimension_count") + struct.pack("<II", 4, 2 * len(freqs)))
        tensors.append(_s("rope_freqs.weight") + struct.pack("<IQIQ", 1, len(freqs), 0, 0))
        data = struct.pack(f"<{len(freqs)}f", *freqs)
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs) + bool(extra))
    head += b"".join(kvs) + extra + b"".join(tensors)
    path.write_bytes(head + b"\0" * (-len(head) % 32) + data)
    return str(path)


@pytest.mark.parametrize("kind", ["directory", "fifo"])
@pytest.mark.parametrize("command", ["show", "check"])
def test_gguf_that_is_no_regular_file_is_refused_at_once(run_cli, tmp_path, kind, command):
    target = tmp_path / "m.gguf"
    target.mkdir() if kind == "directory" else os.mkfifo(target)  # a FIFO hung in open()
    (tmp_path / "config.json").write_text('{"rope_theta": 10000.0, "head_dim": 8}')
    extra = ["--config", str(tmp_path / "config.json")] if command == "check" else []
    result = run_cli("gguf", command, str(target), *extra)
    assert result.exit_code == 2, result.output  # the directory was status 1, unnamed
    assert result.stderr.count("\n") == 1 and "'FILE'" in result.stderr
    assert "a GGUF is read at offsets" in result.stderr


@pytest.mark.parametrize(
    "freqs", [[0.0, 0.0, 0.0], [-1.0, 1.0, 1.0], [float("nan"), 1.0, 1.0], [1.0, 1.0]]
)
def test_gguf_show_lists_frequencies_it_cannot_read_as_inv_freq(run_cli, tmp_path, freqs):
    result = run_cli("gguf", "show", _gguf(tmp_path / "m.gguf", "llama", freqs=freqs))
    assert result.exit_code == 0, result.output  # was status 2 from identify's vector rule
    assert f"rope_freqs.weight ({len(freqs)} values)" in result.stdout
    assert "reads as" not in result.stdout


def test_gguf_architecture_with_control_characters_is_refused(run_cli, tmp_path):
    result = run_cli("gguf", "show", _gguf(tmp_path / "m.gguf", "ll\x1b[2Jama\nx"))
    assert result.exit_code == 2  # was printed raw: a terminal escape and a broken line
    assert result.stderr.count("\n") == 1 and "not a printable name" in result.stderr


def test_gguf_check_shows_a_string_value_escaped(run_cli, tmp_path):
    key = _s("llama.rope.scaling.type") + struct.pack("<I", 8) + _s("\x1b[31mred\nfake")
    gguf = _gguf(tmp_path / "m.gguf", "llama", extra=key)
    (tmp_path / "config.json").write_text('{"rope_theta": 10000.0, "head_dim": 8}')
    result = run_cli("gguf", "check", gguf, "--config", str(tmp_path / "config.json"))
    assert result.exit_code == 1
    assert "\x1b" not in result.stdout and "'\\x1b[31mred\\nfake'" in result.stdout
    json_result = run_cli(
        "gguf", "check", gguf, "--config", str(tmp_path / "config.json"), "--format", "json"
    )
    found = {row["item"]: row["found"] for row in json.loads(json_result.stdout)}
    assert found["llama.rope.scaling.type"] == "\x1b[31mred\nfake"  # JSON keeps the value


@pytest.mark.parametrize(
    ("args", "config", "named", "rule"),
    [
        (["--layers", "1000000000000"], None, "--layers", "an integer from 1 to 100000"),  # hung
        (
            ["--positions", "100000000000000000000000"],
            None,
            "--positions",
            "integers from 0 to 2^53",
        ),
        ([], '{"num_hidden_layers": 1000000000000}', "--config", "must be an integer from 1"),
        ([], '{"num_hidden_layers": "x"}', "--config", "num_hidden_layers"),  # internal error
        ([], '{"num_hidden_layers": -3}', "--config", "num_hidden_layers"),  # was 0 layers
        ([], '{"floor_scale": 0}', "--config", "floor_scale must be a number > 0"),
        ([], '{"floor_scale": "x"}', "--config", "floor_scale"),  # internal error
        ([], '{"attn_scale": 1e308}', "--config", "overflows float64"),  # inf in the table
        ([], '{"floor_scale": 1e-320}', "--config", "overflows float64"),
        ([], '{"no_rope_layers": "x"}', "--config", "no_rope_layers must be a list of 0"),
        ([], '{"attention_chunk_size": "\\u001b[31m"}', "--config", "attention_chunk_size"),
    ],
)
def test_irope_refuses_what_its_formula_cannot_use(run_cli, tmp_path, args, config, named, rule):
    extra = []
    if config is not None:
        (tmp_path / "c.json").write_text(config)
        extra = ["--config", str(tmp_path / "c.json")]
    result = run_cli("rope", "irope", *args, *extra, "--format", "json")
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and f"'{named}'" in result.stderr
    assert rule in result.stderr, result.stderr


@pytest.mark.parametrize("inner", ["5", "[1, 2]"])
def test_irope_reads_a_config_whose_text_config_is_no_object(run_cli, tmp_path, inner):
    (tmp_path / "c.json").write_text(f'{{"text_config": {inner}, "num_hidden_layers": 8}}')
    result = run_cli("rope", "irope", "--config", str(tmp_path / "c.json"))
    assert result.exit_code == 0, result.output  # was an internal TypeError
    assert result.stdout.startswith("8 layers")


@pytest.mark.parametrize("rope_type", ["yarn", "linear"])
@pytest.mark.parametrize("factor", ["1e39", "1e300"])
def test_llama_cpp_arithmetic_refuses_a_factor_beyond_float32(run_cli, tmp_path, rope_type, factor):
    result = run_cli(
        "rope",
        "cache",
        "--arithmetic",
        "llama.cpp",
        "--head-dim",
        "8",
        "--n",
        "2",
        "--rope-type",
        rope_type,
        "--factor",
        factor,
        *(["--original-max-position-embeddings", "4096"] if rope_type == "yarn" else []),
        "-o",
        str(tmp_path / "c.npy"),
    )
    assert result.exit_code == 2, result.output  # yarn: ZeroDivisionError; linear: angles 0
    assert result.stderr.count("\n") == 1 and "'--factor'" in result.stderr
    assert "must be at most 3.4e38 for llama.cpp" in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option", ["--ulps", "--atol"])
def test_diff_refuses_a_nan_tolerance(run_cli, tmp_path, option):
    import numpy as np

    np.save(tmp_path / "a.npy", np.ones((2, 2), np.float32))
    np.save(tmp_path / "b.npy", np.ones((2, 2), np.float32))
    result = run_cli("diff", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), option, "nan")
    assert result.exit_code == 2, result.output  # was accepted: equal within NaN
    assert result.stderr.count("\n") == 1 and f"'{option}'" in result.stderr


def test_alibi_identify_names_its_file_argument(run_cli, tmp_path):
    (tmp_path / "s.csv").write_text("0.5,0.25\n0.125,1\n")
    result = run_cli("alibi", "identify", str(tmp_path / "s.csv"))
    assert result.exit_code == 2
    assert "'FILE'" in result.stderr and "VALUES" not in result.stderr  # was 'VALUES...'


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_xpos_refuses_a_scale_base_whose_scales_overflow(run_cli, tmp_path, dtype):
    out = tmp_path / "x.npy"
    args = ["xpos", "--head-dim", "8", "--n", "4", "--scale-base", "1e-300", "--dtype", dtype]
    result = run_cli(*args, "-o", str(out))
    assert result.exit_code == 2, result.output  # was a table of inf
    assert result.stderr.count("\n") == 1 and "'--scale-base'" in result.stderr
    assert not out.exists()


@pytest.mark.parametrize("inner", ["5", "[1]", '"x"'])
def test_engines_and_gguf_check_read_a_config_whose_text_config_is_no_object(
    run_cli, tmp_path, inner
):
    """It was an internal TypeError, then the top level read in its place; a text model's
    key that holds no object is now refused by name, in one line, by both commands."""
    config = tmp_path / "config.json"
    config.write_text(f'{{"text_config": {inner}, "rope_theta": 10000.0, "head_dim": 8}}')
    gguf = _gguf(tmp_path / "m.gguf", "llama", freqs=[1.0, 1.0, 1.0, 1.0])
    for args in (
        ("rope", "engines", str(config)),
        ("gguf", "check", gguf, "--config", str(config)),
    ):
        result = run_cli(*args)
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
        assert "field text_config must be an object (the text model's config)" in result.stderr
        if args[0] == "rope":  # engines takes the config as FILE: it named a '--config' it lacks
            assert "Invalid value for 'FILE'" in result.stderr, result.stderr


@pytest.mark.parametrize("theta", ['"abc"', "[1]", "-5", "true", "0.5", "1"])
def test_engines_refuses_a_top_level_theta_transformers_4_cannot_use(run_cli, tmp_path, theta):
    config = tmp_path / "config.json"
    params = '{"rope_type": "default", "rope_theta": 10000.0}'
    config.write_text(f'{{"rope_parameters": {params}, "rope_theta": {theta}, "head_dim": 8}}')
    result = run_cli("rope", "engines", str(config))
    assert result.exit_code == 2, result.output  # "abc", [1]: internal errors; -5: a NaN row
    assert result.stderr.count("\n") == 1 and "'FILE': must give rope_theta as a finite " in (
        result.stderr  # 0.5 was refused as "--theta", an option rope engines does not have
    )
    assert "number > 1" in result.stderr  # every θ's one rule


@pytest.mark.parametrize(
    ("args", "rule"),
    [
        (
            ["timestep", "--model", "flux", "--d", "8", "--linspace", "0", "1e308", "3"],
            "must stay finite",
        ),  # t·1000 was inf: a table of NaN
        (["timestep", "--model", "dit", "--d", "8", "1e308"], "at most 2^56 (7.2e16) radians"),
    ],
)
def test_timestep_refuses_values_whose_table_would_hold_nan(run_cli, args, rule):
    result = run_cli(*args, "--format", "csv")
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and rule in result.stderr
    assert "nan" not in result.stdout.lower()


@pytest.mark.parametrize(("tensors", "x"), [("mp", "1e308"), ("gaussian", "1e300")])
def test_random_fourier_refuses_inputs_whose_angles_overflow(run_cli, tmp_path, tensors, x):
    import numpy as np

    if tensors == "mp":
        arrays = {"freqs": np.array([1.0, 2.0], np.float32), "phases": np.zeros(2, np.float32)}
    else:
        arrays = {"W": np.array([3e38, 1.0], np.float32)}
    np.savez(tmp_path / "m.npz", **arrays)  # type: ignore[arg-type]
    result = run_cli("random-fourier", str(tmp_path / "m.npz"), x, "--format", "csv")
    assert result.exit_code == 2, result.output  # was a row of NaN
    assert result.stderr.count("\n") == 1 and "must stay finite" in result.stderr


@pytest.mark.parametrize("name", ["t.npy", "link.csv"])
def test_random_fourier_read_never_replaces_its_table(run_cli, tmp_path, name):
    import numpy as np

    np.savez(tmp_path / "m.npz", freqs=np.ones(3, np.float32), phases=np.zeros(3, np.float32))
    np.save(tmp_path / "t.npy", np.zeros((2, 3)))
    before = (tmp_path / "t.npy").read_bytes()
    if name == "link.csv":
        (tmp_path / name).symlink_to("t.npy")
    result = run_cli(
        "random-fourier",
        str(tmp_path / "m.npz"),
        "--read",
        str(tmp_path / "t.npy"),
        "-o",
        str(tmp_path / name),
    )
    assert result.exit_code == 2, result.output  # t.npy was replaced by CSV rows
    assert result.stderr.count("\n") == 1 and "'--output'" in result.stderr
    assert (tmp_path / "t.npy").read_bytes() == before


@pytest.mark.parametrize("field", ["floor_scale", "attn_scale", "num_hidden_layers"])
@pytest.mark.parametrize("value", ["NaN", "1e400"])
def test_irope_refuses_a_non_finite_config_field(run_cli, tmp_path, field, value):
    (tmp_path / "c.json").write_text(f'{{"{field}": {value}}}')
    result = run_cli("rope", "irope", "--config", str(tmp_path / "c.json"))
    assert result.exit_code == 2, result.output  # int(NaN) for every rule: internal errors
    assert result.stderr.count("\n") == 1 and f"field {field} must be" in result.stderr
