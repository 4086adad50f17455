"""Small GGUF files written by llama.cpp's ``gguf`` package (area ``gguf``).

Each case is a ``config.json`` (``<case>.config.json``) and the GGUF that llama.cpp's
converter (``convert_hf_to_gguf.py`` at ggml-org/llama.cpp a458664) writes for it: its rope
keys through ``GGUFWriter.add_rope_*`` and its frequency tensors computed as the converter
computes them (``LlamaModel.generate_extra_tensors``: torch float32; Phi-3's factor lists;
DeepSeek's ``yarn_log_multiplier = 0.1·mscale_all_dim``), plus one Q8_0-quantised weight
(made by ``gguf.quants.quantize``) that pecli must never decode. The ``bad_*`` cases are the
same files with one porting mistake each. Provenance in ``<case>.json``. ``every_type.gguf``
holds a key of every GGUF value type and a tensor of every ggml type the package knows, and
``every_type.json`` what the package's own ``GGUFReader`` reads back: each value, and each
tensor's type, block size, bytes per block and bytes (``GGML_QUANT_SIZES``).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]

import gguf  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from common import version  # noqa: E402

LLAMA31 = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "max_position_embeddings": 131072,
    "rope_theta": 500000.0,
    "rope_scaling": {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    },
}
QWEN_YARN = {
    "architectures": ["Qwen2ForCausalLM"],
    "hidden_size": 3584,
    "num_attention_heads": 28,
    "max_position_embeddings": 131072,
    "rope_theta": 1000000.0,
    "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
}
GPT_OSS = {
    "architectures": ["GptOssForCausalLM"],
    "hidden_size": 2880,
    "head_dim": 64,
    "num_attention_heads": 64,
    "max_position_embeddings": 131072,
    "rope_theta": 150000.0,
    "rope_scaling": {
        "rope_type": "yarn",
        "factor": 32.0,
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "truncate": False,
        "original_max_position_embeddings": 4096,
    },
}
_RNG = np.random.default_rng(3)
PHI3 = {
    "architectures": ["Phi3ForCausalLM"],
    "hidden_size": 3072,
    "num_attention_heads": 32,
    "max_position_embeddings": 131072,
    "original_max_position_embeddings": 4096,
    "rope_theta": 10000.0,
    "rope_scaling": {
        "type": "longrope",
        "short_factor": [round(1 + 0.05 * i, 4) for i in range(48)],
        "long_factor": [round(1 + float(x), 4) for x in np.sort(_RNG.uniform(0, 40, 48))],
    },
}
QWEN2VL = {
    "architectures": ["Qwen2VLForConditionalGeneration"],
    "hidden_size": 3584,
    "num_attention_heads": 28,
    "max_position_embeddings": 32768,
    "rope_theta": 1000000.0,
    "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
}
LINEAR = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "max_position_embeddings": 8192,
    "rope_theta": 10000.0,
    "rope_scaling": {"type": "linear", "factor": 2.0},
}
DEEPSEEK = {
    "architectures": ["DeepseekV3ForCausalLM"],
    "hidden_size": 7168,
    "num_attention_heads": 128,
    "qk_rope_head_dim": 64,
    "qk_nope_head_dim": 128,
    "max_position_embeddings": 163840,
    "rope_theta": 10000.0,
    "rope_scaling": {
        "type": "yarn",
        "factor": 40.0,
        "beta_fast": 32,
        "beta_slow": 1,
        "mscale": 1.0,
        "mscale_all_dim": 1.0,
        "original_max_position_embeddings": 4096,
    },
}


def llama3_rope_freqs(config: dict[str, Any], old_context_len: int | None = None) -> np.ndarray:
    """``LlamaModel.generate_extra_tensors``' arithmetic (torch float32), as the converter."""
    params = config["rope_scaling"]
    base, dim = config["rope_theta"], config["hidden_size"] // config["num_attention_heads"]
    freqs = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    factor, low, high = params["factor"], params["low_freq_factor"], params["high_freq_factor"]
    old = old_context_len or config.get("original_max_position_embeddings", 8192)
    factors: list[Any] = []
    for freq in freqs:
        wavelen = 2 * math.pi / freq
        if wavelen < old / high:
            factors.append(1)
        elif wavelen > old / low:
            factors.append(factor)
        else:
            smooth = (old / wavelen - low) / (high - low)
            factors.append(1 / ((1 - smooth) / factor + smooth))
    return torch.tensor(factors, dtype=torch.float32).numpy()


def _writer(
    path: Path, arch: str, config: dict[str, Any], rope_dim: int, big: bool = False
) -> gguf.GGUFWriter:
    order = gguf.GGUFEndian.BIG if big else gguf.GGUFEndian.LITTLE
    w = gguf.GGUFWriter(str(path), arch, endianess=order)
    w.add_context_length(config["max_position_embeddings"])
    w.add_embedding_length(config["hidden_size"])
    w.add_head_count(config["num_attention_heads"])
    w.add_rope_dimension_count(rope_dim)
    weight = np.linspace(-1, 1, 4 * 64, dtype=np.float32).reshape(4, 64)
    quantised = gguf.quants.quantize(weight, gguf.GGMLQuantizationType.Q8_0)
    w.add_tensor("blk.0.attn_q.weight", quantised, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    return w


def _yarn(w: gguf.GGUFWriter, params: dict[str, Any], log_mul: float | None = None) -> None:
    w.add_rope_scaling_type(gguf.RopeScalingType.YARN)
    w.add_rope_scaling_factor(params["factor"])
    if "original_max_position_embeddings" in params:
        w.add_rope_scaling_orig_ctx_len(params["original_max_position_embeddings"])
    if "beta_fast" in params:
        w.add_rope_scaling_yarn_beta_fast(params["beta_fast"])
        w.add_rope_scaling_yarn_beta_slow(params["beta_slow"])
    if log_mul is not None:
        w.add_rope_scaling_yarn_log_mul(log_mul)


def _case_llama(w: gguf.GGUFWriter, config: dict[str, Any], mistake: str) -> None:
    w.add_rope_freq_base(10000.0 if mistake == "base" else config["rope_theta"])
    if mistake != "no_freqs":
        freqs = llama3_rope_freqs(config, 4096 if mistake == "freqs" else None)
        w.add_tensor("rope_freqs.weight", freqs.astype(np.float16) if mistake == "f16" else freqs)


def _case_phi3(w: gguf.GGUFWriter, config: dict[str, Any], mistake: str) -> None:
    params, orig = config["rope_scaling"], config["original_max_position_embeddings"]
    scale = config["max_position_embeddings"] / orig
    w.add_rope_freq_base(config["rope_theta"])
    w.add_rope_scaling_orig_ctx_len(orig)
    w.add_rope_scaling_attn_factors(math.sqrt(1 + math.log(scale) / math.log(orig)))
    long = params["short_factor"] if mistake == "swapped" else params["long_factor"]
    short = params["long_factor"] if mistake == "swapped" else params["short_factor"]
    w.add_tensor("rope_factors_long.weight", torch.tensor(long, dtype=torch.float32).numpy())
    w.add_tensor("rope_factors_short.weight", torch.tensor(short, dtype=torch.float32).numpy())


def _case(
    folder: Path,
    name: str,
    arch: str,
    config: dict[str, Any],
    fill: Any,
    note: str,
    big: bool = False,
) -> None:
    head = (
        config.get("qk_rope_head_dim")
        or config.get("head_dim")
        or (config["hidden_size"] // config["num_attention_heads"])
    )
    path = folder / f"{name}.gguf"
    w = _writer(path, arch, config, head, big)
    fill(w)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    (folder / f"{name}.config.json").write_text(json.dumps(config, indent=1) + "\n")
    provenance = {
        "library": "gguf",
        "version": version("gguf"),
        "torch": version("torch"),
        "call": "gguf.GGUFWriter(path, arch).add_rope_* / add_tensor, as "
        "convert_hf_to_gguf.py (ggml-org/llama.cpp a458664) writes this config",
        "arch": arch,
        "config": f"{name}.config.json",
        "case": note,
    }
    (folder / f"{name}.json").write_text(json.dumps(provenance, indent=2, sort_keys=True) + "\n")


def generate(out: Path) -> None:
    """Write every case into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    for mistake, note in (
        ("", "Llama 3.1 as converted"),
        ("base", "freq_base left at 10000"),
        ("freqs", "rope_freqs made with original length 4096"),
        ("no_freqs", "rope_freqs missing"),
        ("f16", "rope_freqs stored as F16 (by hand: the converter writes every 1-D tensor as F32)"),
    ):
        name = f"bad_llama31_{mistake}" if mistake else "llama31"
        _case(out, name, "llama", LLAMA31, lambda w, m=mistake: _case_llama(w, LLAMA31, m), note)
    _case(
        out,
        "llama31_big_endian",
        "llama",
        LLAMA31,
        lambda w: _case_llama(w, LLAMA31, ""),
        "Llama 3.1 written big-endian (GGUFWriter endianess=BIG)",
        big=True,
    )
    qwen = QWEN_YARN["rope_scaling"]
    _case(
        out,
        "qwen_yarn",
        "qwen2",
        QWEN_YARN,
        lambda w: (w.add_rope_freq_base(1e6), _yarn(w, qwen)),
        "Qwen2.5 yarn factor 4",
    )
    _case(
        out,
        "bad_qwen_yarn_no_orig",
        "qwen2",
        QWEN_YARN,
        lambda w: (w.add_rope_freq_base(1e6), _yarn(w, {"factor": 4.0})),
        "yarn without original_context_length",
    )
    oss = GPT_OSS["rope_scaling"]
    _case(
        out,
        "gpt_oss",
        "gpt-oss",
        GPT_OSS,
        lambda w: (w.add_rope_freq_base(150000.0), _yarn(w, oss)),
        "yarn, truncate false",
    )
    _case(out, "phi3", "phi3", PHI3, lambda w: _case_phi3(w, PHI3, ""), "Phi-3 longrope")
    _case(
        out,
        "bad_phi3_swapped",
        "phi3",
        PHI3,
        lambda w: _case_phi3(w, PHI3, "swapped"),
        "long and short factors swapped",
    )
    _case(
        out,
        "linear",
        "llama",
        LINEAR,
        lambda w: (
            w.add_rope_freq_base(10000.0),
            w.add_rope_scaling_type(gguf.RopeScalingType.LINEAR),
            w.add_rope_scaling_factor(2.0),
        ),
        "linear factor 2",
    )
    _case(
        out,
        "qwen2vl",
        "qwen2vl",
        QWEN2VL,
        lambda w: (w.add_rope_freq_base(1e6), w.add_rope_dimension_sections([16, 24, 24, 0])),
        "Qwen2-VL M-RoPE sections padded to 4",
    )
    ds = DEEPSEEK["rope_scaling"]
    for name, log_mul, note in (
        ("deepseek", 0.1, "DeepSeek-V3 yarn factor 40"),
        ("bad_deepseek_log_mul", 1.0, "log-multiplier = mscale_all_dim"),
    ):
        _case(
            out,
            name,
            "deepseek2",
            DEEPSEEK,
            lambda w, m=log_mul: (w.add_rope_freq_base(10000.0), _yarn(w, ds, m)),
            note,
        )
    every_type(out)


#: A key of each GGUF value type (``GGUFValueType``): (name, writer method, value).
SCALARS = [
    ("uint8", "add_uint8", 200),
    ("int8", "add_int8", -100),
    ("uint16", "add_uint16", 60000),
    ("int16", "add_int16", -30000),
    ("uint32", "add_uint32", 4000000000),
    ("int32", "add_int32", -2000000000),
    ("float32", "add_float32", 0.1),
    ("bool", "add_bool", True),
    ("string", "add_string", "h\u00e9llo"),
    ("uint64", "add_uint64", (1 << 63) + 5),
    ("int64", "add_int64", -(1 << 62)),
    ("float64", "add_float64", 0.1),
]


def every_type(out: Path) -> None:
    """``every_type.gguf`` and ``every_type.json``, GGUFReader's reading of it.

    A key of every value type (arrays of uint8 and int8 too), a tensor of two blocks of every
    ggml type.
    """
    path = out / "every_type.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    for name, method, value in SCALARS:
        getattr(w, method)(f"test.{name}", value)
    for name, kind, values in (
        ("uint8", gguf.GGUFValueType.UINT8, [1, 200, 255]),
        ("int8", gguf.GGUFValueType.INT8, [-1, -128, 127]),
    ):
        w.add_key_value(f"test.array.{name}", values, gguf.GGUFValueType.ARRAY, sub_type=kind)
    for qtype, (_, size) in gguf.GGML_QUANT_SIZES.items():
        raw = np.arange(2 * size, dtype=np.uint8).reshape(2, size)  # two blocks' bytes
        w.add_tensor(f"t.{qtype.name}", raw, raw_dtype=qtype)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    reader = gguf.GGUFReader(str(path))
    keys = {}
    for name in [n for n, _, _ in SCALARS] + ["array.uint8", "array.int8"]:
        field = reader.fields[f"test.{name}"]
        value = field.contents()
        keys[f"test.{name}"] = {"type": [t.name for t in field.types], "value": value}
    tensors = {
        t.name: {
            "type": t.tensor_type.name,
            "type_code": int(t.tensor_type),
            "block_size": gguf.GGML_QUANT_SIZES[t.tensor_type][0],
            "type_size": gguf.GGML_QUANT_SIZES[t.tensor_type][1],
            "shape": [int(n) for n in t.shape],
            "n_bytes": int(t.n_bytes),
            "data_offset": int(t.data_offset),
        }
        for t in reader.tensors
    }
    provenance = {
        "library": "gguf",
        "version": version("gguf"),
        "call": "gguf.GGUFWriter(path, 'llama').add_<type>(key, value) / add_key_value(key, "
        "values, ARRAY, sub_type) / add_tensor(name, two blocks of bytes, raw_dtype=type) for "
        "every GGML_QUANT_SIZES type; read back with gguf.GGUFReader",
        "case": "every value type and every ggml type",
        "keys": keys,
        "tensors": tensors,
    }
    (out / "every_type.json").write_text(json.dumps(provenance, indent=2, sort_keys=True) + "\n")
