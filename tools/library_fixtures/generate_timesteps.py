"""Timestep and noise-level embeddings as each model's own code computes them.

Area ``timesteps``: diffusers' FLUX transformer run whole (a tiny configuration, in bfloat16
and float32) with a hook on ``time_text_embed.time_proj`` that records what the embedding
receives and returns; diffusers' DiT (``CombinedTimestepLabelEmbeddings``) and PixArt
(``PixArtAlphaCombinedTimestepSizeEmbeddings``) ``time_proj``; and, read from fetched copies
of the original repositories (git directories under ``PECLI_MIRRORS``, never committed here),
BFL's ``timestep_embedding``, DiT's and PixArt-alpha's ``TimestepEmbedder.timestep_embedding``,
EDM's ``PositionalEmbedding`` (with SongUNet's sin/cos swap) and consistency models'
``timestep_embedding``, fed the noise inputs their code computes from σ
(``sigma.log() / 4``; ``1000 * 0.25 * th.log(sigmas + 1e-44)``) in float32.

Each fixture's ``params`` name the pecli model, the values, the input arithmetic and ``d``.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
from common import save

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]  (see generate_rope.py)

MIRRORS = Path(os.environ.get("PECLI_MIRRORS", "/work/.mirror"))
T_VALUES = [1 / 49, 0.7, 0.123, 0.999, 0.5, 0.0, 1.0, 0.3333333]
SIGMAS = [80.0, 0.002, 1.0, 14.6, 0.5]


def _from_repo(repo: str, path: str, name: str, namespace: dict[str, Any]) -> tuple[Any, str]:
    """A function or class of a fetched repository (decorators dropped), and the commit."""
    git = MIRRORS / repo / "repo"
    commit = subprocess.run(
        ["git", "-C", str(git), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    source = subprocess.run(
        ["git", "-C", str(git), "show", f"HEAD:{path}"], check=True, capture_output=True, text=True
    ).stdout
    node = next(n for n in ast.walk(ast.parse(source)) if getattr(n, "name", "") == name)
    node.decorator_list = []  # type: ignore[attr-defined]
    exec(compile(ast.Module([node], []), f"{repo}:{path}", "exec"), namespace)
    return namespace[name], commit


def _np(t: Any) -> np.ndarray:
    return t.detach().float().cpu().numpy()


def flux_diffusers(out: Path) -> None:
    """The FluxTransformer2DModel of diffusers, tiny, with a hook on its timestep projection."""
    import torch
    from diffusers import FluxTransformer2DModel

    torch.manual_seed(0)
    model = FluxTransformer2DModel(
        patch_size=1,
        in_channels=4,
        num_layers=1,
        num_single_layers=1,
        attention_head_dim=8,
        num_attention_heads=2,
        joint_attention_dim=16,
        pooled_projection_dim=8,
        axes_dims_rope=(2, 2, 4),
    )
    seen: dict[str, Any] = {}
    hook = model.time_text_embed.time_proj.register_forward_hook(
        lambda _m, args, result: seen.update(t=args[0], emb=result)
    )
    for dtype in (torch.bfloat16, torch.float32):
        model = model.to(dtype)
        n = len(T_VALUES)
        with torch.no_grad():
            model(
                hidden_states=torch.zeros(n, 4, 4, dtype=dtype),
                encoder_hidden_states=torch.zeros(n, 3, 16, dtype=dtype),
                pooled_projections=torch.zeros(n, 8, dtype=dtype),
                timestep=torch.tensor(T_VALUES, dtype=torch.float32),
                img_ids=torch.zeros(4, 3),
                txt_ids=torch.zeros(3, 3),
            )
        name = str(dtype).removeprefix("torch.")
        call = (
            f"FluxTransformer2DModel(tiny).to({name})(…, timestep=t): time_proj's input and output"
        )
        for part in ("t", "emb"):
            save(
                out,
                f"flux_diffusers_{name}_{part}",
                _np(seen[part]),
                library="diffusers",
                call=call,
                model="flux",
                part=part,
                values=T_VALUES,
                input_dtype=name,
                d=256,
            )
    hook.remove()


def diffusers_projections(out: Path) -> None:
    """The DiT and PixArt timestep projections of diffusers, at integer and fractional t."""
    import torch
    from diffusers.models.embeddings import (
        CombinedTimestepLabelEmbeddings,
        PixArtAlphaCombinedTimestepSizeEmbeddings,
    )

    t = [0.0, 1.0, 10.0, 250.0, 999.0, 500.5]
    dit = CombinedTimestepLabelEmbeddings(num_classes=10, embedding_dim=32).time_proj
    pixart = PixArtAlphaCombinedTimestepSizeEmbeddings(32, size_emb_dim=8).time_proj
    for name, model, proj in (("dit", "dit-diffusers", dit), ("pixart", "pixart", pixart)):
        save(
            out,
            f"{name}_diffusers",
            _np(proj(torch.tensor(t))),
            library="diffusers",
            call=f"{type(proj).__name__}(256, flip_sin_to_cos={proj.flip_sin_to_cos}, "
            f"downscale_freq_shift={proj.downscale_freq_shift})(t)",
            model=model,
            values=t,
            input_dtype="exact",
            d=256,
        )


def originals(out: Path) -> None:
    """BFL, DiT, PixArt-alpha, EDM and consistency models, from their own repositories."""
    import math

    import torch

    env = {"torch": torch, "math": math, "th": torch, "Tensor": torch.Tensor, "np": np}
    cases = [
        ("black-forest-labs+flux", "src/flux/modules/layers.py", "timestep_embedding", "flux"),
        ("facebookresearch+DiT", "models.py", "TimestepEmbedder", "dit"),
        (
            "PixArt-alpha+PixArt-alpha",
            "diffusion/model/nets/PixArt_blocks.py",
            "TimestepEmbedder",
            "pixart",
        ),
    ]
    for repo, path, name, model in cases:
        found, commit = _from_repo(repo, path, name, dict(env, nn=torch.nn))
        embed = found if model == "flux" else found.timestep_embedding
        values = T_VALUES if model == "flux" else [0.0, 1.0, 10.0, 250.0, 999.0, 500.5]
        for dtype in (torch.float32, torch.bfloat16) if model == "flux" else (torch.float32,):
            y = embed(torch.tensor(values, dtype=dtype), 256)
            label = str(dtype).removeprefix("torch.")
            save(
                out,
                f"{model}_original_{label}",
                _np(y),
                library="torch",
                call=f"{repo.replace('+', '/')}@{commit[:8]} {path}: {name} (t in {label})",
                model=model,
                values=values,
                input_dtype="exact" if model != "flux" else label,
                d=256,
                output_dtype=label,
            )
    _noise_models(out, env)


def _noise_models(out: Path, env: dict[str, Any]) -> None:
    import torch

    edm, commit = _from_repo("NVlabs+edm", "training/networks.py", "PositionalEmbedding", dict(env))
    sigma = torch.tensor(SIGMAS, dtype=torch.float32)
    c_noise = sigma.log() / 4  # EDMPrecond.forward
    for endpoint, model in ((True, "edm"), (False, "edm-adm")):
        emb = edm(num_channels=128, endpoint=endpoint)(c_noise)
        if endpoint:  # SongUNet.forward: swap sin/cos
            emb = emb.reshape(emb.shape[0], 2, -1).flip(1).reshape(*emb.shape)
        save(
            out,
            f"{model}_original",
            _np(emb),
            library="torch",
            call=f"NVlabs/edm@{commit[:8]} PositionalEmbedding(128, endpoint={endpoint})"
            f"(sigma.log() / 4){', sin/cos swapped (SongUNet)' if endpoint else ''}",
            model=model,
            values=SIGMAS,
            input_dtype="float32",
            d=128,
        )
    cm, commit = _from_repo(
        "openai+consistency_models", "cm/nn.py", "timestep_embedding", dict(env)
    )
    rescaled = 1000 * 0.25 * torch.log(sigma + 1e-44)  # KarrasDenoiser.denoise
    save(
        out,
        "consistency_original",
        _np(cm(rescaled, 192)),
        library="torch",
        call=f"openai/consistency_models@{commit[:8]} cm/nn.py timestep_embedding("
        "1000 * 0.25 * th.log(sigmas + 1e-44), 192)",
        model="consistency",
        values=SIGMAS,
        input_dtype="float32",
        d=192,
    )


def random_fourier(out: Path) -> None:
    """Modules with random frequencies: their state as .safetensors, their output as .npy.

    diffusers' ``GaussianFourierProjection`` (installed), EDM2's ``MPFourier``, EDM's
    ``FourierEmbedding``, score-SDE's ``GaussianFourierProjection`` and k-diffusion's
    ``FourierFeatures`` (read from their repositories), each seeded and run on ``x``.
    """
    import math

    import torch
    from diffusers.models.embeddings import GaussianFourierProjection
    from safetensors.torch import save_file

    env = {"torch": torch, "math": math, "np": np, "nn": torch.nn}
    x = torch.tensor([-1.5, -0.25, 0.0, 0.7, 1.0955067, 3.0])
    sigma = torch.tensor([0.002, 0.1, 1.0, 14.6, 80.0])

    def emit(name: str, module: Any, inp: Any, call: str, prefix: str, **params: Any) -> None:
        # the module under the name it has in the model (UNet2DModel, SongUNet, …)
        state = {f"{prefix}.{k}": v.contiguous() for k, v in module.state_dict().items()}
        save_file(state, str(out / f"rff_{name}.safetensors"))
        save(
            out,
            f"rff_{name}",
            _np(module(inp)),
            library="torch",
            call=call,
            checkpoint=f"rff_{name}.safetensors",
            values=inp.tolist(),
            **params,
        )

    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    diffusers_gauss = GaussianFourierProjection(embedding_size=8, scale=16)
    emit(
        "diffusers_gaussian",
        diffusers_gauss,
        sigma,
        "diffusers GaussianFourierProjection(8, scale=16)(sigma) (log=True)",
        "time_proj",
        family="gaussian",
        log=True,
        cos_first=False,
    )
    torch.manual_seed(1)
    flipped = GaussianFourierProjection(8, scale=1.0, log=False, flip_sin_to_cos=True)
    emit(
        "diffusers_gaussian_flip",
        flipped,
        x,
        "diffusers GaussianFourierProjection(8, log=False, flip_sin_to_cos=True)(x)",
        "time_proj",
        family="gaussian",
        log=False,
        cos_first=True,
    )
    for repo, path, name, args, family, cos_first, prefix in (
        (
            "NVlabs+edm2",
            "training/networks_edm2.py",
            "MPFourier",
            (8,),
            "mp-fourier",
            False,
            "unet.emb_fourier",
        ),
        (
            "NVlabs+edm",
            "training/networks.py",
            "FourierEmbedding",
            (16,),
            "gaussian",
            True,
            "model.map_noise",
        ),
        (
            "yang-song+score_sde_pytorch",
            "models/layerspp.py",
            "GaussianFourierProjection",
            (8,),
            "gaussian",
            False,
            "module.all_modules.0",
        ),
        (
            "crowsonkb+k-diffusion",
            "k_diffusion/layers.py",
            "FourierFeatures",
            (1, 8),
            "fourier-features",
            False,
            "inner_model.timestep_embed",
        ),
    ):
        found, commit = _from_repo(repo, path, name, dict(env))
        torch.manual_seed(2)
        module = found(*args)
        inp = x[:, None] if family == "fourier-features" else x
        emit(
            name.lower() + "_" + repo.split("+")[0].lower(),
            module,
            inp,
            f"{repo.replace('+', '/')}@{commit[:8]} {path}: {name}{args}(x)",
            prefix,
            family=family,
            log=False,
            cos_first=cos_first,
        )


def generate(out: Path) -> None:
    """Write every fixture of the area."""
    flux_diffusers(out)
    diffusers_projections(out)
    originals(out)
    random_fourier(out)
