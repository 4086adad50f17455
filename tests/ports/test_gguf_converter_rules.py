"""What llama.cpp's converter writes and its loader assumes, checked key by key.

Oracles: llama.cpp's ``convert_hf_to_gguf.py`` (``DeepseekV2Model.set_gguf_parameters`` writes
``yarn_log_multiplier = 0.1 * mscale_all_dim``), ``src/llama-model.cpp`` (``load_hparams``:
``rope_freq_base_train`` is 10000 when the file has no ``rope.freq_base``; only the
architectures in its ``set_swa_pattern`` calls have a hard-coded sliding-window period),
transformers' ``_compute_yarn_parameters`` (written out below in NumPy) and the reader's
documented limit of ``2^24`` values per F32 tensor.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from pecli.core.errors import ParameterError
from pecli.core.rope import RopeSpec


def test_deepseek_v2_lite_keys_are_those_the_converter_writes():
    """DeepSeek-V2-Lite's rope: θ 1e4, qk_rope_head_dim 64, YaRN ×40 from 4096, mscale 0.707.

    ``yarn_log_multiplier`` is ``0.1 · 0.707`` (not ``0.1 / 0.707``, nor 0.707 itself); unset
    betas are written as transformers' (and llama.cpp's) defaults, 32 and 1.
    """
    from pecli.analysis.ports.gguf import expected_keys

    spec = RopeSpec(
        rope_type="yarn",
        theta=10000.0,
        head_dim=64,
        factor=40.0,
        original_max_position_embeddings=4096,
        beta_fast=32.0,
        beta_slow=1.0,
        mscale=0.707,
        mscale_all_dim=0.707,
    )
    assert expected_keys(spec, {}, None) == {
        "rope.freq_base": 10000.0,
        "rope.dimension_count": 64,
        "rope.scaling.type": "yarn",
        "rope.scaling.factor": 40.0,
        "rope.scaling.original_context_length": 4096,
        "rope.scaling.yarn_beta_fast": 32.0,
        "rope.scaling.yarn_beta_slow": 1.0,
        "rope.scaling.yarn_log_multiplier": pytest.approx(0.0707, rel=1e-15),
    }
    unset = expected_keys(dataclasses.replace(spec, beta_fast=None, beta_slow=None), {}, None)
    assert (unset["rope.scaling.yarn_beta_fast"], unset["rope.scaling.yarn_beta_slow"]) == (32, 1)


def test_a_gguf_without_freq_base_rotates_with_theta_10000():
    """llama.cpp's loader keeps ``rope_freq_base_train = 10000.0f`` when the key is absent."""
    from pecli.core.ports.gguf_layers import config_from_gguf

    config, _ = config_from_gguf(
        {"llama.block_count": 2, "llama.attention.key_length": 64}, "llama"
    )
    assert config["rope_theta"] == 10000.0
    given = {"llama.block_count": 2, "llama.rope.freq_base": 5e5}
    assert config_from_gguf(given, "llama")[0]["rope_theta"] == 5e5


def _transformers_yarn(spec: RopeSpec, truncate: bool) -> tuple[float, float, np.ndarray]:
    """transformers' ``_compute_yarn_parameters``: the correction range and ``inv_freq``."""
    d, base, f = spec.rotary_dim, spec.theta, spec.factor
    orig = spec.original_max_position_embeddings

    def dim(rotations: float) -> float:
        return d * math.log(orig / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = dim(32.0), dim(1.0)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
    extrapolation = 1.0 / base ** (np.arange(0, d, 2) / d)
    keep = 1 - ramp
    return low, high, extrapolation / f * (1 - keep) + extrapolation * keep


def test_truncate_false_note_gives_both_ranges_and_the_largest_inv_freq_gap():
    """YaRN ×4 from 4096, θ 1e4, d 64, ``truncate: false``: ggml floors/ceils the range."""
    from pecli.analysis.ports.gguf_notes import notes_for

    spec = RopeSpec(
        rope_type="yarn",
        theta=10000.0,
        head_dim=64,
        factor=4.0,
        original_max_position_embeddings=4096,
        truncate=False,
    )
    low, high, exact = _transformers_yarn(spec, truncate=False)
    floor, ceil, floored = _transformers_yarn(spec, truncate=True)
    worst = float(np.max(np.abs(floored - exact) / exact))
    assert 0.05 < worst < 0.2  # the note is about a real difference
    [text] = [n.detail for n in notes_for(spec, {}, "qwen2", {}) if "truncate" in n.detail]
    assert f"({low:.4f}…{high:.4f} in transformers, {floor}…{ceil} in ggml)" in text
    assert text.endswith(f"inv_freq differ by up to {worst:.3g} relative")


def test_sliding_layers_are_compared_only_where_llama_cpp_hard_codes_a_period():
    """SmolLM3: llama.cpp hard-codes its NoPE step (every 4th layer), no sliding period; a
    config with sliding layers gets the NoPE finding and no sliding-window one."""
    from pecli.analysis.ports.gguf_plan import plan_findings

    config = {
        "model_type": "smollm3",
        "num_hidden_layers": 4,
        "no_rope_layer_interval": 4,
        "sliding_window": 4096,
        "layer_types": ["sliding_attention", "full_attention"] * 2,
    }
    found = plan_findings(config, "smollm3", {"smollm3.block_count": 4})
    assert [(f.item, f.status) for f in found] == [("NoPE layers", "note")]


@pytest.mark.parametrize(("count", "said"), [(1 << 24, "ends early"), ((1 << 24) + 1, "at most")])
def test_an_f32_tensor_of_2_to_the_24_values_is_read_one_more_is_refused(tmp_path, count, said):
    """At most ``2^24`` values are read: a tensor of exactly ``2^24`` is read (here from a file
    too short for it, so the read itself fails), one of ``2^24 + 1`` is refused unread."""
    from pecli.io.ports.gguf import GgufFile, GgufTensor, read_f32

    path = tmp_path / "short.gguf"
    path.write_bytes(b"\0" * 64)
    tensor = GgufTensor("rope_freqs.weight", (count,), 0, 0)
    gguf = GgufFile(str(path), 3, {}, {tensor.name: tensor}, "<")
    with pytest.raises(ParameterError) as refused:
        read_f32(gguf, tensor.name)
    assert said in refused.value.rule


@pytest.mark.parametrize("scaled", [True, False])
def test_a_transformers_4_gemma3_config_keeps_its_global_scaling_and_no_other(scaled):
    """Gemma 3 in transformers 4 keys (the 4B/12B/27B config.json): the global layers' θ 10^6
    with `rope_scaling` linear ×8, the sliding layers' `rope_local_base_freq` 10^4. The config
    the converter reads keeps that `rope_scaling` as written; without it, none is added (the
    default rope has no scaling to write)."""
    from pecli.core.ports.gguf_format import text_config

    config = {"model_type": "gemma3_text", "rope_theta": 1e6, "rope_local_base_freq": 1e4}
    config |= {"head_dim": 256, "num_hidden_layers": 6, "sliding_window_pattern": 6}
    if scaled:
        config["rope_scaling"] = {"rope_type": "linear", "factor": 8.0}
    merged, swa = text_config(config)
    assert (merged["rope_theta"], swa) == (1e6, 1e4)
    assert merged.get("rope_scaling") == (
        {"rope_type": "linear", "factor": 8.0} if scaled else None
    )


@pytest.mark.parametrize(
    ("layers", "shown"),
    [(48, "3 7 11 15 19 23 27 31 35 39 43 47:"), (52, "3 7 11 15 19 23 27 31 35 39 43 47 …:")],
)
def test_the_nope_layers_are_shown_up_to_twelve_then_an_ellipsis(layers, shown):
    """SmolLM3's NoPE step 4: every 4th layer (3, 7, …), 12 of them in 48 layers, 13 in 52."""
    from pecli.analysis.ports.gguf_plan import plan_findings

    config = {"model_type": "smollm3", "num_hidden_layers": layers, "no_rope_layer_interval": 4}
    [found] = plan_findings(config, "smollm3", {"smollm3.block_count": layers})
    assert found.status == "note" and found.detail.startswith(shown + " llama.cpp's NoPE")


def test_llama_cpps_layers_are_cut_at_twelve_with_an_ellipsis_too():
    """A config's NoPE step 5 against llama.cpp's 4, 52 layers: the config's 10 NoPE layers
    (4, 9, …, 49) in full, llama.cpp's 13 (3, 7, …, 51) cut after 12, marked as cut."""
    from pecli.analysis.ports.gguf_plan import plan_findings

    config = {"model_type": "smollm3", "num_hidden_layers": 52, "no_rope_layer_interval": 5}
    [found] = plan_findings(config, "smollm3", {"smollm3.block_count": 52})
    assert found.status == "differ" and found.expected == "4 9 14 19 24 29 34 39 44 49"
    assert found.found == "3 7 11 15 19 23 27 31 35 39 43 47 …"
