"""gguf check says why a frequency tensor differs (issue 32, "gguf check counts").

The files are the gguf library's (tests/fixtures/libraries/gguf/, written with gguf 0.19.0's
``GGUFWriter`` as convert_hf_to_gguf.py writes each config; each fixture's JSON names the
call and the case). llama31.gguf was converted from llama31.config.json (llama3, factor 8,
original length 8192): checked against the same config with factor 16 it gave only "35 of 64
values differ"; bad_llama31_freqs.gguf was made with original length 4096; bad_phi3_swapped
holds the long factors as rope_factors_short and the other way round, and gave two "differ"
lines without the word swapped.
"""

from __future__ import annotations

import json
from pathlib import Path

GGUF = Path(__file__).parent.parent / "fixtures" / "libraries" / "gguf"


def check(run_cli, gguf: Path, config: Path) -> str:
    result = run_cli("gguf", "check", str(gguf), "--config", str(config))
    assert result.exit_code == 1, result.output
    return result.output


def test_a_llama3_factor_read_back_against_the_configs(run_cli, tmp_path):
    config = json.loads((GGUF / "llama31.config.json").read_text(encoding="utf-8"))
    config["rope_scaling"]["factor"] = 16.0
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    output = check(run_cli, GGUF / "llama31.gguf", tmp_path / "config.json")
    assert "the file's rope_freqs read as llama3 factor 8; the config says factor 16." in output


def test_a_llama3_original_length_read_back(run_cli):
    output = check(run_cli, GGUF / "bad_llama31_freqs.gguf", GGUF / "bad_llama31_freqs.config.json")
    assert "the file's rope_freqs read as llama3 L = 4096; the config says L = 8192." in output


def test_long_and_short_factors_swapped_is_one_finding(run_cli):
    output = check(run_cli, GGUF / "bad_phi3_swapped.gguf", GGUF / "bad_phi3_swapped.config.json")
    assert "long and short factors swapped: the file's rope_factors_long is the config's" in output
    assert "in 1 item(s): rope_factors_long.weight/rope_factors_short.weight" in output


def test_a_frequency_tensor_the_config_does_not_imply_differs_unless_it_is_all_ones():
    """ggml divides θ by ``rope_freqs`` (ggml_rope_ext's freq_factors): ones change nothing.

    A plain-RoPE config implies no frequency tensor; a stray ``rope_freqs.weight`` of ones is
    harmless ("agree"), one value of 2 halves that pair's θ ("differ"), and a stray
    ``rope_factors_long.weight`` differs even when it is all ones (only rope_freqs is read
    that way here).
    """
    import numpy as np

    from pecli.analysis.ports.gguf import check_gguf

    config = {"model_type": "llama", "hidden_size": 256, "num_attention_heads": 4}
    config.update(rope_theta=10000.0, max_position_embeddings=2048)
    ones, twice = np.ones(32, np.float32), np.ones(32, np.float32)
    twice[5] = 2.0

    def stray(name, values):
        found = check_gguf(config, "llama", {}, {name: values})
        return [(f.status, f.detail) for f in found if f.item == name]

    assert stray("rope_freqs.weight", ones) == [("agree", "all 1: no effect")]
    for name, values in (("rope_freqs.weight", twice), ("rope_factors_long.weight", ones)):
        ((status, detail),) = stray(name, values)
        assert status == "differ" and "ggml divides θ by it" in detail


def test_show_words_the_llama3_reading_of_rope_freqs(run_cli):
    """llama31.gguf's rope_freqs read back in words, every field of the config it was made from
    (θ 500000, factor 8, original length 8192, high_freq_factor 4) and the counts of Llama 3's
    rule over ω_i = θ^(-2i/128), i < 64: wavelength 2π/ω below 8192/4 unchanged, above 8192/1
    interpolated (divided by 8), in between smoothed. Its rope mode is llama.cpp's
    LLAMA_ROPE_TYPE_NORM, 0, for the llama architecture: ggml rotates consecutive pairs."""
    import math

    wavelengths = [2 * math.pi * 500000.0 ** (2 * i / 128) for i in range(64)]
    unchanged = sum(w < 8192 / 4 for w in wavelengths)
    interpolated = sum(w > 8192 / 1 for w in wavelengths)
    smoothed = 64 - unchanged - interpolated
    result = run_cli("gguf", "show", str(GGUF / "llama31.gguf"))
    assert result.exit_code == 0, result.output
    assert "\nrope mode NORM (0): consecutive pairs (2j, 2j+1): " in result.output
    assert (
        "θ-schedule / rope_freqs (transformers' inv_freq) reads as: rope_type llama3, "
        f"theta 500000, factor 8, unchanged {unchanged}, smoothed {smoothed}, interpolated "
        f"{interpolated}, original_max_position_embeddings 8192, high_freq_factor 4\n"
    ) in result.output
