"""Checkpoints saved by the libraries themselves: tiny, randomly initialised models.

Each model is built from a small config and saved with the library's own writer
(``save_pretrained``, ``safetensors.torch.save_file``); the ``.safetensors`` file is copied
here with a provenance JSON beside it (the fields of :func:`common.save`, plus ``file`` and
``sinusoidal``: the tensors the library fills with sinusoids, found from its module types).
Each file stays under 1 MB.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from common import version

WHISPER = {
    "vocab_size": 64,
    "num_mel_bins": 8,
    "d_model": 64,
    "encoder_layers": 1,
    "decoder_layers": 1,
    "encoder_attention_heads": 2,
    "decoder_attention_heads": 2,
    "encoder_ffn_dim": 32,
    "decoder_ffn_dim": 32,
    "max_source_positions": 100,
    "max_target_positions": 40,
    "pad_token_id": 0,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "decoder_start_token_id": 1,
}
MARIAN = {
    "vocab_size": 64,
    "d_model": 32,
    "encoder_layers": 1,
    "decoder_layers": 1,
    "encoder_attention_heads": 2,
    "decoder_attention_heads": 2,
    "encoder_ffn_dim": 32,
    "decoder_ffn_dim": 32,
    "max_position_embeddings": 120,
    "pad_token_id": 0,
    "decoder_start_token_id": 0,
}


def _provenance(folder: Path, name: str, *, library: str, call: str, **fields: Any) -> None:
    """Write ``folder/name.json``: the fields of :func:`common.save`, and more."""
    provenance = {"library": library, "version": version(library), "call": call, **fields}
    text = json.dumps(provenance, indent=2, sort_keys=True) + "\n"
    (folder / f"{name}.json").write_text(text, encoding="utf-8")


def _save_pretrained(model: Any, target: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        shutil.copyfile(Path(tmp) / "model.safetensors", target)


def _whisper(out: Path) -> None:
    import torch
    from transformers import WhisperConfig, WhisperModel

    torch.manual_seed(0)
    model = WhisperModel(WhisperConfig(**WHISPER))
    sinusoidal = ["encoder.embed_positions.weight"]  # WhisperPreTrainedModel._init_weights
    call = "WhisperModel(WhisperConfig(**params)).save_pretrained(folder)"
    _save_pretrained(model, out / "whisper_tiny.safetensors")
    common = {"library": "transformers", "params": WHISPER, "sinusoidal": sinusoidal}
    _provenance(
        out, "whisper_tiny", call=call, dtype="float32", file="whisper_tiny.safetensors", **common
    )
    _save_pretrained(model.to(torch.bfloat16), out / "whisper_tiny_bf16.safetensors")
    call = call.replace(".save_pretrained", ".to(torch.bfloat16).save_pretrained")
    _provenance(
        out,
        "whisper_tiny_bf16",
        call=call,
        dtype="bfloat16",
        file="whisper_tiny_bf16.safetensors",
        **common,
    )


def _marian(out: Path) -> None:
    """Marian through ``safetensors.torch.save_model``.

    Its ``save_pretrained`` (transformers 5.24) leaves the frozen sinusoidal tables out of the
    file (the loader rebuilds them), so the state dict is saved by safetensors itself.
    """
    import torch
    from safetensors.torch import save_model
    from transformers import MarianConfig, MarianMTModel
    from transformers.models.marian.modeling_marian import MarianSinusoidalPositionalEmbedding

    torch.manual_seed(0)
    model = MarianMTModel(MarianConfig(**MARIAN))
    sinusoidal = sorted(
        f"{name}.weight"
        for name, module in model.named_modules()
        if isinstance(module, MarianSinusoidalPositionalEmbedding)
    )
    call = "safetensors.torch.save_model(MarianMTModel(MarianConfig(**params)){}, file)"
    for name, half, dtype in (
        ("marian_tiny", "", "float32"),
        ("marian_tiny_fp16", ".half()", "float16"),
    ):
        save_model(model.half() if half else model, str(out / f"{name}.safetensors"))
        _provenance(
            out,
            name,
            library="safetensors",
            call=call.format(half),
            params=MARIAN,
            transformers=version("transformers"),
            dtype=dtype,
            file=f"{name}.safetensors",
            sinusoidal=sinusoidal,
        )


def generate(out: Path) -> None:
    """Write the checkpoints into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    _whisper(out)
    _marian(out)
