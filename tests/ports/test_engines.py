"""pecli rope engines: each engine's reading against the engine's own code (mlx_lm, fixtures
made by tools/library_fixtures/generate_engines.py, whose specs are read from the fixtures'
provenance) and the issue's golden numbers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest

from pecli.core.ports.engines import engine_readings
from pecli.core.rope import RopeSpec

HERE = Path(__file__).parent.parent / "fixtures" / "libraries" / "engines"
GGUF = Path(__file__).parent.parent / "fixtures" / "libraries" / "gguf"


#: mlx_lm's module per rope type (models/rope_utils.py ``initialize_rope``).
MLX_TYPES = {"YarnRoPE": "yarn", "SuScaledRoPE": "longrope", "Llama3RoPE": "llama3"}
#: mlx_lm's argument names that are not the spec's; its other arguments keep their names.
MLX_NAMES = {"dims": "head_dim", "base": "theta", "scaling_factor": "factor"}


def _mlx(name: str) -> tuple[np.ndarray, dict]:
    provenance = json.loads((HERE / f"mlx_{name}_inv_freq.json").read_text())
    return np.load(HERE / f"mlx_{name}_inv_freq.npy"), provenance


def _spec(name: str, **more: object) -> RopeSpec:
    """The spec of fixture ``name``: the arguments its provenance says mlx_lm was called with.

    Read, not restated, so a fixture regenerated with other arguments moves the test with it.
    ``more``: fields mlx_lm has no argument for (gpt-oss's ``truncate``, a ``seq_len``).
    """
    provenance = _mlx(name)[1]
    params = dict(provenance["params"])
    params.pop("scale")  # what the module made, not an argument
    params |= params.pop("scaling_config", {})  # Llama3RoPE: the config's fields, flat
    fields = {
        MLX_NAMES.get(k, k): tuple(v) if isinstance(v, list) else v for k, v in params.items()
    }
    kind = MLX_TYPES[provenance["call"].split("(")[0]]
    return RopeSpec(rope_type=kind, **fields, **more)


def _rows(spec: RopeSpec, context: int = 131072) -> dict:
    return {r.engine: r for r in engine_readings(spec, context=context)}


OSS = _spec("gpt_oss", truncate=False)  # gpt-oss's config.json: "truncate": false
DEEPSEEK = _spec("deepseek")


def _phi3(seq_len: int | None) -> RopeSpec:
    return _spec("phi3", seq_len=seq_len)


@pytest.mark.parametrize(
    ("name", "spec"),
    [("gpt_oss", OSS), ("deepseek", DEEPSEEK), ("phi3", _phi3(100)), ("llama31", _spec("llama31"))],
)
def test_mlx_row_is_mlx_lms_own_inv_freq_and_factor(name, spec):
    values, provenance = _mlx(name)
    row = _rows(spec)["mlx_lm"]
    np.testing.assert_allclose(row.inv_freq, values, rtol=3e-7)
    assert row.cos_sin_factor == pytest.approx(provenance["params"]["scale"], rel=1e-12)


def test_gpt_oss_range_truncated_or_not():
    rows = _rows(OSS)
    dim, length, theta = OSS.head_dim, OSS.original_max_position_embeddings, OSS.theta
    exact = [
        dim * mpmath.log(length / (r * 2 * mpmath.pi)) / (2 * mpmath.log(theta))
        for r in (OSS.beta_fast, OSS.beta_slow)
    ]
    for engine in ("transformers 5", "vLLM"):
        assert rows[engine].yarn_range == pytest.approx([float(v) for v in exact], rel=1e-12)
        assert rows[engine].max_relative == 0 and rows[engine].first_position is None
    for engine in ("mlx_lm", "llama.cpp", "TensorRT-LLM"):
        assert rows[engine].yarn_range == (8.0, 18.0)
        assert rows[engine].max_relative > 0.5 and rows[engine].first_position is not None


def test_phi3_factor_and_long_factor_switching():
    short_prompt = _rows(_phi3(1000))
    length = mpmath.mpf(_phi3(None).original_max_position_embeddings)
    scale = _phi3(None).max_position_embeddings / length  # 32
    exact = float(mpmath.sqrt(1 + mpmath.log(scale) / mpmath.log(length)))
    assert round(exact, 6) == 1.190238
    assert all(r.cos_sin_factor == pytest.approx(exact, rel=1e-12) for r in short_prompt.values())
    assert {e: r.factors for e, r in short_prompt.items()} == {
        "transformers 5": "short",
        "transformers 4": "short",
        "vLLM": "long",
        "mlx_lm": "long",
        "llama.cpp": "long",
        "TensorRT-LLM": "long",
    }
    long_prompt, small_context = _rows(_phi3(5000)), _rows(_phi3(1000), context=4096)
    assert long_prompt["transformers 5"].factors == "long"
    assert long_prompt["vLLM"].max_relative == 0
    assert [small_context[e].factors for e in ("vLLM", "llama.cpp", "mlx_lm")] == [
        "short",
        "short",
        "long",
    ]


def test_deepseek_scores_multiplier_everywhere():
    rows = _rows(DEEPSEEK)
    f, m = DEEPSEEK.factor, mpmath.mpf(DEEPSEEK.mscale_all_dim)
    expected = float((1 + mpmath.mpf("0.1") * m * mpmath.log(f)) ** 2)
    assert round(expected, 7) == 1.8738542
    for row in rows.values():
        assert row.scores == pytest.approx(expected, rel=1e-14) and row.cos_sin_factor == 1.0


def test_cli_report(run_cli):
    result = run_cli("rope", "engines", str(GGUF / "deepseek.config.json"))
    assert result.exit_code == 0, result.output
    assert "1.3688879" in result.stdout and "0.7305200" in result.stdout
    assert "1.8738542" in result.stdout
    result = run_cli("rope", "engines", str(GGUF / "gpt_oss.config.json"), "--format", "json")
    rows = {r["engine"]: r for r in json.loads(result.stdout)["engines"]}
    assert rows["llama.cpp"]["yarn_range"] == [8.0, 18.0]
    assert round(rows["transformers 5"]["yarn_range"][0], 4) == 8.0928


def test_a_transformers_5_config_is_unscaled_for_transformers_4(run_cli, tmp_path):
    config = {
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "rope_theta": 500000.0,
        "rope_parameters": {"rope_type": "linear", "factor": 4.0, "rope_theta": 500000.0},
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    result = run_cli("rope", "engines", str(tmp_path), "--format", "json")
    rows = {r["engine"]: r for r in json.loads(result.stdout)["engines"]}
    assert rows["transformers 4"]["max_relative_inv_freq"] == pytest.approx(3.0)
    assert rows["mlx_lm"]["max_relative_inv_freq"] == pytest.approx(3.0)  # models/llama.py
    assert rows["vLLM"]["max_relative_inv_freq"] == 0
    del config["rope_theta"]  # transformers 4 and mlx_lm: θ = 10000
    (tmp_path / "config.json").write_text(json.dumps(config))
    result = run_cli("rope", "engines", str(tmp_path), "--format", "json")
    rows = {r["engine"]: r for r in json.loads(result.stdout)["engines"]}
    expected = 1 / 10000 ** (np.arange(0, 128, 2) / 128)
    np.testing.assert_allclose(rows["transformers 4"]["inv_freq"], expected, rtol=1e-15)


def test_a_missing_config_is_a_usage_error(run_cli, tmp_path):
    result = run_cli("rope", "engines", str(tmp_path / "nothing.json"))
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


def yarn_inv_freq(spec: RopeSpec, truncate: bool) -> np.ndarray:
    """transformers' ``_compute_yarn_parameters`` written out (float64): the correction range
    floored and ceiled (llama.cpp) or not (gpt-oss's ``truncate: false``)."""
    d, theta, length = spec.head_dim, spec.theta, spec.original_max_position_embeddings

    def corr(rotations: float) -> float:
        return d * math.log(length / (rotations * 2 * math.pi)) / (2 * math.log(theta))

    low, high = corr(spec.beta_fast), corr(spec.beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
    extrapolation = 1 / theta ** (np.arange(0, d, 2) / d)
    return extrapolation / spec.factor * ramp + extrapolation * (1 - ramp)


def test_first_position_is_the_first_with_a_phase_over_1e_3():
    """gpt-oss: llama.cpp's floored and ceiled range against transformers 5's exact one."""
    ggml, exact = yarn_inv_freq(OSS, True), yarn_inv_freq(OSS, False)
    rows = _rows(OSS)
    np.testing.assert_allclose(rows["llama.cpp"].inv_freq, ggml, rtol=1e-14)
    np.testing.assert_allclose(rows["transformers 5"].inv_freq, exact, rtol=1e-14)
    gap = np.max(np.abs(ggml - exact))
    assert rows["llama.cpp"].first_position == math.floor(1e-3 / gap) + 1


def test_dynamic_is_unscaled_in_llama_cpp():
    spec = RopeSpec(
        rope_type="dynamic",
        theta=10000.0,
        head_dim=64,
        factor=2.0,
        max_position_embeddings=4096,
        seq_len=8000,
    )
    rows = _rows(spec)
    unscaled = 1.0 / 10000.0 ** (np.arange(0, 64, 2) / 64)
    np.testing.assert_allclose(rows["llama.cpp"].inv_freq, unscaled, rtol=1e-15)
    assert rows["mlx_lm"].max_relative == 0 and rows["llama.cpp"].max_relative > 0.5


def test_yarn_magnitudes_are_correctly_rounded_in_every_engine():
    """f = 4, mscale 1, mscale_all_dim 0.8: ``0.1·m·ln f + 1`` in float64 is 1 ulp off here."""
    spec = RopeSpec(
        rope_type="yarn",
        theta=10000.0,
        head_dim=64,
        factor=4.0,
        mscale=1.0,
        mscale_all_dim=0.8,
        original_max_position_embeddings=4096,
    )
    rows = _rows(spec)

    def m(f, k):
        return 1 + mpmath.mpf("0.1") * mpmath.mpf(k) * mpmath.log(f)

    with mpmath.workdps(50):
        ratio, scores = float(m(4, 1.0) / m(4, 0.8)), float(m(4, 0.8) ** 2)
    for engine in ("transformers 5", "mlx_lm", "llama.cpp", "TensorRT-LLM"):
        assert rows[engine].cos_sin_factor == ratio, engine
    assert {row.scores for row in rows.values()} == {scores}


@pytest.mark.parametrize("option", ["--seq-len", "--context"])
@pytest.mark.parametrize("value", ["0", str(2**53 + 1), str(10**20)])
def test_prompt_and_context_are_counts_of_exact_positions(run_cli, tmp_path, option, value):
    """As compute --n and rope freqs --seq-len: integers from 1 to 2^53, in the house words."""
    out = tmp_path / "engines.json"
    result = run_cli(
        "rope", "engines", str(GGUF / "gpt_oss.config.json"), option, value, "-o", str(out)
    )
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [
        f"pecli rope engines: error: Invalid value for '{option}': "
        f"must be an integer from 1 to 2^53 (got {value})"
    ]
    assert not out.exists()
    edge = run_cli("rope", "engines", str(GGUF / "gpt_oss.config.json"), option, str(2**53))
    assert edge.exit_code == 0, edge.output


def test_the_help_gives_the_range_of_prompt_and_context(run_cli):
    """Both are refused outside 1 … 2^53; the help said neither bound."""
    text = " ".join(run_cli("rope", "engines", "--help").stdout.split("Options:")[1].split())
    for option in ("--seq-len", "--context"):
        assert "1 to 2^53" in text.split(option, 1)[1].split("--", 1)[0], option


def test_longrope_at_its_original_length_scales_cos_and_sin_by_one():
    """Longrope with both lengths 1 (the smallest valid): max / original = 1, no extension,
    so every engine's factor on cos and sin is 1 (transformers' ``_compute_longrope_parameters``:
    ``if factor <= 1.0: attention_factor = 1.0``), never √(1 + ln 1 / ln 1), a division by 0."""
    spec = RopeSpec(
        rope_type="longrope",
        theta=1e4,
        head_dim=8,
        original_max_position_embeddings=1,
        max_position_embeddings=1,
        short_factor=(1.0,) * 4,
        long_factor=(2.0,) * 4,
    )
    factors = {name: row.cos_sin_factor for name, row in _rows(spec, context=1).items()}
    assert factors and set(factors.values()) == {1.0}, factors
