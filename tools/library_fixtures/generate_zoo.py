"""ALiBi slopes and bias tensors, and T5 relative-position buckets, made by transformers.

Area ``zoo``: BLOOM ``_get_alibi_slopes`` / ``build_alibi_tensor`` (with and without left
padding), Falcon ``build_alibi_tensor`` (its slopes cast to bfloat16), both on (batch, keys)
masks with right, per-row and inner padding (kind ``bias-mask``), MPT
``build_mpt_alibi_tensor`` (``alibi_bias_max`` 8 and 16), T5 ``_relative_position_bucket``
over a range of relative positions, and T5 ``compute_bias`` (encoder and decoder) with the
bias embedding set to the bucket number, so the fixture is the bucket of each (query, key)
exactly as T5 looks it up (sign convention included); torchscale's ``XPOS`` and
rotary-embedding-torch's xPos (``rotate_queries_and_keys``) applied to a basis.

Each fixture's ``params`` name what pecli needs to rebuild it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
from common import save

# transformers imports torchvision when it is installed; none of this needs it, and the shared
# environment's torchvision fails at import with torch 2.13 (see generate_rope.py)
sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]

HEADS = (1, 2, 3, 5, 8, 12, 16, 20, 32, 40, 71, 96, 128)


def _np(t: Any) -> np.ndarray:
    return t.detach().cpu().float().numpy() if t.is_floating_point() else t.detach().numpy()


def alibi(out: Path) -> None:
    """BLOOM, Falcon and MPT slopes and tensors."""
    import torch
    from transformers.models.bloom import modeling_bloom as bloom
    from transformers.models.falcon import modeling_falcon as falcon
    from transformers.models.mpt import modeling_mpt as mpt

    lib = "transformers"
    for n in HEADS:
        save(
            out,
            f"bloom_slopes_h{n}",
            _np(bloom._get_alibi_slopes(n, torch.device("cpu"))),
            library=lib,
            call=f"modeling_bloom._get_alibi_slopes({n}, cpu)",
            kind="slopes",
            heads=n,
            max_bias=8.0,
        )
    masks = {"plain": [1] * 600, "leftpad": [0] * 3 + [1] * 9}
    for name, mask in masks.items():
        m = torch.tensor([mask])
        for n in (12, 32):
            for model, module in (("bloom", bloom), ("falcon", falcon)):
                t = module.build_alibi_tensor(m, n, torch.float32)
                save(
                    out,
                    f"{model}_bias_{name}_h{n}",
                    _np(t),
                    library=lib,
                    call=f"modeling_{model}.build_alibi_tensor(mask, {n}, torch.float32)",
                    kind="bias",
                    convention=model,
                    heads=n,
                    max_bias=8.0,
                    attention_mask=None if name == "plain" else mask,
                )
    for n, b in ((12, 8), (32, 8), (40, 8), (71, 8), (12, 16), (6, 4)):
        t = mpt.build_mpt_alibi_tensor(n, 50, alibi_bias_max=b)
        save(
            out,
            f"mpt_bias_h{n}_b{b}",
            _np(t),
            library=lib,
            call=f"modeling_mpt.build_mpt_alibi_tensor({n}, 50, alibi_bias_max={b})",
            kind="bias",
            convention="mpt",
            heads=n,
            max_bias=float(b),
        )


T5_CASES = ((True, 32, 128), (False, 32, 128), (True, 64, 256), (False, 16, 64), (True, 8, 20))


def t5(out: Path) -> None:
    """``_relative_position_bucket`` over -1000 … 1000, and ``compute_bias`` grids."""
    import torch
    from transformers import T5Config
    from transformers.models.t5.modeling_t5 import T5Attention

    lib = "transformers"
    rp = torch.arange(-1000, 1001)
    for bidi, nb, md in T5_CASES:
        b = T5Attention._relative_position_bucket(rp, bidi, nb, md)
        save(
            out,
            f"t5_buckets_{'bi' if bidi else 'causal'}_{nb}_{md}",
            _np(b),
            library=lib,
            call=f"T5Attention._relative_position_bucket(arange(-1000, 1001), {bidi}, {nb}, {md})",
            kind="t5",
            bidirectional=bidi,
            num_buckets=nb,
            max_distance=md,
            first=-1000,
        )
    for decoder, past in ((False, 0), (True, 0), (True, 7)):
        config = T5Config(
            d_model=8,
            d_kv=4,
            num_heads=2,
            is_decoder=decoder,
            relative_attention_num_buckets=32,
            relative_attention_max_distance=128,
        )
        attention = T5Attention(config, has_relative_attention_bias=True, layer_idx=0)
        with torch.no_grad():
            attention.relative_attention_bias.weight[:] = torch.arange(32.0)[:, None]
            grid = attention.compute_bias(5, 200, past_seen_tokens=past)[0, 0]
        save(
            out,
            f"t5_compute_bias_{'decoder' if decoder else 'encoder'}_past{past}",
            _np(grid).astype(np.int64),
            library=lib,
            call=f"T5Attention(T5Config(is_decoder={decoder}, …)).compute_bias(5, 200, "
            f"past_seen_tokens={past}) with bias weight[b] = b",
            kind="t5-grid",
            bidirectional=not decoder,
            num_buckets=32,
            max_distance=128,
            queries=5,
            keys=200,
            past=past,
        )


def xpos(out: Path) -> None:
    """The xPos of torchscale (``XPOS``) and rotary-embedding-torch, applied to a basis.

    The input holds the unit vector of channel ``b`` at every position in batch row ``b``, so
    output ``[2i, t, 2i]`` is ``cos·scale`` and ``[2i, t, 2i+1]`` is ``sin·scale`` of pair ``i``.
    """
    import torch
    from rotary_embedding_torch import RotaryEmbedding
    from torchscale.component.xpos_relative_position import XPOS

    for d, length, offset, base in ((8, 5, 0, 512), (8, 6, 0, 512), (16, 9, 4, 16), (8, 7, 3, 2)):
        basis = torch.eye(d)[:, None, :].expand(d, length, d).contiguous()
        for downscale in (False, True):
            y = XPOS(d, scale_base=base)(basis, offset=offset, downscale=downscale)
            save(
                out,
                f"xpos_torchscale_d{d}_L{length}_off{offset}_{'k' if downscale else 'q'}",
                _np(y),
                library="torchscale",
                call=f"XPOS({d}, scale_base={base})(basis, offset={offset}, "
                f"downscale={downscale}); basis[b, t] = e_b",
                kind="xpos",
                centre="torchscale",
                head_dim=d,
                n=length,
                offset=offset,
                scale_base=base,
                keys=downscale,
            )
    for d, length, base in ((8, 5, 512), (8, 6, 512), (16, 9, 16)):
        basis = torch.eye(d)[:, None, :].expand(d, length, d).contiguous()
        rotary = RotaryEmbedding(d, use_xpos=True, xpos_scale_base=base)
        q, k = rotary.rotate_queries_and_keys(basis, basis)
        for part, y in (("q", q), ("k", k)):
            save(
                out,
                f"xpos_lucidrains_d{d}_L{length}_{part}",
                _np(y),
                library="rotary-embedding-torch",
                call=f"RotaryEmbedding({d}, use_xpos=True, xpos_scale_base={base})"
                f".rotate_queries_and_keys(basis, basis)[{part!r}]",
                kind="xpos",
                centre="lucidrains",
                head_dim=d,
                n=length,
                offset=0,
                scale_base=base,
                keys=part == "k",
            )


#: (batch, keys) 0/1 attention masks: right padding, per-row left padding, both, and a hole.
MASKS = {
    "right": [[1, 1, 1, 1, 1, 0, 0, 0]],
    "left_rows": [[0, 0, 0, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1, 1, 1]],
    "both": [[0, 0, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1, 0, 0]],
    "hole": [[1, 1, 0, 1, 1, 1, 1, 1]],
}


def alibi_masks(out: Path) -> None:
    """BLOOM's and Falcon's build_alibi_tensor on (batch, keys) masks: (batch·heads, 1, keys).

    Kind ``bias-mask`` (not ``bias``: pecli's ``--left-padding`` tests read those). Output
    dtypes float32 and bfloat16 (a model's dtype); bfloat16 values are saved as float32,
    which holds them exactly.
    """
    import torch
    from transformers.models.bloom import modeling_bloom as bloom
    from transformers.models.falcon import modeling_falcon as falcon

    for mask_name, mask in MASKS.items():
        m = torch.tensor(mask)
        for n in (12, 32):
            for model, module in (("bloom", bloom), ("falcon", falcon)):
                for dtype in (torch.float32, torch.bfloat16):
                    label = str(dtype).removeprefix("torch.")
                    t = module.build_alibi_tensor(m, n, dtype)
                    save(
                        out,
                        f"{model}_bias_mask_{mask_name}_h{n}_{label}",
                        _np(t),
                        library="transformers",
                        call=f"modeling_{model}.build_alibi_tensor(mask, {n}, torch.{label})",
                        kind="bias-mask",
                        convention=model,
                        heads=n,
                        max_bias=8.0,
                        attention_mask=mask,
                        output_dtype=label,
                    )


def generate(out: Path) -> None:
    """Write every fixture of the area."""
    alibi(out)
    alibi_masks(out)
    t5(out)
    xpos(out)
