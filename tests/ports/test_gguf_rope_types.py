"""pecli's table of llama.cpp rope types is llama.cpp's, for every architecture it lists.

The oracle is tests/fixtures/libraries/gguf/llama_cpp_rope_types.json: every
``general.architecture`` name of ggml-org/llama.cpp's ``src/llama-arch.cpp`` with the type
``llama_model_rope_type`` (``src/llama-model.cpp``) returns for it, at the commit the file
names, extracted by tools/llama_cpp_rope_types.py (offline; see its docstring).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from gguf_files import header_only_gguf

from pecli.core.ports.gguf_modes import ARCH_MODES, MODES, SECTIONS_MODES, rope_mode

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "libraries" / "gguf" / "llama_cpp_rope_types.json"
LLAMA_CPP = json.loads(FIXTURE.read_text(encoding="utf-8"))
ROWS = LLAMA_CPP["architectures"]
#: llama.h's ``llama_rope_type`` values (NONE = -1, the others ggml.h's GGML_ROPE_TYPE_*).
VALUES = {"NONE": -1, "NORM": 0, "NEOX": 2, "MROPE": 8, "VISION": 24, "IMROPE": 40}


def test_the_fixture_says_where_it_comes_from():
    assert LLAMA_CPP["library"] == "llama.cpp" and LLAMA_CPP["repository"] == "ggml-org/llama.cpp"
    assert len(LLAMA_CPP["commit"]) == 40 and "llama_model_rope_type" in LLAMA_CPP["call"]
    assert LLAMA_CPP["columns"] == ["name", "rope_type", "with_sections"]
    assert len(ROWS) == len({name for name, _, _ in ROWS}) > 100


@pytest.mark.parametrize(("arch", "kind", "with_sections"), ROWS, ids=[r[0] for r in ROWS])
def test_each_architecture_rotates_as_in_llama_cpp(arch, kind, with_sections):
    assert rope_mode(arch)[:2] == (kind, VALUES[kind])
    # llama.cpp's use_mrope(): sections 0 and 1 both > 0; the others keep their type
    assert rope_mode(arch, [16, 24, 24, 0])[0] == (with_sections or kind)
    assert rope_mode(arch, [16, 0, 0, 0])[0] == kind


def test_pecli_lists_no_architecture_llama_cpp_does_not():
    assert sorted(ARCH_MODES) == sorted(name for name, _, _ in ROWS)
    assert {name: alt for name, _, alt in ROWS if alt} == SECTIONS_MODES


def test_every_type_llama_cpp_returns_is_a_record_with_its_value():
    returned = {kind for _, kind, _ in ROWS} | {alt for _, _, alt in ROWS if alt}
    assert returned <= set(MODES)
    assert {name: mode.value for name, mode in MODES.items()} == VALUES


def _tool():
    spec = importlib.util.spec_from_file_location(
        "llama_cpp_rope_types", ROOT / "tools" / "llama_cpp_rope_types.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SWITCH = """llama_rope_type llama_model_rope_type(const llama_model * model) {
    switch (model->arch) {
        // these models do not use RoPE
        case LLM_ARCH_GPT2:
            return LLAMA_ROPE_TYPE_NONE;
        case LLM_ARCH_LLAMA:
        case LLM_ARCH_FOO:
            return LLAMA_ROPE_TYPE_NORM;
        case LLM_ARCH_GLM4:
            return model->hparams.use_mrope() ? LLAMA_ROPE_TYPE_MROPE : LLAMA_ROPE_TYPE_NORM;
        %s
        case LLM_ARCH_UNKNOWN:
            GGML_ABORT("unknown architecture");
    }

    return LLAMA_ROPE_TYPE_NONE;
}
"""
NAMES = """static const std::map<llm_arch, const char *> LLM_ARCH_NAMES = {
    { LLM_ARCH_GPT2, "gpt2" }, { LLM_ARCH_LLAMA, "llama" }, { LLM_ARCH_FOO, "foo-1" },
    { LLM_ARCH_GLM4, "glm4" }, %s { LLM_ARCH_UNKNOWN, "(unknown)" },
};
"""


def _write(folder: Path, names: str = "", switch: str = "") -> Path:
    (folder / "llama-arch.cpp").write_text(NAMES % names, encoding="utf-8")
    (folder / "llama-model.cpp").write_text(SWITCH % switch, encoding="utf-8")
    return folder


def test_the_tool_reads_plain_and_conditional_types(tmp_path):
    data = _tool().table(_write(tmp_path), "0" * 40)
    assert data["architectures"] == [
        ["foo-1", "NORM", None],
        ["glm4", "NORM", "MROPE"],
        ["gpt2", "NONE", None],
        ["llama", "NORM", None],
    ]


@pytest.mark.parametrize(
    ("names", "switch", "said"),
    [
        ('{ LLM_ARCH_BAR, "bar" },', "", "names without a rope type: ['LLM_ARCH_BAR']"),
        ("", "case LLM_ARCH_BAR: return LLAMA_ROPE_TYPE_NEOX;", "does not read"),
        ("", "default: return LLAMA_ROPE_TYPE_NEOX;", "does not read: default:"),
    ],
    ids=["name-without-type", "unknown-statement", "default"],
)
def test_the_tool_refuses_what_it_cannot_read(tmp_path, capsys, names, switch, said):
    folder = _write(tmp_path, names, switch)
    assert _tool().main([str(folder), "--commit", "0" * 40]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1


# --- what gguf show / gguf check say of such files (GGUFs written by hand, struct) ------------

GLM4 = {"block_count": 2, "attention.key_length": 128, "rope.dimension_count": 64}


@pytest.mark.parametrize(
    ("arch", "keys", "said"),
    [
        ("glm4", GLM4, "rope mode NORM (0): consecutive pairs"),
        ("glm4", {**GLM4, "rope.dimension_sections": [8, 12, 12, 0]}, "rope mode MROPE (8)"),
        ("hunyuan_vl", {**GLM4, "rope.dimension_sections": [8, 12, 12, 0]}, "mode MROPE (8)"),
        ("orion", GLM4, "rope mode NEOX (2)"),
        ("gpt2", {"block_count": 2}, "rope mode NONE (-1): no rotary embedding"),
    ],
    ids=["glm4", "glm4-sections", "hunyuan_vl-sections", "orion", "gpt2"],
)
def test_show_names_the_mode_of_the_file(run_cli, tmp_path, arch, keys, said):
    path = header_only_gguf(tmp_path / "m.gguf", arch, keys)
    result = run_cli("gguf", "show", path)
    assert result.exit_code == 0, result.output
    assert said in result.stdout, result.stdout
    shown = json.loads(run_cli("gguf", "show", path, "--format", "json").stdout)
    assert shown["rope_mode"] == said.split("mode ")[1].split()[0]


def test_check_takes_glm4_s_sections_into_its_mode():
    """A GLM-4.1V config (``mrope_section``) against a glm4 GGUF: with sections llama.cpp
    rotates M-RoPE, which the config needs; without, NORM, right for text only."""
    from pecli.analysis.ports.gguf_notes import _mode_finding

    config = {"rope_scaling": {"rope_type": "default", "mrope_section": [8, 12, 12]}}
    assert _mode_finding(config, "glm4", [8, 12, 12, 0]).status == "note"
    assert _mode_finding(config, "glm4", None).status == "differ"
    assert "NONE (-1), no rotary" in _mode_finding({}, "bloom").detail
