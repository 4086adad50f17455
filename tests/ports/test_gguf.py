"""GGUF files written by llama.cpp's own ``gguf`` package (tools/library_fixtures/generate_gguf.py).

Independent values: the configs the fixtures were made from, the issue's golden numbers and
mpmath. The GGUFs hold the converter's float32 ``rope_freqs`` (torch), not pecli's.
"""

from __future__ import annotations

import json
import math
import shutil
import struct
import subprocess
from pathlib import Path

import mpmath
import numpy as np
import pytest
from gguf_files import header_only_gguf

from pecli.core.errors import ParameterError
from pecli.core.ports.ggml import deepseek_factors, yarn_corr_dims
from pecli.core.ports.gguf_modes import rope_mode
from pecli.io.ports.gguf import read_f32, read_gguf, read_rope_tensors

HERE = Path(__file__).parent.parent / "fixtures" / "libraries" / "gguf"
GOOD = ["llama31", "qwen_yarn", "gpt_oss", "phi3", "linear", "deepseek", "qwen2vl"]
#: Each mistaken file and the item its check must name.
BAD = {
    "bad_llama31_base": ("llama31", "llama.rope.freq_base"),
    "bad_llama31_freqs": ("llama31", "rope_freqs.weight[25]"),
    "bad_llama31_no_freqs": ("llama31", "rope_freqs.weight"),
    "bad_qwen_yarn_no_orig": ("qwen_yarn", "qwen2.rope.scaling.original_context_length"),
    "bad_phi3_swapped": ("phi3", "rope_factors_long.weight/rope_factors_short.weight"),
    "bad_deepseek_log_mul": ("deepseek", "deepseek2.rope.scaling.yarn_log_multiplier"),
}


def _config(name: str) -> dict:
    return json.loads((HERE / f"{name}.config.json").read_text())


def test_llama31_rope_freqs_are_the_issue_values():
    values = read_f32(read_gguf(str(HERE / "llama31.gguf")), "rope_freqs.weight")
    assert values.dtype == np.float32 and values.shape == (64,)
    assert np.all(values[:29] == 1.0) and np.all(values[35:] == 8.0)
    golden = [1.207484, 1.5534146, 2.026313, 2.69453, 3.684253, 5.2573266]
    np.testing.assert_allclose(values[29:35], golden, rtol=2e-7)


def test_the_header_holds_what_the_config_says():
    for name in GOOD:
        gguf, config = read_gguf(str(HERE / f"{name}.gguf")), _config(name)
        arch = gguf.arch
        assert gguf.version == 3
        assert gguf.metadata[f"{arch}.context_length"] == config["max_position_embeddings"]
        assert gguf.metadata[f"{arch}.rope.freq_base"] == np.float32(config["rope_theta"])
        assert gguf.tensors["blk.0.attn_q.weight"].type_name == "Q8_0"


def test_a_quantised_weight_is_never_decoded():
    gguf = read_gguf(str(HERE / "llama31.gguf"))
    with pytest.raises(ParameterError, match="is Q8_0: pecli reads only F32"):
        read_f32(gguf, "blk.0.attn_q.weight")


@pytest.mark.parametrize(
    "command", [["gguf", "show"], ["gguf", "check"], ["diff", str(HERE / "llama31.gguf")]]
)
def test_f16_rope_freqs_are_refused_with_why(run_cli, command):
    """gguf 0.19's writer stores a float16 array as F16, but the converter never does."""
    f16 = HERE / "bad_llama31_f16.gguf"
    assert read_gguf(str(f16)).tensors["rope_freqs.weight"].type_name == "F16"
    extra = ["--config", str(HERE / "llama31.config.json")] if command[-1] == "check" else []
    result = run_cli(*command, str(f16), *extra)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.output
    assert "rope_freqs.weight is F16" in result.stderr
    assert "every 1-D tensor as F32" in result.stderr and "would abort" in result.stderr


@pytest.mark.parametrize("name", GOOD)
def test_a_faithful_conversion_passes(run_cli, name):
    result = run_cli(
        "gguf", "check", str(HERE / f"{name}.gguf"), "--config", str(HERE / f"{name}.config.json")
    )
    assert result.exit_code == 0, result.output
    rows = [line.split() for line in result.stdout.splitlines()[2:] if "  " in line]
    assert all(row[1] == "agree" for row in rows if len(row) > 1 and not row[0].endswith(":"))


def _check(run_cli, gguf: str, config: str) -> tuple[int, list[dict]]:
    """``gguf check`` of fixture ``gguf`` against config ``config``: status and JSON rows."""
    json_rows = ["--format", "json"]
    config_path = str(HERE / f"{config}.config.json")
    result = run_cli(
        "gguf", "check", str(HERE / f"{gguf}.gguf"), "--config", config_path, *json_rows
    )
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("name", sorted(BAD))
def test_each_porting_mistake_is_caught_and_named(run_cli, name):
    config, item = BAD[name]
    status, rows = _check(run_cli, name, config)
    assert status == 1
    assert [r["item"] for r in rows if r["status"] in ("differ", "missing")] == item.split()


def test_a_config_that_moved_is_caught(run_cli, tmp_path):
    config = _config("qwen_yarn")
    config["rope_scaling"]["factor"] = 8.0
    (tmp_path / "config.json").write_text(json.dumps(config))
    result = run_cli("gguf", "check", str(HERE / "qwen_yarn.gguf"), "--config", str(tmp_path))
    assert result.exit_code == 1
    assert "qwen2.rope.scaling.factor" in result.stderr


def test_truncate_false_is_flagged_with_both_ranges(run_cli):
    result = run_cli(
        "gguf", "check", str(HERE / "gpt_oss.gguf"), "--config", str(HERE / "gpt_oss.config.json")
    )
    assert "truncate: false cannot be expressed" in result.stdout
    assert "8.0928…17.3980 in transformers, 8…18 in ggml" in result.stdout


def test_gpt_oss_correction_range_against_mpmath():
    def corr(r):
        return 64 * mpmath.log(4096 / (r * 2 * mpmath.pi)) / (2 * mpmath.log(150000))

    exact, ggml = yarn_corr_dims(64, 4096, 150000.0, 32.0, 1.0)
    assert exact == pytest.approx((float(corr(32)), float(corr(1))), rel=1e-14)
    assert ggml == (math.floor(corr(32)), math.ceil(corr(1))) == (8, 18)
    assert round(exact[0], 4) == 8.0928 and round(exact[1], 4) == 17.398


def test_deepseek_factors_against_mpmath():
    values = deepseek_factors(40.0, 1.0)
    internal = 1 + mpmath.mpf("0.1") * mpmath.log(40)
    assert values["ggml_mscale"] == pytest.approx(float(internal), rel=1e-15)
    assert values["cancelling_attn_factor"] == pytest.approx(float(1 / internal), rel=1e-15)
    assert values["kq_multiplier"] == pytest.approx(float(internal**2), rel=1e-15)
    assert [
        round(values[k], 7) for k in ("ggml_mscale", "cancelling_attn_factor", "kq_multiplier")
    ] == [1.3688879, 0.7305200, 1.8738542]


def test_phi3_attention_factor_is_the_issue_value():
    gguf = read_gguf(str(HERE / "phi3.gguf"))
    stored = gguf.metadata["phi3.rope.scaling.attn_factor"]
    exact = mpmath.sqrt(1 + mpmath.log(32) / mpmath.log(4096))
    assert round(float(exact), 6) == 1.190238
    assert stored == np.float32(float(exact))


def test_rope_modes_of_the_architectures():
    assert [
        rope_mode(a)[:2]
        for a in ("llama", "deepseek2", "qwen2", "phi3", "gpt-oss", "qwen2vl", "qwen3vl")
    ] == [
        ("NORM", 0),
        ("NORM", 0),
        ("NEOX", 2),
        ("NEOX", 2),
        ("NEOX", 2),
        ("MROPE", 8),
        ("IMROPE", 40),
    ]


def test_show_lists_keys_mode_and_tensors(run_cli):
    result = run_cli("gguf", "show", str(HERE / "deepseek.gguf"))
    assert result.exit_code == 0
    assert "deepseek2.rope.scaling.yarn_log_multiplier = 0.10000000149011612" in result.stdout
    assert "rope mode NORM (0)" in result.stdout and "1 Q8_0" in result.stdout


def _hostile(tmp_path: Path, at: int, packed: bytes) -> str:
    data = bytearray((HERE / "llama31.gguf").read_bytes())
    data[at : at + len(packed)] = packed
    path = tmp_path / "hostile.gguf"
    path.write_bytes(bytes(data))
    return str(path)


@pytest.mark.parametrize(
    ("at", "packed", "message"),
    [
        (0, b"GGUX", "does not start with the magic"),
        (4, struct.pack("<I", 99), "version 99"),
        (8, struct.pack("<Q", 1 << 60), "tensor count 1152921504606846976 cannot fit"),
        (16, struct.pack("<Q", 1 << 40), "key/value count 1099511627776 cannot fit"),
        (24, struct.pack("<Q", 1 << 62), "a key of length 4611686018427387904 cannot fit"),
    ],
)
def test_hostile_headers_are_refused_in_one_line(run_cli, tmp_path, at, packed, message):
    path = _hostile(tmp_path, at, packed)
    result = run_cli("gguf", "show", path)
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("keep", [3, 20, 100, 400, 700, 900])
def test_a_truncated_gguf_is_refused_in_one_line(run_cli, tmp_path, keep):
    path = tmp_path / "cut.gguf"
    path.write_bytes((HERE / "llama31.gguf").read_bytes()[:keep])
    result = run_cli("gguf", "check", str(path), "--config", str(HERE / "llama31.config.json"))
    assert result.exit_code == 2, result.output
    assert "truncated GGUF" in result.stderr or "magic" in result.stderr


def test_the_output_never_replaces_an_input(pecli_cmd, tmp_path):
    link = tmp_path / "same.json"
    config = tmp_path / "config.json"
    shutil.copy(HERE / "llama31.config.json", config)
    link.symlink_to(config)
    before = config.read_bytes()
    done = subprocess.run(
        [
            *pecli_cmd,
            "gguf",
            "check",
            str(HERE / "llama31.gguf"),
            "--config",
            str(config),
            "-o",
            str(link),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "must not be the input" in done.stderr
    assert config.read_bytes() == before


def test_json_report_goes_to_a_file(run_cli, tmp_path):
    out = tmp_path / "report.json"
    result = run_cli(
        "gguf",
        "check",
        str(HERE / "phi3.gguf"),
        "--config",
        str(HERE / "phi3.config.json"),
        "-o",
        str(out),
    )
    assert result.exit_code == 0
    rows = json.loads(out.read_text())
    assert {r["item"] for r in rows} >= {
        "rope_factors_long.weight",
        "phi3.rope.scaling.attn_factor",
    }


def test_absurd_tensor_infos_are_refused(run_cli, tmp_path):
    data = (HERE / "llama31.gguf").read_bytes()
    after_name = data.index(b"blk.0.attn_q.weight") + len(b"blk.0.attn_q.weight")
    too_many = _hostile(tmp_path, after_name, struct.pack("<I", 9))
    result = run_cli("gguf", "show", too_many)
    assert result.exit_code == 2 and "has 9 dimensions (ggml allows 4)" in result.stderr
    huge = _hostile(tmp_path, after_name + 4, struct.pack("<Q", 1 << 40))
    result = run_cli("gguf", "show", huge)
    assert (
        result.exit_code == 2 and "truncated GGUF file: tensor blk.0.attn_q.weight" in result.stderr
    )


def test_a_key_given_twice_is_refused(run_cli, tmp_path):
    data = (HERE / "llama31.gguf").read_bytes()
    # the first two keys have equal lengths in the file: make the second a copy of the first
    first = data.index(b"general.architecture")
    second = data.index(b"llama.context_length")
    assert len(b"general.architecture") == len(b"llama.context_length")
    assert first < second
    path = _hostile(tmp_path, second, b"general.architecture")
    result = run_cli("gguf", "show", path)
    assert result.exit_code == 2 and "key 'general.architecture' appears twice" in result.stderr


def test_show_identifies_rope_freqs_as_llama3(run_cli):
    result = run_cli("gguf", "show", str(HERE / "llama31.gguf"), "--format", "json")
    reading = json.loads(result.stdout)["rope_freqs_reading"]
    assert reading["rope_type"] == "llama3" and reading["theta"] == 500000.0
    assert reading["factor"] == 8.0 and reading["original_max_position_embeddings"] == 8192


def test_a_freq_base_of_1_is_no_theta_so_rope_freqs_get_no_reading():
    """``rope_freqs`` [1, 1, 1, 1] over 8 rotated channels: with ``freq_base`` 10^4 the ω are
    10^4^(−2i/8), transformers' default inv_freq at θ = 10^4; with ``freq_base`` exactly 1,
    which is no θ (a θ is a finite number > 1, pecli's one rule), there is no reading."""
    from pecli.analysis.ports.gguf import identify_freqs

    keys = {"llama.rope.dimension_count": 8}
    reading = identify_freqs([1.0] * 4, {**keys, "llama.rope.freq_base": 10000.0}, "llama.")
    assert reading == {"rope_type": "default", "theta": 10000.0}
    assert identify_freqs([1.0] * 4, {**keys, "llama.rope.freq_base": 1.0}, "llama.") is None


def _check_json(run_cli, tmp_path, gguf: str, config: dict):
    (tmp_path / "config.json").write_text(json.dumps(config))
    result = run_cli(
        "gguf", "check", str(HERE / f"{gguf}.gguf"), "--config", str(tmp_path), "--format", "json"
    )
    return result.exit_code, {r["item"]: r for r in json.loads(result.stdout)}


def test_the_converters_top_level_length_quirk_is_noted(run_cli, tmp_path):
    config = _config("llama31")
    config["rope_scaling"]["original_max_position_embeddings"] = 4096
    status, rows = _check_json(run_cli, tmp_path, "llama31", config)
    assert status == 1 and rows["rope_freqs.weight[25]"]["status"] == "differ"
    notes = [r["detail"] for r in rows.values() if r["status"] == "note"]
    assert any("top of the config (8192)" in n and "(4096)" in n for n in notes)


def test_rope_freqs_where_the_config_has_none(run_cli, tmp_path):
    config = {**_config("llama31"), "rope_scaling": None}
    status, rows = _check_json(run_cli, tmp_path, "llama31", config)
    assert status == 1 and rows["rope_freqs.weight"]["status"] == "differ"
    assert "ggml divides θ by it" in rows["rope_freqs.weight"]["detail"]


def test_a_stray_scaling_factor_beside_rope_freqs(run_cli, tmp_path):
    status, rows = _check_json(run_cli, tmp_path, "linear", _config("llama31"))
    assert status == 1
    assert rows["llama.rope.scaling.factor"] == {
        "item": "llama.rope.scaling.factor",
        "status": "differ",
        "expected": 1.0,
        "found": 2.0,
        "detail": "",
    }


def test_sections_and_sliding_theta_are_required_when_the_config_has_them(run_cli, tmp_path):
    config = _config("qwen_yarn")
    config["rope_scaling"]["mrope_section"] = [16, 24, 24]
    status, rows = _check_json(run_cli, tmp_path, "qwen_yarn", config)
    assert status == 1
    assert rows["qwen2.rope.dimension_sections"]["expected"] == [16, 24, 24, 0]
    assert rows["qwen2.rope.dimension_sections"]["status"] == "missing"


def test_dynamic_ntk_is_noted(run_cli, tmp_path):
    config = {**_config("linear"), "rope_scaling": {"type": "dynamic", "factor": 2.0}}
    status, rows = _check_json(run_cli, tmp_path, "linear", config)
    assert status == 1
    assert rows["llama.rope.scaling.type"]["status"] == "differ"  # the file says linear
    assert any("no dynamic NTK" in r["detail"] for r in rows.values())


def test_neox_for_an_m_rope_config_is_caught(run_cli, tmp_path):
    config = {
        **_config("qwen_yarn"),
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
    }
    status, rows = _check_json(run_cli, tmp_path, "qwen_yarn", config)  # arch qwen2: NEOX
    assert status == 1
    assert rows["rope mode"]["status"] == "differ" and rows["rope mode"]["expected"] == "MROPE"
    config["architectures"] = ["Qwen3VLForConditionalGeneration"]
    status, rows = _check_json(run_cli, tmp_path, "qwen2vl", config)  # arch qwen2vl: MROPE
    assert rows["rope mode"]["expected"] == "IMROPE" and rows["rope mode"]["found"] == "MROPE"


def test_a_big_endian_file_reads_the_same(run_cli):
    big = read_gguf(str(HERE / "llama31_big_endian.gguf"))
    little = read_gguf(str(HERE / "llama31.gguf"))
    assert big.order == ">" and little.order == "<"
    assert big.metadata == little.metadata
    np.testing.assert_array_equal(
        read_f32(big, "rope_freqs.weight"), read_f32(little, "rope_freqs.weight")
    )
    result = run_cli(
        "gguf",
        "check",
        str(HERE / "llama31_big_endian.gguf"),
        "--config",
        str(HERE / "llama31.config.json"),
    )
    assert result.exit_code == 0


def _notes(run_cli, gguf: str, config: str) -> list[str]:
    return [r["detail"] for r in _check(run_cli, gguf, config)[1] if r["status"] == "note"]


@pytest.mark.parametrize("name", GOOD)
def test_the_deepseek_note_is_given_for_yarn_with_mscale_all_dim_only(run_cli, name):
    """deepseek2.cpp's convention concerns YaRN with ``mscale_all_dim``: read in the config."""
    rope = _config(name)["rope_scaling"]
    kind = rope.get("rope_type", rope.get("type"))
    deepseek = [n for n in _notes(run_cli, name, name) if "DeepSeek convention" in n]
    assert len(deepseek) == (kind == "yarn" and "mscale_all_dim" in rope)
    if deepseek:  # factor 40, mscale_all_dim 1: 1 + 0.1 ln 40, its inverse and square (mpmath)
        internal = 1 + mpmath.mpf("0.1") * mpmath.log(40)
        for value in (internal, 1 / internal, internal**2):
            assert f"{float(value):.7f}" in deepseek[0]
        assert "yarn_log_multiplier = 0.1·mscale_all_dim = 0.1 " in deepseek[0]
        assert "before llama.cpp PR 17945" not in deepseek[0]  # the file holds 0.1


def test_a_log_multiplier_holding_mscale_all_dim_itself_is_the_old_convention(run_cli):
    """bad_deepseek_log_mul stores 1.0 = mscale_all_dim (llama.cpp before PR 17945)."""
    stored = read_gguf(str(HERE / "bad_deepseek_log_mul.gguf")).metadata
    assert stored["deepseek2.rope.scaling.yarn_log_multiplier"] == 1.0
    (note,) = [n for n in _notes(run_cli, "bad_deepseek_log_mul", "deepseek") if "DeepSeek" in n]
    assert note.startswith("yarn_log_multiplier holds mscale_all_dim itself (1)")


def _deepseek_gguf(tmp_path: Path, log_multiplier: bytes) -> Path:
    """deepseek.config.json's rope keys as the converter writes them, by hand (GGUF v3 layout:
    magic, version, tensor and key counts, then each key as a length-prefixed string, a uint32
    value type and the value), with ``log_multiplier`` (type code and value) as the last key."""

    def string(raw: bytes) -> bytes:
        return struct.pack("<Q", len(raw)) + raw

    keys = [
        (b"general.architecture", struct.pack("<I", 8) + string(b"deepseek2")),
        (b"deepseek2.rope.freq_base", struct.pack("<If", 6, 10000.0)),
        (b"deepseek2.rope.dimension_count", struct.pack("<II", 4, 64)),
        (b"deepseek2.rope.scaling.type", struct.pack("<I", 8) + string(b"yarn")),
        (b"deepseek2.rope.scaling.factor", struct.pack("<If", 6, 40.0)),
        (b"deepseek2.rope.scaling.original_context_length", struct.pack("<II", 4, 4096)),
        (b"deepseek2.rope.scaling.yarn_beta_fast", struct.pack("<If", 6, 32.0)),
        (b"deepseek2.rope.scaling.yarn_beta_slow", struct.pack("<If", 6, 1.0)),
        (b"deepseek2.rope.scaling.yarn_log_multiplier", log_multiplier),
    ]
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, len(keys))
    head += b"".join(string(key) + value for key, value in keys)
    path = tmp_path / "deepseek.gguf"
    path.write_bytes(head)
    return path


@pytest.mark.parametrize(
    ("stored", "found", "type_name", "old"),
    [
        (struct.pack("<IQ", 8, 3) + b"0.1", "0.1", "STRING", False),
        (struct.pack("<II", 4, 1), 1, "UINT32", True),
        (struct.pack("<Id", 12, 0.1), 0.1, "FLOAT64", False),
    ],
)
def test_a_deepseek_log_multiplier_of_the_wrong_type_is_refused_as_llama_cpp_refuses_it(
    run_cli, tmp_path, stored, found, type_name, old
):
    """A malformed DeepSeek GGUF: yarn_log_multiplier not a FLOAT32 (llama.cpp's
    ``get_key`` refuses the key, "has wrong type"). The other keys agree with the config; the
    multiplier differs by its type (a string, even "0.1", is never the number 0.1), and the
    pre-PR-17945 warning is given only for a number equal to mscale_all_dim (1)."""
    path = _deepseek_gguf(tmp_path, stored)
    config = str(HERE / "deepseek.config.json")
    result = run_cli("gguf", "check", str(path), "--config", config, "--format", "json")
    assert result.exit_code == 1, result.output
    rows = json.loads(result.stdout)
    bad = {r["item"]: r for r in rows if r["status"] in ("differ", "missing")}
    key = "deepseek2.rope.scaling.yarn_log_multiplier"
    assert bad[key + " (type)"]["expected"] == "FLOAT32"
    assert bad[key + " (type)"]["found"] == type_name
    assert "wrong type" in bad[key + " (type)"]["detail"]
    agree = {r["item"] for r in rows if r["status"] == "agree"}
    assert agree >= {f"deepseek2.rope.{k}" for k in ("freq_base", "dimension_count")}
    if type_name == "FLOAT64":  # 0.1 as a double is the right number in the wrong type
        assert set(bad) == {key + " (type)"} and key in agree
    else:
        assert set(bad) == {key, key + " (type)"}
        assert bad[key]["found"] == found and bad[key]["expected"] == pytest.approx(0.1)
    (note,) = [r["detail"] for r in rows if r["status"] == "note" and "DeepSeek" in r["detail"]]
    assert note.startswith("yarn_log_multiplier holds mscale_all_dim itself (1)") == old


def test_every_value_type_and_ggml_type_reads_as_llama_cpps_package_reads_it(run_cli):
    """every_type.gguf: a key of each GGUF value type (uint8 200 and int8 -100 tell the two
    apart) and two blocks of each ggml type; every_type.json: what gguf's GGUFReader read."""
    record = json.loads((HERE / "every_type.json").read_text())
    gguf = read_gguf(str(HERE / "every_type.gguf"))
    assert {k: gguf.metadata[k] for k in record["keys"]} == {
        k: entry["value"] for k, entry in record["keys"].items()
    }
    named = {
        k: "{}[{}]".format(*e["type"]) if len(e["type"]) == 2 else e["type"][0]
        for k, e in record["keys"].items()
    }
    assert {k: gguf.types[k] for k in record["keys"]} == named  # GGUFReader's types
    assert len(record["tensors"]) == len(gguf.tensors) == 34
    for name, theirs in record["tensors"].items():
        ours = gguf.tensors[name]
        assert (ours.type_name, ours.type_code) == (theirs["type"], theirs["type_code"]), name
        assert (list(ours.shape), ours.offset) == (theirs["shape"], theirs["data_offset"]), name
        assert ours.nbytes == theirs["n_bytes"] == 2 * theirs["type_size"], name
    shown = run_cli("gguf", "show", str(HERE / "every_type.gguf")).stdout
    assert all(f"1 {t['type']}" in shown for t in record["tensors"].values())


def _with_vocabulary(tmp_path: Path, tokens: list[bytes]) -> tuple[Path, bytes, int]:
    """A GGUF whose vocabulary comes before its rope keys; and where the vocabulary starts."""

    def string(raw: bytes) -> bytes:
        return struct.pack("<Q", len(raw)) + raw

    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 4)
    head += string(b"general.architecture") + struct.pack("<I", 8) + string(b"llama")
    head += string(b"tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, len(tokens))
    start = len(head)
    head += b"".join(map(string, tokens))
    head += string(b"llama.rope.freq_base") + struct.pack("<If", 6, 500000.0)
    head += string(b"llama.context_length") + struct.pack("<II", 4, 8192)
    path = tmp_path / "vocab.gguf"
    path.write_bytes(head)
    return path, head, start


def test_a_vocabulary_over_several_read_windows_is_walked_to_the_keys_after_it(run_cli, tmp_path):
    """150,000 tokens of 1 to 17 bytes: 2.4 MB, strings across the 1 MiB windows' edges."""
    tokens = [b"t" * (1 + k % 17) for k in range(150_000)]
    path, head, start = _with_vocabulary(tmp_path, tokens)
    result = run_cli("gguf", "show", str(path), "--format", "json")
    assert result.exit_code == 0, result.output
    keys = json.loads(result.stdout)["keys"]
    assert keys == {"llama.context_length": 8192, "llama.rope.freq_base": 500000.0}
    path.write_bytes(head[: start + 1_500_000])  # cut inside the vocabulary
    result = run_cli("gguf", "show", str(path))
    assert result.exit_code == 2 and "truncated GGUF" in result.stderr
    at = start + sum(8 + len(t) for t in tokens[:100_000])  # a token's length: absurd
    path.write_bytes(head[:at] + struct.pack("<Q", 1 << 50) + head[at + 8 :])
    result = run_cli("gguf", "show", str(path))
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert f"a string of length {1 << 50} cannot fit" in result.stderr


def test_a_frequency_tensor_may_have_trailing_sizes_of_one_but_not_two():
    """ggml reads ``ne = [64, 1]`` as the vector ``[64]`` (the issue's values); ``[32, 2]`` is
    a matrix over the same 64 floats, which llama.cpp's ``{n_rot/2}`` check refuses."""
    import dataclasses

    gguf = read_gguf(str(HERE / "llama31.gguf"))
    name = "rope_freqs.weight"

    def shaped(*ne: int):
        tensor = dataclasses.replace(gguf.tensors[name], shape=ne)
        return dataclasses.replace(gguf, tensors={**gguf.tensors, name: tensor})

    values = read_rope_tensors(shaped(64, 1), (name,))[name]
    assert values.shape == (64,) and np.all(values[:29] == 1.0) and np.all(values[35:] == 8.0)
    with pytest.raises(ParameterError, match=r"ne = \[32, 2\]"):
        read_rope_tensors(shaped(32, 2), (name,))


def test_an_absent_dimension_count_is_the_head_width_as_llama_cpp_takes_it(run_cli, tmp_path):
    """llama31.gguf with its ``llama.rope.dimension_count`` key renamed (same length, so the
    file stays valid): llama.cpp's ``n_rot`` defaults to ``n_embd / n_head`` in uint32, here
    4096 / 32 = 128, an integer, as the converter would have written it."""
    data = (HERE / "llama31.gguf").read_bytes()
    assert data.count(b"llama.rope.dimension_count") == 1
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(data.replace(b"llama.rope.dimension_count", b"llama.rope.dimension_xount"))
    (tmp_path / "config.json").write_text(json.dumps(_config("llama31")))
    result = run_cli("gguf", "check", str(gguf), "--config", str(tmp_path), "--format", "json")
    row = {r["item"]: r for r in json.loads(result.stdout)}["llama.rope.dimension_count"]
    assert row["status"] == "agree" and row["detail"] == "absent: llama.cpp takes the head width"
    assert row["found"] == 128 and isinstance(row["found"], int)


def test_a_config_float_and_a_stored_integer_compare_as_float32():
    """float32 holds 10^9 and 10^9 + 1 as the same number (spacing 64 there, by hand): equal;
    10000.0 and 10001 differ by a whole unit at spacing 2^-10: not equal."""
    from pecli.analysis.ports.gguf import _same

    assert _same(1e9, 1_000_000_001) and _same(1_000_000_001, 1e9)
    assert not _same(10000.0, 10001)


def test_an_absent_dimension_count_is_attention_key_length_before_the_head_width():
    """llama.cpp's ``n_rot`` defaults to ``n_embd_head_k``: ``attention.key_length`` when the
    file has it (here 128, the config's 4096 / 32), else ``n_embd / n_head`` (4096 / 64 = 64
    with this file's head count, which would differ)."""
    from pecli.analysis.ports.gguf import check_gguf

    meta = {
        "llama.attention.key_length": 128,
        "llama.embedding_length": 4096,
        "llama.attention.head_count": 64,
    }
    rows = {f.item: f for f in check_gguf(_config("llama31"), "llama", meta, {})}
    row = rows["llama.rope.dimension_count"]
    assert (row.status, row.expected, row.found) == ("agree", 128, 128)
    del meta["llama.attention.key_length"]
    row = {f.item: f for f in check_gguf(_config("llama31"), "llama", meta, {})}[
        "llama.rope.dimension_count"
    ]
    assert (row.status, row.expected, row.found) == ("differ", 128, 64)


def test_factors_are_swapped_only_when_every_element_is_the_other_list():
    """Phi-3's 48 long and 48 short factors (phi3.config.json) given as the file's tensors:
    exchanged whole, one finding names the swap; the long tensor holding the short factors
    but for one element (its last, 1000 times larger), no swap: the elements are named."""
    from pecli.analysis.ports.gguf import check_gguf

    config = _config("phi3")
    long = np.array(config["rope_scaling"]["long_factor"], np.float32)
    short = np.array(config["rope_scaling"]["short_factor"], np.float32)
    meta = read_gguf(str(HERE / "phi3.gguf")).metadata
    names = ("rope_factors_long.weight", "rope_factors_short.weight")

    def bad(file_long: np.ndarray, file_short: np.ndarray) -> list[str]:
        tensors = dict(zip(names, (file_long, file_short), strict=True))
        findings = check_gguf(config, "phi3", meta, tensors)
        return [f.item for f in findings if f.status in ("differ", "missing")]

    assert bad(long, short) == []
    assert bad(short, long) == ["/".join(names)]
    nearly = short.copy()
    nearly[-1] *= 1000
    assert bad(nearly, long) == ["rope_factors_long.weight[0]", "rope_factors_short.weight[0]"]


def test_the_smallest_key_value_is_13_bytes_and_a_count_is_held_to_it(tmp_path):
    """GGUF v3 by hand: no tensors, one key/value of the smallest size, 13 bytes (an empty
    key: its uint64 length 0; the uint32 type UINT8 = 0; one byte, 7). The file is read; the
    same 13 bytes under a count of 2 cannot hold 2 × 13 = 26 and are refused at the count."""
    body = struct.pack("<QIB", 0, 0, 7)
    assert len(body) == 13
    path = tmp_path / "small.gguf"
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + body)
    gguf = read_gguf(str(path))
    assert (gguf.metadata, gguf.types, gguf.tensors) == ({"": 7}, {"": "UINT8"}, {})
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 2) + body)
    with pytest.raises(ParameterError, match="key/value count 2 cannot fit the 13 bytes left"):
        read_gguf(str(path))


def test_a_list_and_a_number_are_never_the_same_key_value():
    """A one-element array (``rope.dimension_sections`` stored as ``[64]``) is not the number
    64, nor 5.0 the list ``[5.0]``; two equal lists are the same, element by element."""
    from pecli.analysis.ports.gguf import _same

    assert not _same(5.0, [5.0]) and not _same([64], 64) and not _same([1], "1")
    assert _same([16, 24, 24, 0], [16, 24, 24, 0]) and not _same([16, 24], [16, 25])


def test_a_gguf_is_a_name_ending_gguf_or_a_file_starting_with_the_magic(tmp_path):
    """stdin (``-``), a missing path and a folder are no GGUF; a file named otherwise is one
    by its first four bytes, ``GGUF`` (the format's magic)."""
    from pecli.io.ports.gguf import is_gguf

    (tmp_path / "m.bin").write_bytes((HERE / "llama31.gguf").read_bytes()[:64])
    (tmp_path / "t.npy").write_bytes(b"\x93NUMPY")
    assert is_gguf(str(tmp_path / "m.bin")) and is_gguf(str(tmp_path / "absent.gguf"))
    assert not any(
        is_gguf(p) for p in ("-", str(tmp_path / "absent"), str(tmp_path), str(tmp_path / "t.npy"))
    )


@pytest.mark.parametrize(
    ("arch", "keys", "config", "row"),
    [
        (  # llama.cpp's gemma3: set_swa_pattern(6), layer il sliding iff il % 6 < 5
            "gemma3",
            {"attention.sliding_window": 1024, "rope.freq_base_swa": 10000.0},
            {
                "model_type": "gemma3_text",
                "rope_local_base_freq": 10000.0,
                "sliding_window": 1024,
                "layer_types": (["full_attention"] + ["sliding_attention"] * 5) * 2,
            },
            ("global layers", "0 6", "5 11"),
        ),
        (  # llama.cpp's smollm3: n_no_rope_layer_step 4, layer il NoPE iff (il + 1) % 4 == 0
            "smollm3",
            {},
            {"model_type": "smollm3", "no_rope_layers": [0, 1, 1, 1] * 3},
            ("NoPE layers", "0 4 8", "3 7 11"),
        ),
    ],
    ids=["gemma3-global", "smollm3-nope"],
)
def test_layers_other_than_llama_cpp_s_hard_coded_pattern_differ(
    run_cli, tmp_path, arch, keys, config, row
):
    """A config of 12 layers whose global / NoPE layers start at layer 0 instead of where
    llama.cpp's loader puts them (patterns above, read in its source by hand): no GGUF key can
    carry them, so ``gguf check`` says they differ, the config's layers against llama.cpp's."""
    base = {"block_count": 12, "attention.key_length": 128, "rope.dimension_count": 128}
    gguf = header_only_gguf(tmp_path / "m.gguf", arch, {**base, "rope.freq_base": 1e4, **keys})
    config = {**config, "num_hidden_layers": 12, "head_dim": 128, "rope_theta": 1e4}
    (tmp_path / "config.json").write_text(json.dumps(config))
    result = run_cli("gguf", "check", gguf, "--config", str(tmp_path), "--format", "json")
    assert result.exit_code == 1, result.output
    rows = json.loads(result.stdout)
    assert [(r["item"], r["expected"], r["found"]) for r in rows if r["status"] == "differ"] == [
        row
    ]


@pytest.mark.parametrize(
    ("arch", "keys", "slice_"),
    [
        ("llama", {}, (0, 32, 128)),  # the first 32 of 128 channels (llama: no default below)
        ("deepseek2", {"attention.kv_lora_rank": 512}, (96, 32, 128)),  # MLA: the last 32
    ],
    ids=["partial-rotary", "mla"],
)
def test_a_gguf_s_dimension_count_below_its_head_is_the_rotated_slice(
    run_cli, tmp_path, arch, keys, slice_
):
    """``rope.dimension_count`` 32 against ``attention.key_length`` 128, written by hand: each
    layer of ``rope layers`` rotates 32 channels (the first ones; for DeepSeek's MLA, marked by
    ``kv_lora_rank``, the last ones, 128 - 32 = 96 on), not the whole head."""
    head = {"block_count": 2, "attention.key_length": 128, "rope.dimension_count": 32}
    gguf = header_only_gguf(tmp_path / "m.gguf", arch, {**head, "rope.freq_base": 1e4, **keys})
    result = run_cli("rope", "layers", gguf, "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["first_channel"], r["rotated"], r["head"]) for r in rows] == [slice_] * 2
