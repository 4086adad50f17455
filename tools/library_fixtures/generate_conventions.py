"""Tables of the 1-D conventions, made by each library's own function or class.

Area ``conventions``: DistilBERT/XLM, HF Marian, M2M100, Speech2Text, MusicGen, SpeechT5 and
Whisper from transformers; openai-whisper; diffusers ``get_timestep_embedding``; tatp22's
positional-encodings; keras-hub ``SinePositionEncoding`` (torch backend); lucidrains'
denoising-diffusion-pytorch; MLX; LDM's ``timestep_embedding`` run from a fetched copy of
CompVis/stable-diffusion (``LDM_REPO``, a git directory; never committed here). fairseq 0.12.2
and tensor2tensor 1.15.7 do not import on Python 3.11 (fairseq's hydra-core 1.0 / omegaconf
2.0 fail there; tensor2tensor wants TensorFlow 1): their one function is read from the PyPI
file (``pip download --no-deps``) and run alone, with torch and with ``tf.compat.v1``.

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
        save(
            out,
            f"distilbert_d{d}",
            _torch(w),
            library=lib,
            call=f"create_sinusoidal_embeddings({n}, {d}, out=torch.empty({n}, {d}))",
            preset="distilbert",
            knobs={},
            start=0,
        )
    for d, n in ((8, 300), (9, 300), (512, 40)):
        weight = MarianSinusoidalPositionalEmbedding(n, d).create_weight()
        save(
            out,
            f"marian_d{d}",
            _torch(weight),
            library=lib,
            call=f"MarianSinusoidalPositionalEmbedding({n}, {d}).create_weight()",
            preset="hf-marian",
            knobs={},
            start=0,
        )
    for d, n in ((9, 300), (64, 400)):
        table = M2M100SinusoidalPositionalEmbedding.get_embedding(n, d, padding_idx=1)
        save(
            out,
            f"m2m100_d{d}",
            _torch(table),
            library=lib,
            call=f"M2M100SinusoidalPositionalEmbedding.get_embedding({n}, {d}, padding_idx=1)",
            preset="fairseq",
            knobs={},
            start=0,
        )
    table = Speech2TextSinusoidalPositionalEmbedding.get_embedding(300, 8, padding_idx=1)
    save(
        out,
        "speech2text_d8",
        _torch(table),
        library=lib,
        call="Speech2TextSinusoidalPositionalEmbedding.get_embedding(300, 8, padding_idx=1)",
        preset="fairseq",
        knobs={},
        start=0,
    )
    for d, n in ((9, 300), (64, 400)):
        table = MusicgenSinusoidalPositionalEmbedding.get_embedding(n, d)
        save(
            out,
            f"musicgen_d{d}",
            _torch(table),
            library=lib,
            call=f"MusicgenSinusoidalPositionalEmbedding.get_embedding({n}, {d})",
            preset="musicgen",
            knobs={},
            start=0,
        )
    for d, n in ((8, 300), (64, 400)):
        pe = SpeechT5ScaledPositionalEncoding(0.0, d, max_len=n).pe[0]
        save(
            out,
            f"speecht5_d{d}",
            _torch(pe),
            library=lib,
            call=f"SpeechT5ScaledPositionalEncoding(0.0, {d}, max_len={n}).pe[0]",
            preset="pytorch",
            knobs={},
            start=0,
        )
    save(
        out,
        "whisper_hf_d64",
        _torch(sinusoids(400, 64)),
        library=lib,
        call="transformers.models.whisper.modeling_whisper.sinusoids(400, 64)",
        preset="whisper",
        knobs={},
        start=0,
    )


def other_tables(out: Path) -> None:
    """openai-whisper, diffusers and positional-encodings."""
    import torch
    import whisper.model
    from diffusers.models.embeddings import get_timestep_embedding
    from positional_encodings.torch_encodings import PositionalEncoding1D

    save(
        out,
        "whisper_openai_d64",
        _torch(whisper.model.sinusoids(1500, 64)),
        library="openai-whisper",
        call="whisper.model.sinusoids(1500, 64)",
        preset="whisper",
        knobs={},
        start=0,
    )
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
        save(
            out,
            f"diffusers_{name}",
            _torch(table),
            library="diffusers",
            call=f"get_timestep_embedding(torch.arange({first}, {first + n}), {d}{args})",
            preset="diffusers",
            knobs=pecli_knobs,
            start=first,
        )
    for d, n in ((8, 300), (9, 300), (2, 100_000)):
        table = PositionalEncoding1D(d)(torch.zeros(1, n, d))[0]
        save(
            out,
            f"tatp22_d{d}",
            _torch(table),
            library="positional-encodings",
            call=f"PositionalEncoding1D({d})(torch.zeros(1, {n}, {d}))[0]",
            preset="positional-encodings",
            knobs={},
            start=0,
        )


def keras_tables(out: Path) -> None:
    """keras-hub ``SinePositionEncoding`` with ``start_index``.

    ``KERAS_BACKEND=torch`` is set here, not at import: TensorFlow (for tensor2tensor) must
    be loaded before anything loads torch, or their LLVM copies collide.
    """
    os.environ.setdefault("KERAS_BACKEND", "torch")
    import keras
    import keras_hub

    for d, n, start in ((9, 300, 0), (64, 300, 5), (8, 300, 99_000)):
        layer = keras_hub.layers.SinePositionEncoding()
        table = keras.ops.convert_to_numpy(layer(np.zeros((1, n, d), "float32"), start_index=start))
        save(
            out,
            f"keras_hub_d{d}_start{start}",
            table[0],
            library="keras-hub",
            call=f"SinePositionEncoding()(np.zeros((1, {n}, {d})), start_index={start})",
            preset="distilbert",
            knobs={},
            start=start,
        )


def diffusion_tables(out: Path) -> None:
    """The diffusion embeddings: lucidrains' ``SinusoidalPosEmb``, LDM's ``timestep_embedding``."""
    import torch

    SinusoidalPosEmb = _lucidrains_class()
    for d in (8, 64):
        table = SinusoidalPosEmb(d)(torch.arange(400).float())
        save(
            out,
            f"lucidrains_d{d}",
            _torch(table),
            library="denoising-diffusion-pytorch",
            call=f"SinusoidalPosEmb({d})(torch.arange(400).float())",
            preset="lucidrains",
            knobs={},
            start=0,
        )
    commit = subprocess.run(
        ["git", "-C", str(LDM_REPO), "rev-parse", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    timestep_embedding = _ldm_function(commit)
    for d, n in ((9, 300), (64, 400)):
        table = timestep_embedding(torch.arange(n), d)
        save(
            out,
            f"ldm_d{d}",
            _torch(table),
            library="torch",
            call=f"CompVis/stable-diffusion@{commit} {LDM_FILE} "
            f"timestep_embedding(torch.arange({n}), {d})",
            preset="ldm",
            knobs={},
            start=0,
        )


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

    source = subprocess.run(
        ["git", "-C", str(LDM_REPO), "show", f"{commit}:{LDM_FILE}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
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
        (
            "d64_turns",
            64,
            300,
            {"full_turns": True, "scale": 1.0, "min_freq": 1e-3},
            {"full_turns": True, "amplitude": 1.0, "base": 1000.0},
        ),
        ("d2", 2, 300, {}, {}),
    )
    for name, d, n, kwargs, knobs in runs:
        table = np.array(nn.SinusoidalPositionalEncoding(d, **kwargs)(mx.arange(n)))
        args = "".join(f", {k}={v}" for k, v in kwargs.items())
        save(
            out,
            f"mlx_{name}",
            table,
            library="mlx",
            call=f"mlx.nn.SinusoidalPositionalEncoding({d}{args})(mx.arange({n}))",
            preset="mlx",
            knobs=knobs,
            start=0,
        )


def _pypi_function(dist: str, member: str, name: str, namespace: dict[str, Any]) -> Any:
    """Function ``name`` (also a method) of file ``member`` in the PyPI file of ``dist``."""
    import sys
    import tarfile
    import tempfile
    import zipfile

    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", dist, "-d", folder],
            check=True,
        )
        (archive,) = Path(folder).iterdir()
        if archive.suffix == ".whl":
            source = zipfile.ZipFile(archive).read(member).decode()
        else:
            with tarfile.open(archive) as tar:
                top = tar.getnames()[0].split("/")[0]
                handle = tar.extractfile(f"{top}/{member}")
                assert handle is not None
                source = handle.read().decode()
    node = next(n for n in ast.walk(ast.parse(source)) if getattr(n, "name", "") == name)
    assert isinstance(node, ast.FunctionDef)
    node.decorator_list = []
    exec(compile(ast.Module([node], []), f"{dist}:{member}", "exec"), namespace)
    return namespace[name]


def original_tables(out: Path) -> None:
    """The originals: fairseq's ``get_embedding``, tensor2tensor's ``get_timing_signal_1d``."""
    from typing import Optional

    import tensorflow as tf
    import torch

    fairseq = "fairseq==0.12.2"
    get_embedding = _pypi_function(
        fairseq,
        "fairseq/modules/sinusoidal_positional_embedding.py",
        "get_embedding",
        {"torch": torch, "math": math, "Optional": Optional},
    )
    for d, n in ((8, 300), (9, 300), (512, 40)):
        save(
            out,
            f"fairseq_d{d}",
            _torch(get_embedding(n, d, padding_idx=1)),
            library="torch",
            call=f"{fairseq} (PyPI file) fairseq/modules/sinusoidal_positional_embedding.py "
            f"SinusoidalPositionalEmbedding.get_embedding({n}, {d}, padding_idx=1)",
            preset="fairseq",
            knobs={},
            start=0,
        )
    t2t = "tensor2tensor==1.15.7"
    timing = _pypi_function(
        t2t,
        "tensor2tensor/layers/common_attention.py",
        "get_timing_signal_1d",
        {"tf": tf.compat.v1, "math": math},
    )
    for d, n, start in ((2, 300, 0), (3, 300, 0), (9, 300, 0), (64, 300, 99_000)):
        table = timing(n, d, start_index=start).numpy()[0]
        save(
            out,
            f"tensor2tensor_d{d}_start{start}",
            table,
            library="tensorflow",
            call=f"{t2t} (PyPI file) tensor2tensor/layers/common_attention.py "
            f"get_timing_signal_1d({n}, {d}, start_index={start}) with tf = tf.compat.v1",
            preset="tensor2tensor",
            knobs={},
            start=start,
        )


#: The groups of tables; each runs in its own process, because TensorFlow (tensor2tensor) and
#: torch loaded together abort on a clash of their LLVM copies.
GROUPS = (
    "original_tables",
    "transformers_tables",
    "other_tables",
    "keras_tables",
    "diffusion_tables",
    "mlx_tables",
)


def generate(out: Path) -> None:
    """Write every table of the area into ``out``, one process per group."""
    import sys

    here = Path(__file__).resolve().parent
    for group in GROUPS:
        code = (
            f"import generate_conventions as g; g.{group}(__import__('pathlib').Path({str(out)!r}))"
        )
        subprocess.run([sys.executable, "-c", code], cwd=here, check=True)
