"""``pecli rope layers FILE.gguf``: the rotated pairs are laid out as llama.cpp rotates them.

A deepseek2 GGUF was shown with its rotated slice ``half-split`` (NEOX), a llama GGUF too: the
plan read the GGUF's keys as a config and took the layout from the architecture name's
transformers family, never from llama.cpp's rope mode. llama.cpp (ggml-org/llama.cpp
``src/llama-model.cpp``, ``llama_model_rope_type``) lists ``LLM_ARCH_LLAMA`` and
``LLM_ARCH_DEEPSEEK2`` under ``return LLAMA_ROPE_TYPE_NORM;`` ("use what we call a normal
RoPE, operating on pairs of consecutive head values") and ``LLM_ARCH_QWEN2`` under
``LLAMA_ROPE_TYPE_NEOX`` ("the pairs of head values are offset by n_rot/2"). Each GGUF is
written by hand (tests/gguf_files.py, ``struct``).
"""

from __future__ import annotations

import json

import pytest
from gguf_files import header_only_gguf

#: DeepSeek-V2-Lite's MLA widths: key_length 192 = qk_nope 128 + qk_rope 64, kv_lora_rank 512.
DEEPSEEK2 = {
    "block_count": 4,
    "attention.head_count": 16,
    "attention.key_length": 192,
    "attention.kv_lora_rank": 512,
    "rope.dimension_count": 64,
    "rope.freq_base": 10000.0,
}
PLAIN = {"block_count": 4, "attention.key_length": 128, "rope.dimension_count": 128}


@pytest.mark.parametrize(
    ("arch", "keys", "start", "layout", "mode"),
    [
        ("deepseek2", DEEPSEEK2, 128, "interleaved", "NORM (0)"),
        ("llama", PLAIN, 0, "interleaved", "NORM (0)"),
        ("qwen2", PLAIN, 0, "half-split", "NEOX (2)"),
    ],
)
def test_the_rotated_slice_has_llama_cpp_s_layout(
    run_cli, tmp_path, arch, keys, start, layout, mode
):
    path = header_only_gguf(tmp_path / f"{arch}.gguf", arch, keys)
    table = run_cli("rope", "layers", path)
    assert table.exit_code == 0, table.output
    width = keys["attention.key_length"]
    row = next(line for line in table.stdout.splitlines() if line.startswith("0-3 "))
    assert f"{start}…{width - 1} of {width}, {layout}" in row, table.stdout
    assert f"note: {arch}: llama.cpp rotates in mode {mode}" in table.stdout
    rows = json.loads(run_cli("rope", "layers", path, "--format", "json").stdout)
    assert {r["layout"] for r in rows} == {layout} and len(rows) == 4


def test_an_architecture_pecli_has_no_mode_for_keeps_the_family_s_layout(run_cli, tmp_path):
    """No rope mode known (an architecture llama.cpp added later): the name's family rule
    stands (half-split by default) and no mode is claimed."""
    path = header_only_gguf(tmp_path / "m.gguf", "mystery", PLAIN)
    result = run_cli("rope", "layers", path, "--format", "json")
    assert result.exit_code == 0, result.output
    assert {r["layout"] for r in json.loads(result.stdout)} == {"half-split"}
    assert "rotates in mode" not in run_cli("rope", "layers", path).stdout


def test_a_deepseek2_gguf_of_the_absorbed_mla_reads_its_head_from_key_length_mla(run_cli, tmp_path):
    """llama.cpp's converter (DeepseekV2Model.set_gguf_parameters, since MLA absorption)
    writes ``add_key_length(kv_lora_rank + qk_rope_head_dim)`` = 576 and
    ``add_key_length_mla(qk_nope_head_dim + qk_rope_head_dim)`` = 192: the head was read as
    576 channels, the last 64 rotating "after qk_nope_head_dim = 512" (kv_lora_rank's)."""
    keys = {**DEEPSEEK2, "attention.key_length": 576, "attention.key_length_mla": 192}
    path = header_only_gguf(
        tmp_path / "deepseek2.gguf", "deepseek2", {**keys, "attention.value_length": 512}
    )
    result = run_cli("rope", "layers", path)
    assert result.exit_code == 0, result.output
    assert "128…191 of 192, interleaved" in result.stdout, result.stdout
    assert "192-channel query/key head rotate (after qk_nope_head_dim = 128)" in result.stdout


#: GLM-4.1V's text model as llama.cpp's converter writes it: arch glm4 with M-RoPE sections.
GLM4 = {"block_count": 4, "attention.key_length": 128, "rope.dimension_count": 64}


@pytest.mark.parametrize(
    ("arch", "keys", "layout", "mode"),
    [
        ("orion", PLAIN, "0…127 of 128, half-split", "NEOX (2)"),  # was NORM in pecli's table
        ("lfm2", PLAIN, "0…127 of 128, half-split", "NEOX (2)"),  # was missing
        ("glm4", GLM4, "0…63 of 128, interleaved", "NORM (0)"),
        ("glm4", {**GLM4, "rope.dimension_sections": [8, 12, 12, 0]}, "half-split", "MROPE (8)"),
        ("glm4moe", {**GLM4, "rope.dimension_sections": [8, 0, 0, 0]}, "half-split", "NEOX (2)"),
    ],
    ids=["orion", "lfm2", "glm4", "glm4-sections", "glm4moe-one-section"],
)
def test_architectures_llama_cpp_lists_rotate_in_its_mode(
    run_cli, tmp_path, arch, keys, layout, mode
):
    """llama.cpp (ggml-org/llama.cpp 00395eb2 ``llama_model_rope_type``): orion and lfm2 under
    NEOX; glm4 ``use_mrope() ? MROPE : NORM``, glm4moe ``? MROPE : NEOX``, ``use_mrope`` being
    ``rope_sections[0] > 0 && rope_sections[1] > 0``."""
    path = header_only_gguf(tmp_path / f"{arch}.gguf", arch, keys)
    table = run_cli("rope", "layers", path)
    assert table.exit_code == 0, table.output
    row = next(line for line in table.stdout.splitlines() if line.startswith("0-3 "))
    assert layout in row, table.stdout
    assert f"note: {arch}: llama.cpp rotates in mode {mode}" in table.stdout


def test_an_architecture_without_rope_in_llama_cpp_rotates_no_layer(run_cli, tmp_path):
    """gpt2 is under ``return LLAMA_ROPE_TYPE_NONE;`` ("these models do not use RoPE"): every
    layer NoPE, said in a note, not a half-split rotation of the whole head."""
    path = header_only_gguf(
        tmp_path / "gpt2.gguf", "gpt2", {"block_count": 3, "attention.key_length": 64}
    )
    table = run_cli("rope", "layers", path)
    assert table.exit_code == 0, table.output
    assert "RoPE map NNN" in table.stdout
    assert "note: gpt2: llama.cpp's rope type is NONE (-1), no rotary embedding" in table.stdout


@pytest.mark.parametrize(
    ("keys", "said"),
    [
        ({"attention.key_length_mla": 32}, "attention.key_length_mla (got 64 > 32)"),
        ({"attention.key_length": 32}, "attention.key_length (got 64 > 32)"),
    ],
    ids=["key_length_mla", "key_length"],
)
def test_a_deepseek2_head_narrower_than_its_rotated_width_names_the_gguf_keys(
    run_cli, tmp_path, keys, said
):
    """A 32-channel MLA head cannot rotate 64 channels: the error named ``qk_nope_head_dim``
    (got -32), a transformers field no GGUF holds; it now names the two keys."""
    path = header_only_gguf(tmp_path / "d.gguf", "deepseek2", {**DEEPSEEK2, **keys})
    result = run_cli("rope", "layers", path)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert "rope.dimension_count <=" in lines[0] and said in lines[0], lines[0]
    assert "qk_nope_head_dim" not in lines[0]


@pytest.mark.parametrize("mla", [None, 0], ids=["absent", "zero"])
def test_without_key_length_mla_the_head_is_key_length_as_llama_cpp_reads_it(
    run_cli, tmp_path, mla
):
    """llama.cpp (src/models/deepseek2.cpp) reads ``attention.key_length_mla`` as optional,
    default 0, and ``llama_hparams::is_mla()`` holds only when it is nonzero: otherwise
    ``n_embd_head_k_mla()`` is ``n_embd_head_k``, key_length (192 in converters before MLA
    absorption)."""
    keys = dict(DEEPSEEK2) if mla is None else {**DEEPSEEK2, "attention.key_length_mla": mla}
    path = header_only_gguf(tmp_path / "d.gguf", "deepseek2", keys)
    result = run_cli("rope", "layers", path)
    assert result.exit_code == 0, result.output
    assert "128…191 of 192, interleaved" in result.stdout, result.stdout


@pytest.mark.parametrize(
    ("key", "value", "got"),
    [
        ("attention.key_length_mla", "192", "'192'"),  # a string where GGUF writes a uint32
        ("rope.dimension_count", "64", "'64'"),
        ("attention.key_length_mla", 192.5, "192.5"),  # a float32 that is no width
    ],
)
def test_a_width_key_of_another_type_is_refused_naming_it(run_cli, tmp_path, key, value, got):
    """A deepseek2 width held as a string crashed: "internal error: TypeError" (status 1)."""
    keys = {**DEEPSEEK2, "attention.key_length": 576, "attention.key_length_mla": 192}
    path = header_only_gguf(tmp_path / "d.gguf", "deepseek2", {**keys, key: value})
    result = run_cli("rope", "layers", path)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "internal error" not in result.stderr, result.stderr
    assert f"must hold an integer in {key} (got {got})" in lines[0], lines[0]


def test_a_width_key_written_as_a_whole_float_is_read(run_cli, tmp_path):
    keys = {**DEEPSEEK2, "attention.key_length": 576, "attention.key_length_mla": 192.0}
    result = run_cli("rope", "layers", header_only_gguf(tmp_path / "d.gguf", "deepseek2", keys))
    assert result.exit_code == 0 and "128…191 of 192, interleaved" in result.stdout, result.output


@pytest.mark.parametrize(
    ("arch", "keys"), [("deepseek2", {"attention.kv_lora_rank": 512}), ("llama", {})]
)
def test_no_dimension_count_rotates_the_whole_head(run_cli, tmp_path, arch, keys):
    """llama.cpp reads ``rope.dimension_count`` as optional, its n_rot defaulting to the key
    head width (``n_rot = n_embd_head_k``): a GGUF without it rotates all 128 channels of its
    128-wide head, from channel 0, MLA-marked (``kv_lora_rank``) or not."""
    base = {"block_count": 2, "attention.key_length": 128, "rope.freq_base": 1e4}
    path = header_only_gguf(tmp_path / f"{arch}.gguf", arch, {**base, **keys})
    result = run_cli("rope", "layers", path, "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["first_channel"], r["rotated"], r["head"]) for r in rows] == [(0, 128, 128)] * 2


@pytest.mark.parametrize(("key_length", "head"), [({"attention.key_length": 128}, 128), ({}, 256)])
def test_the_head_is_key_length_else_the_width_over_the_heads(run_cli, tmp_path, key_length, head):
    """llama.cpp's ``n_embd_head_k`` is ``attention.key_length`` when the GGUF holds it, else
    ``embedding_length / head_count``: 1024 / 4 = 256 here, and with key_length 128, 128."""
    keys = {"block_count": 2, "embedding_length": 1024, "attention.head_count": 4}
    path = header_only_gguf(tmp_path / "m.gguf", "llama", {**keys, **key_length})
    result = run_cli("rope", "layers", path, "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [(r["first_channel"], r["rotated"], r["head"]) for r in rows] == [(0, head, head)] * 2
