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
