"""Conformer relative sinusoidal tables made by transformers 5.25 (area ``speech``).

* Parakeet / FastConformer: ``models/parakeet/modeling_parakeet.py:
  ParakeetEncoderRelPositionalEncoding`` (positions ``L−1 … −(L−1)``, ``[sin, cos]``
  interleaved, ``inv_freq = 1 / 10000^(2i/d)`` in float32) at the encoder's width 1024, and a
  tiny ``ParakeetEncoder`` run whole with hooks that record the subsampling's output and what
  the position encoder receives: their ratio is the input scaling ``√d`` (``scale_input``).
* ESPnet-style two-sided tables (``pe_positive`` reversed, then ``pe_negative[1:]``, from
  ``exp(2i · −ln 10000 / d)``): ``models/wav2vec2_conformer/modeling_wav2vec2_conformer.py:
  Wav2Vec2ConformerRelPositionalEmbedding`` (width 1024, built at ``max_source_positions``
  and sliced) and ``models/fastspeech2_conformer/modeling_fastspeech2_conformer.py:
  FastSpeech2ConformerRelPositionalEncoding`` (width 384, which also scales its input by √d).

NeMo and ESPnet themselves are not installed (each pulls a large dependency tree); these
transformers ports are the library references for the same tables.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]  # see generate_rope.py

import torch  # noqa: E402
from common import save_tensor  # noqa: E402

LIB = "transformers"
LENGTHS = (1, 8, 37)


def _save(out: Path, name: str, table: torch.Tensor, call: str, **params: Any) -> None:
    save_tensor(out, name, table, call, library=LIB, **params)


def parakeet(out: Path) -> None:
    """The table at width 1024 for a few lengths, and the √d input scaling of the encoder."""
    from transformers import ParakeetEncoderConfig
    from transformers.models.parakeet.modeling_parakeet import (
        ParakeetEncoder,
        ParakeetEncoderRelPositionalEncoding,
    )

    rel = ParakeetEncoderRelPositionalEncoding(ParakeetEncoderConfig(hidden_size=1024))
    for length in LENGTHS:
        table = rel(torch.zeros(1, length, 1024))[0]
        call = f"ParakeetEncoderRelPositionalEncoding(hidden_size=1024)(zeros(1, {length}, 1024))"
        meta = dict(
            model="parakeet", d=1024, length=length, positions=f"{length - 1} … -{length - 1}"
        )
        _save(out, f"parakeet_rel_d1024_L{length}", table, call, **meta)
    torch.manual_seed(0)
    tiny = dict(num_hidden_layers=1, num_attention_heads=2, intermediate_size=64)
    config = ParakeetEncoderConfig(
        hidden_size=64, subsampling_conv_channels=8, num_mel_bins=16, **tiny
    )
    encoder = ParakeetEncoder(config).eval()
    seen: dict[str, torch.Tensor] = {}
    encoder.subsampling.register_forward_hook(lambda _m, _a, y: seen.update(sub=y))
    encoder.encode_positions.register_forward_hook(lambda _m, a, y: seen.update(x=a[0], pe=y))
    encoder(torch.randn(1, 80, 16))
    call = "ParakeetEncoder(hidden_size=64, scale_input=True)(randn(1, 80, 16)): hooks"
    meta = dict(model="parakeet", d=64, scale_input=config.scale_input)
    _save(out, "parakeet_encoder_subsampled", seen["sub"][0], call + ": subsampling output", **meta)
    _save(out, "parakeet_encoder_scaled", seen["x"][0], call + ": encode_positions input", **meta)
    _save(out, "parakeet_encoder_rel", seen["pe"][0], call + ": encode_positions output", **meta)


def espnet_style(out: Path) -> None:
    """wav2vec2-conformer's and FastSpeech2-conformer's two-sided tables."""
    from transformers import FastSpeech2ConformerConfig, Wav2Vec2ConformerConfig
    from transformers.models.fastspeech2_conformer.modeling_fastspeech2_conformer import (
        FastSpeech2ConformerRelPositionalEncoding,
    )
    from transformers.models.wav2vec2_conformer.modeling_wav2vec2_conformer import (
        Wav2Vec2ConformerRelPositionalEmbedding,
    )

    w2v = Wav2Vec2ConformerRelPositionalEmbedding(
        Wav2Vec2ConformerConfig(hidden_size=1024, position_embeddings_type="relative")
    )
    fs2_config = FastSpeech2ConformerConfig(hidden_size=384)
    fs2 = FastSpeech2ConformerRelPositionalEncoding(fs2_config, fs2_config.encoder_config)
    fs2.eval()
    for length in LENGTHS:
        call = (
            f"Wav2Vec2ConformerRelPositionalEmbedding(hidden_size=1024)(zeros(1, {length}, 1024))"
        )
        meta = dict(model="wav2vec2-conformer", d=1024, length=length, max_len=w2v.max_len)
        _save(
            out,
            f"wav2vec2_conformer_rel_d1024_L{length}",
            w2v(torch.zeros(1, length, 1024))[0],
            call,
            **meta,
        )
        scaled, table = fs2(torch.ones(1, length, 384))
        call = f"FastSpeech2ConformerRelPositionalEncoding(hidden_size=384)(ones(1, {length}, 384))"
        meta = dict(
            model="fastspeech2-conformer", d=384, length=length, input_scale=scaled[0, 0, 0].item()
        )
        _save(out, f"fastspeech2_conformer_rel_d384_L{length}", table[0], call, **meta)


def generate(out: Path) -> None:
    """Write every fixture of the area."""
    torch.set_grad_enabled(False)
    parakeet(out)
    espnet_style(out)
