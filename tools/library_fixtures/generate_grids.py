"""2-D and N-D grid tables made by the libraries' own code (area ``grids``).

diffusers, timm, positional-encodings and vit-pytorch are called from their installed
packages. MAE's ``util/pos_embed.py`` and MoCo v3's ``vits.py`` are not on PyPI: the one
function is read from a local clone (``PECLI_MIRRORS``, default /work/.mirror) and run as
written. big_vision needs jax, which is not installed: its ``posemb_sincos_2d`` is run with
NumPy standing in for ``jax.numpy`` (float64 arithmetic where jax would use float32).
tensor2tensor needs TensorFlow 1 names: ``add_timing_signal_nd`` is run under TensorFlow 2
with ``tf.to_float`` and ``common_layers.shape_list`` supplied. Grids are non-square
(3 × 5) wherever the library allows, so that a swapped axis shows; CogVideoX's video grid is
3 frames of 4 × 6.
"""

from __future__ import annotations

import ast
import os
import subprocess
import types
from pathlib import Path
from typing import Any

import numpy as np
from common import save

MIRRORS = Path(os.environ.get("PECLI_MIRRORS", "/work/.mirror"))
REPOS = {
    "mae": "facebookresearch+mae",
    "moco": "facebookresearch+moco-v3",
    "big_vision": "google-research+big_vision",
    "t2t": "tensorflow+tensor2tensor",
}
FILES = {
    "mae": "util/pos_embed.py",
    "moco": "vits.py",
    "big_vision": "big_vision/models/vit.py",
    "t2t": "tensor2tensor/layers/common_attention.py",
}


def _source(repo: str) -> tuple[str, str]:
    """The text of the repository's file at HEAD, and the commit."""
    git = MIRRORS / REPOS[repo] / "repo"
    commit = subprocess.run(
        ["git", "-C", git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    text = subprocess.run(
        ["git", "-C", git, "show", f"HEAD:{FILES[repo]}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return text, commit


def _functions(repo: str, names: list[str], namespace: dict[str, Any]) -> tuple[dict, str]:
    """Run the named top-level functions (or methods) of a repository file in ``namespace``."""
    text, commit = _source(repo)
    tree = ast.parse(text)
    found = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name in names]
    code = "\n\n".join(ast.get_source_segment(text, node) or "" for node in found)
    exec(compile(code, f"{REPOS[repo]}/{FILES[repo]}", "exec"), namespace)
    return namespace, commit


def _diffusers(out: Path) -> None:
    from diffusers.models.embeddings import get_2d_sincos_pos_embed

    call = "diffusers.models.embeddings.get_2d_sincos_pos_embed"
    for name, kw in (
        ("diffusers_3x5_d16_default", {"grid_size": (3, 5)}),
        ("diffusers_3x5_d16_patchembed", {"grid_size": (3, 5), "base_size": 3}),
        (
            "diffusers_4x4_d32_scale2_cls",
            {
                "grid_size": 4,
                "base_size": 4,
                "interpolation_scale": 2.0,
                "cls_token": True,
                "extra_tokens": 1,
            },
        ),
        ("diffusers_6x6_d16_sd3", {"grid_size": 6, "base_size": 2}),
    ):
        d = 32 if "d32" in name else 16
        table = get_2d_sincos_pos_embed(d, **kw).numpy()
        args = ", ".join(f"{k}={v!r}" for k, v in kw.items())
        save(out, name, table, library="diffusers", call=f"{call}({d}, {args})", embed_dim=d, **kw)


def _cogvideox(out: Path) -> None:
    """CogVideoX's additive 3-D table: ``(T, H·W, D)`` as diffusers returns it.

    ``spatial_size`` is ``(width, height)``: a 4 × 6 (H × W) grid is ``spatial_size=(6, 4)``.
    """
    from diffusers.models.embeddings import get_3d_sincos_pos_embed

    call = "diffusers.models.embeddings.get_3d_sincos_pos_embed"
    for name, kw in (
        (
            "diffusers_cogvideox_t3_4x6_d64",
            {"embed_dim": 64, "spatial_size": (6, 4), "temporal_size": 3},
        ),
        (
            "diffusers_cogvideox_t3_4x6_d32_scales",
            {
                "embed_dim": 32,
                "spatial_size": (6, 4),
                "temporal_size": 3,
                "spatial_interpolation_scale": 1.875,
                "temporal_interpolation_scale": 0.75,
            },
        ),
    ):
        table = get_3d_sincos_pos_embed(**kw).numpy()
        args = ", ".join(f"{k}={v!r}" for k, v in kw.items())
        save(out, name, table, library="diffusers", call=f"{call}({args})", **kw)


def _installed(distribution: str, files: list[str], names: list[str], ns: dict) -> dict:
    """Run the named functions of an installed package's files, read as source.

    Used for timm: the shared environment's torchvision 0.28.0 does not load with torch
    2.13.0+cpu ("operator torchvision::nms does not exist"), and ``import timm`` needs it;
    the functions used here do not.
    """
    import importlib.metadata

    for file in files:
        located = importlib.metadata.distribution(distribution).locate_file(file)
        text = Path(str(located)).read_text(encoding="utf-8")
        tree = ast.parse(text)
        found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names]
        code = "\n\n".join(ast.get_source_segment(text, node) or "" for node in found)
        exec(compile(code, file, "exec"), ns)
    return ns


def _timm(out: Path) -> None:
    import typing

    import torch

    ns = _installed(
        "timm",
        ["timm/layers/grid.py", "timm/layers/pos_embed_sincos.py"],
        ["ndgrid", "freq_bands", "build_sincos2d_pos_embed"],
        {"torch": torch, **vars(typing)},
    )
    build_sincos2d_pos_embed = ns["build_sincos2d_pos_embed"]
    call = "timm.layers.pos_embed_sincos.build_sincos2d_pos_embed (read from the installed file)"
    for name, kw in (
        ("timm_3x5_d16", {}),
        ("timm_3x5_d16_interleaved", {"interleave_sin_cos": True}),
        ("timm_3x5_d16_reverse", {"reverse_coord": True}),
    ):
        table = build_sincos2d_pos_embed([3, 5], dim=16, **kw).numpy()
        args = "".join(f", {k}={v!r}" for k, v in kw.items())
        save(
            out,
            name,
            table,
            library="timm",
            call=f"{call}([3, 5], dim=16{args})",
            feat_shape=[3, 5],
            dim=16,
            **kw,
        )


def _tatp22(out: Path) -> None:
    import torch
    from positional_encodings.torch_encodings import PositionalEncoding2D, PositionalEncoding3D

    for name, cls, shape, channels in (
        ("tatp22_2d_3x5_c8", PositionalEncoding2D, (3, 5), 8),
        ("tatp22_2d_3x5_c10", PositionalEncoding2D, (3, 5), 10),
        ("tatp22_3d_2x3x4_c12", PositionalEncoding3D, (2, 3, 4), 12),
        ("tatp22_3d_2x3x4_c10", PositionalEncoding3D, (2, 3, 4), 10),
    ):
        table = cls(channels)(torch.zeros((1, *shape, channels)))[0].reshape(-1, channels)
        call = (
            f"positional_encodings.torch_encodings.{cls.__name__}({channels})"
            f"(torch.zeros((1, {', '.join(map(str, shape))}, {channels})))[0]"
        )
        save(
            out,
            name,
            table.numpy(),
            library="positional-encodings",
            call=call,
            shape=list(shape),
            channels=channels,
        )


def _vit_pytorch(out: Path) -> None:
    import importlib.util

    # vit_pytorch/__init__ imports modules that need torchvision (see _installed): load one file
    spec = importlib.util.find_spec("vit_pytorch")
    path = Path(spec.submodule_search_locations[0]) / "simple_vit.py"  # type: ignore[union-attr,index]
    module_spec = importlib.util.spec_from_file_location("simple_vit", path)
    module = importlib.util.module_from_spec(module_spec)  # type: ignore[arg-type]
    module_spec.loader.exec_module(module)  # type: ignore[union-attr]
    posemb_sincos_2d = module.posemb_sincos_2d

    table = posemb_sincos_2d(3, 5, 16).numpy()
    save(
        out,
        "vit_pytorch_3x5_d16",
        table,
        library="vit-pytorch",
        call="vit_pytorch.simple_vit.posemb_sincos_2d(3, 5, 16)",
        h=3,
        w=5,
        dim=16,
    )


def _mae(out: Path) -> None:
    np_float = types.SimpleNamespace(
        **{k: getattr(np, k) for k in dir(np) if not k.startswith("__")}
    )
    np_float.float = float  # MAE uses np.float, removed in NumPy 1.24: the builtin it aliased
    names = [
        "get_2d_sincos_pos_embed",
        "get_2d_sincos_pos_embed_from_grid",
        "get_1d_sincos_pos_embed_from_grid",
    ]
    ns, commit = _functions("mae", names, {"np": np_float})
    table = ns["get_2d_sincos_pos_embed"](16, 4, cls_token=True)
    call = (
        f"facebookresearch/mae@{commit} util/pos_embed.py "
        "get_2d_sincos_pos_embed(16, 4, cls_token=True) with np.float = float"
    )
    save(
        out,
        "mae_4x4_d16_cls",
        table,
        library="numpy",
        call=call,
        embed_dim=16,
        grid_size=4,
        cls_token=True,
    )


def _moco(out: Path) -> None:
    import torch
    from torch import nn

    ns, commit = _functions(
        "moco", ["build_2d_sincos_position_embedding"], {"torch": torch, "nn": nn}
    )
    for h, w in ((4, 4), (3, 5)):
        model = types.SimpleNamespace(
            patch_embed=types.SimpleNamespace(grid_size=(h, w)), embed_dim=16, num_tokens=1
        )
        ns["build_2d_sincos_position_embedding"](model)
        table = model.pos_embed.detach()[0].numpy()
        call = (
            f"facebookresearch/moco-v3@{commit} vits.py VisionTransformerMoCo."
            f"build_2d_sincos_position_embedding (patch_embed.grid_size=({h}, {w}), "
            "embed_dim=16, num_tokens=1)"
        )
        save(
            out,
            f"mocov3_{h}x{w}_d16_cls",
            table,
            library="torch",
            call=call,
            grid_size=[h, w],
            embed_dim=16,
        )


def _big_vision(out: Path) -> None:
    ns, commit = _functions("big_vision", ["posemb_sincos_2d"], {"jnp": np})
    table = ns["posemb_sincos_2d"](3, 5, 16, dtype=np.float32)[0]
    call = (
        f"google-research/big_vision@{commit} big_vision/models/vit.py "
        "posemb_sincos_2d(3, 5, 16) with NumPy as jax.numpy"
    )
    save(out, "big_vision_3x5_d16", table, library="numpy", call=call, h=3, w=5, width=16)


def _t2t(out: Path) -> None:
    import math

    import tensorflow as tf

    shim = types.SimpleNamespace(**{k: getattr(tf, k) for k in dir(tf) if not k.startswith("__")})
    shim.to_float = lambda x: tf.cast(x, tf.float32)
    layers = types.SimpleNamespace(shape_list=lambda x: x.shape.as_list())
    ns, commit = _functions(
        "t2t", ["add_timing_signal_nd"], {"tf": shim, "math": math, "common_layers": layers}
    )
    for name, shape in (("t2t_nd_3x5_c16", (3, 5, 16)), ("t2t_nd_2x3x4_c26", (2, 3, 4, 26))):
        table = ns["add_timing_signal_nd"](tf.zeros((1, *shape))).numpy()[0].reshape(-1, shape[-1])
        call = (
            f"tensorflow/tensor2tensor@{commit} tensor2tensor/layers/common_attention.py "
            f"add_timing_signal_nd(tf.zeros((1, {', '.join(map(str, shape))}))) "
            "under TensorFlow 2 with tf.to_float = tf.cast(x, tf.float32)"
        )
        save(out, name, table, library="tensorflow", call=call, shape=list(shape))


def generate(out: Path) -> None:
    """Write every grid fixture into ``out``."""
    for make in (
        _diffusers,
        _cogvideox,
        _timm,
        _tatp22,
        _vit_pytorch,
        _mae,
        _moco,
        _big_vision,
        _t2t,
    ):
        make(out)
