"""What FLUX's timestep MLP receives when the model runs in bfloat16 (area ``timestep_dtypes``).

diffusers' ``FluxTransformer2DModel`` (FLUX.1-dev, ``guidance_embeds=True``) and
``Flux2Transformer2DModel``, tiny, run whole in bfloat16 and float32 with hooks on
``time_proj`` (its input and its float32 output) and on the ``linear_1`` of the timestep and
guidance embedders (their input). The dtype steps (``transformer_flux.py:
FluxTransformer2DModel.forward`` and ``embeddings.py: CombinedTimestepGuidanceTextProjEmbeddings``,
``get_timestep_embedding``; ``transformer_flux2.py: Flux2TimestepGuidanceEmbeddings``):

1. ``timestep.to(model dtype) * 1000`` — t rounded to bfloat16, then the product rounded to
   bfloat16 (so 0.7 → 0.69921875 → 700, and guidance 3.5 → 3500 → 3504);
2. ``get_timestep_embedding``: ``timesteps.float()`` times float32 frequencies
   ``exp(−ln 10000 · k / 128)``, float32 sin and cos, ``[cos | sin]`` (``flip_sin_to_cos``);
3. ``.to(pooled_projection.dtype)`` (FLUX.1) or ``.to(timestep.dtype)`` (FLUX.2): the float32
   table rounded to bfloat16 before ``linear_1``.

bfloat16 tensors are saved as float32, which holds them exactly (``params.dtype`` says which).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]  # see generate_rope.py

import torch  # noqa: E402
from common import save  # noqa: E402

T_VALUES = [1 / 49, 0.7, 0.123, 0.999, 0.5, 0.0, 1.0, 0.3333333]
GUIDANCE = [3.5, 1.0, 4.0, 7.5, 0.0, 2.5, 10.0, 1.25]
TINY = dict(in_channels=4, num_layers=1, num_single_layers=1, attention_head_dim=8)


def _models() -> dict[str, Any]:
    from diffusers import Flux2Transformer2DModel, FluxTransformer2DModel

    torch.manual_seed(0)
    heads = dict(num_attention_heads=2, joint_attention_dim=16)
    flux = FluxTransformer2DModel(
        patch_size=1,
        pooled_projection_dim=8,
        guidance_embeds=True,
        axes_dims_rope=(2, 2, 4),
        **heads,
        **TINY,
    )
    flux2 = Flux2Transformer2DModel(axes_dims_rope=(2, 2, 2, 2), **heads, **TINY)
    return {"flux": flux, "flux2": flux2}


def _inputs(model: str, dtype: torch.dtype) -> dict[str, torch.Tensor]:
    n, ids = len(T_VALUES), 3 if model == "flux" else 4
    inputs = dict(
        hidden_states=torch.zeros(n, 4, 4, dtype=dtype),
        encoder_hidden_states=torch.zeros(n, 3, 16, dtype=dtype),
        timestep=torch.tensor(T_VALUES, dtype=torch.float32),
        guidance=torch.tensor(GUIDANCE, dtype=torch.float32),
        img_ids=torch.zeros(4, ids),
        txt_ids=torch.zeros(3, ids),
    )
    if model == "flux":
        inputs["pooled_projections"] = torch.zeros(n, 8, dtype=dtype)
    return inputs


def _run(module: Any, model: str, dtype: torch.dtype) -> dict[str, torch.Tensor]:
    embed = module.time_text_embed if model == "flux" else module.time_guidance_embed
    proj: list[tuple[torch.Tensor, torch.Tensor]] = []  # timestep first, then guidance
    seen: dict[str, torch.Tensor] = {}
    hooks = [
        embed.time_proj.register_forward_hook(lambda _m, a, y: proj.append((a[0], y))),
        embed.timestep_embedder.linear_1.register_forward_pre_hook(
            lambda _m, a: seen.update(linear_1=a[0])
        ),
        embed.guidance_embedder.linear_1.register_forward_pre_hook(
            lambda _m, a: seen.update(guidance_linear_1=a[0])
        ),
    ]
    module.to(dtype)(**_inputs(model, dtype))
    for hook in hooks:
        hook.remove()
    (t, table), (g, g_table) = proj
    return seen | dict(t=t, table=table, guidance=g, guidance_table=g_table)


def generate(out: Path) -> None:
    """Write every fixture of the area."""
    torch.set_grad_enabled(False)
    for model, module in _models().items():
        cls = type(module).__name__
        for dtype in (torch.bfloat16, torch.float32):
            label = str(dtype).removeprefix("torch.")
            for part, tensor in _run(module, model, dtype).items():
                save(
                    out,
                    f"{model}_{label}_{part}",
                    tensor.detach().float().numpy(),
                    library="diffusers",
                    call=f"{cls}(tiny, guidance).to({label})(…, timestep=t, guidance=g): {part}",
                    model=model,
                    part=part,
                    values=GUIDANCE if part.startswith("guidance") else T_VALUES,
                    model_dtype=label,
                    dtype=str(tensor.dtype).removeprefix("torch."),
                    d=256,
                )
