"""transformers' Meta → Hugging Face q/k permutation on a tiny fake Llama (area ``permute``).

transformers' ``models/llama/convert_llama_weights_to_hf.py`` (``write_model``, its nested
``permute``, commit 01cc9cd9d804d368d553c093c4eb0646320545bb) reorders ``wq`` with
``n_heads`` and ``wk`` with ``num_key_value_heads`` (``dim1 = key_value_dim``) and copies
``wv`` / ``wo`` as they are. That function is not shipped in the transformers wheel, so its
one line is run here as quoted in the provenance (``CONVERTER``), in torch, on random Meta
weights of a 2-layer model with grouped-query attention (4 query heads, 2 key/value heads,
head_dim 16, dim 64). Saved: each Meta weight (``layers.N.attention.wX.weight``) and the HF
tensor the converter makes of it (``model.layers.N.self_attn.X_proj.weight``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.modules.setdefault("torchvision", None)  # type: ignore[arg-type]  (see generate_rope.py)

import torch  # noqa: E402
from common import save  # noqa: E402

CONVERTER = (
    "def permute(w, n_heads, dim1=dim, dim2=dim):\n"
    "    return w.view(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2)"
    ".reshape(dim1, dim2)"
)
SOURCE = (
    "huggingface/transformers@01cc9cd9d804d368d553c093c4eb0646320545bb src/transformers/"
    "models/llama/convert_llama_weights_to_hf.py write_model.permute"
)
PARAMS = {"dim": 64, "n_heads": 4, "n_kv_heads": 2, "n_layers": 2}


def generate(out: Path) -> None:
    """Write the Meta weights and the converter's HF weights of every layer."""
    dim, n_heads, kv = PARAMS["dim"], PARAMS["n_heads"], PARAMS["n_kv_heads"]
    key_value_dim = dim // n_heads * kv
    namespace: dict = {"dim": dim}
    exec(CONVERTER, namespace)  # the converter's own line, as quoted above
    permute = namespace["permute"]
    generator = torch.Generator().manual_seed(22)
    for layer in range(PARAMS["n_layers"]):
        meta = {
            "wq": torch.randn(dim, dim, generator=generator),
            "wk": torch.randn(key_value_dim, dim, generator=generator),
            "wv": torch.randn(key_value_dim, dim, generator=generator),
            "wo": torch.randn(dim, dim, generator=generator),
        }
        hf = {
            "q_proj": permute(meta["wq"], n_heads=n_heads),
            "k_proj": permute(meta["wk"], n_heads=kv, dim1=key_value_dim),
            "v_proj": meta["wv"],
            "o_proj": meta["wo"],
        }
        for name, weight in meta.items():
            save(
                out,
                f"meta_layers.{layer}.attention.{name}.weight",
                weight.numpy(),
                library="torch",
                call="torch.randn (seed 22)",
                **PARAMS,
            )
        for name, weight in hf.items():
            save(
                out,
                f"hf_model.layers.{layer}.self_attn.{name}.weight",
                weight.numpy(),
                library="torch",
                call=f"{SOURCE}: {CONVERTER}",
                **PARAMS,
            )
