"""Tables of the 1-D conventions, made by each library's own function or class.

Area ``conventions``: DistilBERT/XLM, HF Marian, M2M100, Speech2Text, MusicGen, SpeechT5 and
Whisper from transformers; openai-whisper; diffusers ``get_timestep_embedding``; tatp22's
positional-encodings; keras-hub ``SinePositionEncoding`` (torch backend); lucidrains'
denoising-diffusion-pytorch; MLX; LDM's ``timestep_embedding`` run from a fetched copy of
CompVis/stable-diffusion (``LDM_REPO``, a git directory; never committed here). fairseq and
tensor2tensor do not install on Python 3.11 with torch 2.13 (their tests use transformers'
copies of their code: M2M100 / Speech2Text are fairseq's ``get_embedding``).

Each fixture's ``params`` name the pecli preset (``preset``), the knobs that reproduce it
(``knobs``) and the first position (``start``) so the tests need no table of their own.
"""

from __future__ import annotations

import ast
import math
import os
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
from common import save

os.environ.setdefault("KERAS_BACKEND", "torch")

LDM_REPO = Path(os.environ.get("LDM_REPO", "/work/.mirror/CompVis+stable-diffusion/repo"))
LDM_FILE = "ldm/modules/diffusionmodules/util.py"


def _torch(t: Any) -> np.ndarray:
    return t.detach().cpu().numpy()


def transformers_tables(out: Path) -> None:
    """DistilBERT, Marian, M2M100, Speech2Text, MusicGen, SpeechT5, Whisper."""
    import torch
    from transformers.models.distilbert.modeling_distilbert import create_sinusoidal_embeddings
    from transformers.models.m2m_100.modeling_m2m_100 import M2M100SinusoidalPositionalEmbedding
    from transformers.models.marian.modeling_marian import MarianSinusoidalPositionalEmbedding
    from transformers.models.musicgen.modeling_musicgen import MusicgenSinusoidalPositionalEmbedding
    from transformers.models.speech_to_text.modeling_speech_to_text import (
        Speech2TextSinusoidalPositionalEmbedding,
    )
    from transformers.models.speecht5.modeling_speecht5 import SpeechT5ScaledPositionalEncoding
    from transformers.models.whisper.modeling_whisper import sinusoids

    lib = "transformers"
    for d, n in ((8, 300), (9, 300), (64, 400), (512, 40)):
        w = torch.empty(n, d)
        create_sinusoidal_embeddings(n, d, w)
        save(out, f"distilbert_d{d}", _torch(w), library=lib,
             call=f"create_sinusoidal_embeddings({n}, {d}, out=torch.empty({n}, {d}))",
             preset="distilbert", knobs={}, start=0)  # fmt: skip
    for d, n in ((8, 300), (9, 300), (512, 40)):
        weight = MarianSinusoidalPositionalEmbedding(n, d).create_weight()
        save(out, f"marian_d{d}", _torch(weight), library=lib,
             call=f"MarianSinusoidalPositionalEmbedding({n}, {d}).create_weight()",
             preset="hf-marian", knobs={}, start=0)  # fmt: skip
    for d, n in ((9, 300), (64, 400)):
        table = M2M100SinusoidalPositionalEmbedding.get_embedding(n, d, padding_idx=1)
        save(out, f"m2m100_d{d}", _torch(table), library=lib,
             call=f"M2M100SinusoidalPositionalEmbedding.get_embedding({n}, {d}, padding_idx=1)",
             preset="fairseq", knobs={}, start=0)  # fmt: skip
    table = Speech2TextSinusoidalPositionalEmbedding.get_embedding(300, 8, padding_idx=1)
    save(out, "speech2text_d8", _torch(table), library=lib,
         call="Speech2TextSinusoidalPositionalEmbedding.get_embedding(300, 8, padding_idx=1)",
         preset="fairseq", knobs={}, start=0)  # fmt: skip
    for d, n in ((9, 300), (64, 400)):
        table = MusicgenSinusoidalPositionalEmbedding.get_embedding(n, d)
        save(out, f"musicgen_d{d}", _torch(table), library=lib,
             call=f"MusicgenSinusoidalPositionalEmbedding.get_embedding({n}, {d})",
             preset="musicgen", knobs={}, start=0)  # fmt: skip
    for d, n in ((8, 300), (64, 400)):
        pe = SpeechT5ScaledPositionalEncoding(0.0, d, max_len=n).pe[0]
        save(out, f"speecht5_d{d}", _torch(pe), library=lib,
             call=f"SpeechT5ScaledPositionalEncoding(0.0, {d}, max_len={n}).pe[0]",
             preset="pytorch", knobs={}, start=0)  # fmt: skip
    save(out, "whisper_hf_d64", _torch(sinusoids(400, 64)), library=lib,
         call="transformers.models.whisper.modeling_whisper.sinusoids(400, 64)",
         preset="whisper", knobs={}, start=0)  # fmt: skip


def other_tables(out: Path) -> None:
    """openai-whisper, diffusers and positional-encodings."""
    import torch
    import whisper.model
    from diffusers.models.embeddings import get_timestep_embedding
    from positional_encodings.torch_encodings import PositionalEncoding1D

    save(out, "whisper_openai_d64", _torch(whisper.model.sinusoids(1500, 64)),
         library="openai-whisper", call="whisper.model.sinusoids(1500, 64)",
         preset="whisper", knobs={}, start=0)  # fmt: skip
    runs = (  # name, d, first timestep, rows, knobs of get_timestep_embedding
        ("default_d8", 8, 0, 300, {}),
        ("sd_d9", 9, 0, 300, {"flip_sin_to_cos": True, "downscale_freq_shift": 0}),
        ("sd_d64", 64, 0, 400, {"flip_sin_to_cos": True, "downscale_freq_shift": 0}),
        ("scale1000_d64", 64, 0, 200, {"scale": 1000}),
        ("shift025_d8", 8, 99000, 300, {"downscale_freq_shift": 0.25}),
    )
    for name, d, first, n, knobs in runs:
        timesteps = torch.arange(first, first + n)
        table = get_timestep_embedding(timesteps, d, **knobs)
        args = "".join(f", {k}={v}" for k, v in knobs.items())
        pecli_knobs = {k: v for k, v in knobs.items() if k != "scale"}
        if "scale" in knobs:
            pecli_knobs["angle_scale"] = knobs["scale"]
        save(out, f"diffusers_{name}", _torch(table), library="diffusers",
             call=f"get_timestep_embedding(torch.arange({first}, {first + n}), {d}{args})",
             preset="diffusers", knobs=pecli_knobs, start=first)  # fmt: skip
    for d, n in ((8, 300), (9, 300), (2, 100_000)):
        table = PositionalEncoding1D(d)(torch.zeros(1, n, d))[0]
        save(out, f"tatp22_d{d}", _torch(table), library="positional-encodings",
             call=f"PositionalEncoding1D({d})(torch.zeros(1, {n}, {d}))[0]",
             preset="positional-encodings", knobs={}, start=0)  # fmt: skip


def keras_tables(out: Path) -> None:
    """keras-hub ``SinePositionEncoding`` with ``start_index``."""
    import keras
    import keras_hub

    for d, n, start in ((9, 300, 0), (64, 300, 5), (8, 300, 99_000)):
        layer = keras_hub.layers.SinePositionEncoding()
        table = keras.ops.convert_to_numpy(layer(np.zeros((1, n, d), "float32"), start_index=start))
        save(out, f"keras_hub_d{d}_start{start}", table[0], library="keras-hub",
             call=f"SinePositionEncoding()(np.zeros((1, {n}, {d})), start_index={start})",
             preset="distilbert", knobs={}, start=start)  # fmt: skip


def diffusion_tables(out: Path) -> None:
    """The diffusion embeddings: lucidrains' ``SinusoidalPosEmb``, LDM's ``timestep_embedding``."""
    import torch

    SinusoidalPosEmb = _lucidrains_class()
    for d in (8, 64):
        table = SinusoidalPosEmb(d)(torch.arange(400).float())
        save(out, f"lucidrains_d{d}", _torch(table), library="denoising-diffusion-pytorch",
             call=f"SinusoidalPosEmb({d})(torch.arange(400).float())",
             preset="lucidrains", knobs={}, start=0)  # fmt: skip
    commit = subprocess.run(["git", "-C", str(LDM_REPO), "rev-parse", "HEAD"], check=True,
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    timestep_embedding = _ldm_function(commit)
    for d, n in ((9, 300), (64, 400)):
        table = timestep_embedding(torch.arange(n), d)
        save(out, f"ldm_d{d}", _torch(table), library="torch",
             call=f"CompVis/stable-diffusion@{commit} {LDM_FILE} "
             f"timestep_embedding(torch.arange({n}), {d})",
             preset="ldm", knobs={}, start=0)  # fmt: skip


def _lucidrains_class() -> Any:
    """``SinusoidalPosEmb`` from the installed denoising-diffusion-pytorch, read from its file.

    Importing the package imports torchvision, whose PyPI wheel does not match torch 2.13.0
    (CPU); the class itself needs only torch and math, so its source is run alone.
    """
    import importlib.util

    import torch

    spec = importlib.util.find_spec("denoising_diffusion_pytorch")
    assert spec is not None and spec.submodule_search_locations
    path = Path(spec.submodule_search_locations[0]) / "denoising_diffusion_pytorch.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    node = next(n for n in tree.body if getattr(n, "name", "") == "SinusoidalPosEmb")
    namespace: dict[str, Any] = {"torch": torch, "math": math, "Module": torch.nn.Module}
    exec(compile(ast.Module([node], []), str(path), "exec"), namespace)
    return namespace["SinusoidalPosEmb"]


def _ldm_function(commit: str) -> Any:
    """LDM's ``timestep_embedding``, its source read from the fetched repository."""
    import torch

    source = subprocess.run(["git", "-C", str(LDM_REPO), "show", f"{commit}:{LDM_FILE}"],
                            check=True, capture_output=True, text=True).stdout  # fmt: skip
    tree = ast.parse(source)
    node = next(n for n in tree.body if getattr(n, "name", "") == "timestep_embedding")
    namespace: dict[str, Any] = {"torch": torch, "math": math}
    exec(compile(ast.Module([node], []), LDM_FILE, "exec"), namespace)
    return namespace["timestep_embedding"]


def mlx_tables(out: Path) -> None:
    """MLX ``nn.SinusoidalPositionalEncoding``."""
    import mlx.core as mx
    import mlx.nn as nn

    runs = (  # name, d, rows, constructor arguments, pecli knobs
        ("d8", 8, 300, {}, {}),
        ("d64_cos_first", 64, 300, {"cos_first": True}, {"layout": "cos-sin"}),
        ("d64_turns", 64, 300, {"full_turns": True, "scale": 1.0, "min_freq": 1e-3},
         {"full_turns": True, "amplitude": 1.0, "base": 1000.0}),
        ("d2", 2, 300, {}, {}),
    )  # fmt: skip
    for name, d, n, kwargs, knobs in runs:
        table = np.array(nn.SinusoidalPositionalEncoding(d, **kwargs)(mx.arange(n)))
        args = "".join(f", {k}={v}" for k, v in kwargs.items())
        save(out, f"mlx_{name}", table, library="mlx",
             call=f"mlx.nn.SinusoidalPositionalEncoding({d}{args})(mx.arange({n}))",
             preset="mlx", knobs=knobs, start=0)  # fmt: skip


def generate(out: Path) -> None:
    """Write every table of the area into ``out``."""
    transformers_tables(out)
    other_tables(out)
    keras_tables(out)
    diffusion_tables(out)
    mlx_tables(out)
