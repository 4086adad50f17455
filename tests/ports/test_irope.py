"""pecli rope irope: Llama 4's NoPE temperature (the issue's values, mpmath) and layer map."""

from __future__ import annotations

import json

import mpmath
import numpy as np
import pytest

from pecli.core.ports.llama4 import nope_temperature, rope_layers


def _exact(p: int) -> float:
    return float(mpmath.log(mpmath.floor(mpmath.mpf(p + 1) / 8192) + 1) * mpmath.mpf("0.1") + 1)


def test_golden_values():
    p = np.array([0, 100, 8190, 8191, 65535, 1048575])
    assert np.round(nope_temperature(p), 7).tolist() == [
        1.0,
        1.0,
        1.0,
        1.0693147,
        1.2197225,
        1.4859812,
    ]


@pytest.mark.parametrize("p", [0, 8190, 8191, 8192, 16382, 16383, 10**6, 10**7, 2**31])
def test_against_mpmath(p):
    assert nope_temperature(np.array([p]))[0] == pytest.approx(_exact(p), rel=1e-15)


def test_every_fourth_layer_is_nope():
    flags = rope_layers(48)
    assert [i for i, f in enumerate(flags) if not f] == list(range(3, 48, 4))
    assert rope_layers(3, given=[1, 0, 1]) == [True, False, True]


def test_cli_reads_a_config(run_cli, tmp_path):
    config = {
        "text_config": {
            "num_hidden_layers": 6,
            "no_rope_layers": [1, 1, 0, 1, 1, 0],
            "attention_chunk_size": 4096,
            "floor_scale": 4096,
            "attn_scale": 0.2,
        }
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    result = run_cli("rope", "irope", "--config", str(tmp_path), "--positions", "4095,4094")
    assert result.exit_code == 0, result.output
    assert "NoPE layers: 2 5" in result.stdout and "chunks of 4096" in result.stdout
    expected = float(mpmath.log(2) * mpmath.mpf("0.2") + 1)
    assert f"4095        {expected:.7f}" in result.stdout


def test_csv_and_bad_positions(run_cli):
    result = run_cli("rope", "irope", "--positions", "8191", "--format", "csv")
    assert result.stdout.splitlines() == ["position,nope_temperature", "8191,1.0693147180559945"]
    for bad in ("x", "-1", "1,,2"):
        result = run_cli("rope", "irope", "--positions", bad)
        assert result.exit_code == 2 and "--positions" in result.stderr


def test_positions_reach_two_to_the_53_and_stop_there(run_cli):
    """``--positions`` takes 0 to 2^53: 2^53 itself (temperature 1 + 0.1·ln(2^40 + 1) by
    mpmath, ⌊(2^53 + 1)/8192⌋ = 2^40) is read; 2^53 + 1 is refused."""
    top = 2**53
    result = run_cli("rope", "irope", "--positions", str(top), "--format", "csv")
    assert result.exit_code == 0, result.output
    position, value = result.stdout.splitlines()[1].split(",")
    assert int(position) == top
    assert float(value) == pytest.approx(_exact(top), rel=1e-15)
    result = run_cli("rope", "irope", "--positions", str(top + 1))
    assert result.exit_code == 2 and "--positions" in result.stderr


def test_a_refused_field_shows_its_value_cut_at_60_characters():
    """A field's value in the error is its repr, cut: 60 characters of a long list."""
    from pecli.core.errors import ParameterError
    from pecli.core.ports.llama4 import irope_settings

    flags = [2] * 40  # repr "[2, 2, …": 118 characters
    config = {"text_config": {"num_hidden_layers": 40, "no_rope_layers": flags}}
    with pytest.raises(ParameterError) as refused:
        irope_settings(config)
    shown = "[" + "2, " * 19 + "2,"  # 1 + 19 × 3 + 2 = 60 characters, then quoted
    assert str(refused.value).endswith(f"(got '{shown}')"), str(refused.value)


def test_fields_left_out_fall_back_on_transformers_defaults_and_are_listed():
    """transformers' Llama4TextConfig defaults: 48 layers, a NoPE layer every 4, chunks of
    8192, floor_scale 8192, attn_scale 0.1, temperature tuning on. A no_rope_layers list
    decides the layers, so the interval and the layer count are then not missing. A null
    attention_chunk_size is no chunking (Llama4TextConfig), another null field the default."""
    from pecli.core.ports.llama4 import irope_settings

    later = ["attention_chunk_size", "floor_scale", "attn_scale", "attn_temperature_tuning"]
    listed = irope_settings({"text_config": {"no_rope_layers": [1, 1, 1, 0]}})
    assert listed["missing"] == later and listed["no_rope_layers"] == [1, 1, 1, 0]
    bare = irope_settings({"text_config": {"num_hidden_layers": 4}})
    assert bare["missing"] == ["no_rope_layer_interval", *later]
    defaults = {k: bare[k] for k in ("layers", "interval", "chunk", "floor_scale")}
    assert defaults == {"layers": 4, "interval": 4, "chunk": 8192, "floor_scale": 8192.0}
    assert (bare["attn_scale"], bare["tuning"], bare["no_rope_layers"]) == (0.1, True, None)
    unchunked = irope_settings({"attention_chunk_size": None, "floor_scale": None})
    assert unchunked["chunk"] is None and unchunked["floor_scale"] == 8192.0  # null: no chunks


@pytest.mark.parametrize(
    ("layers", "refused"), [(0, True), (1, False), (100_000, False), (100_001, True)]
)
def test_the_layer_count_runs_from_1_to_100000(layers, refused):
    """docs/cli.md: `--layers`/`num_hidden_layers` is at most 100000, and a model has at least
    one layer: 0 and 100001 are refused naming the field, 1 and 100000 are read as given."""
    from pecli.core.errors import ParameterError
    from pecli.core.ports.llama4 import irope_settings

    if refused:
        with pytest.raises(ParameterError, match="num_hidden_layers must be an integer from 1"):
            irope_settings({"num_hidden_layers": layers})
    else:
        assert irope_settings({"num_hidden_layers": layers})["layers"] == layers
