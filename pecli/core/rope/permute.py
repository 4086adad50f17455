"""The q/k row permutation between Meta's interleaved and Hugging Face's half-split layouts.

Meta's Llama checkpoints rotate channel pairs ``(2k, 2k+1)`` of each head; Hugging Face's
``rotate_half`` rotates ``(k, k + d/2)``. transformers' converter
(``models/llama/convert_llama_weights_to_hf.py``, ``permute``) therefore reorders the rows of
``wq`` (per query head) and ``wk`` (per key/value head, which differs under grouped-query
attention): within each head, HF row ``r`` is Meta row ``perm[r]`` with
``perm = [0, 2, 4, …, d−2, 1, 3, …, d−1]``. Attention scores are unchanged because
``rotate_half(P·x) = P·rotate_interleaved(x)`` for the same ``P`` on q and k. llama.cpp's
``convert_hf_to_gguf.py`` applies the inverse. Pure NumPy; no I/O.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import ParameterError

__all__ = [
    "DIRECTIONS",
    "K_PATTERNS",
    "Q_PATTERNS",
    "checkpoint_plan",
    "head_counts",
    "permute_rows",
    "qk_permutation",
]

#: ``meta-to-hf`` (transformers' converter) and ``hf-to-meta`` (llama.cpp's, the inverse).
DIRECTIONS = ("meta-to-hf", "hf-to-meta")


def qk_permutation(heads: int, head_dim: int, direction: str = "meta-to-hf") -> np.ndarray:
    """Row indices ``perm`` such that ``w_new = w_old[perm]`` for a q or k projection.

    Parameters
    ----------
    heads : int
        ``num_attention_heads`` for ``wq``, ``num_key_value_heads`` for ``wk`` (>= 1).
    head_dim : int
        Rows per head (even, >= 2).
    direction : {"meta-to-hf", "hf-to-meta"}
        Meta (interleaved pairs) to HF (half-split), or back.

    Returns
    -------
    numpy.ndarray
        Shape ``(heads·head_dim,)``, int64: a permutation of ``0 … heads·head_dim − 1``.

    Raises
    ------
    ParameterError
        ``heads`` < 1, ``head_dim`` odd or < 2, unknown ``direction``.

    References
    ----------
    transformers ``models/llama/convert_llama_weights_to_hf.py``, ``permute``:
    ``w.view(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2).reshape(dim1, dim2)``.

    Examples
    --------
    >>> qk_permutation(1, 8)
    array([0, 2, 4, 6, 1, 3, 5, 7])
    >>> qk_permutation(1, 8, "hf-to-meta")
    array([0, 4, 1, 5, 2, 6, 3, 7])

    """
    if isinstance(heads, bool) or not isinstance(heads, int | np.integer) or heads < 1:
        raise ParameterError("heads", "must be an integer >= 1", heads)
    if (
        isinstance(head_dim, bool)
        or not isinstance(head_dim, int | np.integer)
        or head_dim < 2
        or head_dim % 2
    ):
        raise ParameterError("head_dim", "must be an even integer >= 2", head_dim)
    if direction not in DIRECTIONS:
        raise ParameterError("direction", f"must be one of {', '.join(DIRECTIONS)}", direction)
    one = np.arange(head_dim).reshape(head_dim // 2, 2).T.reshape(-1)  # [0, 2, …, 1, 3, …]
    if direction == "hf-to-meta":
        one = np.argsort(one)
    return (np.arange(heads)[:, None] * head_dim + one[None, :]).reshape(-1).astype(np.int64)


def permute_rows(weight: np.ndarray, heads: int, direction: str = "meta-to-hf") -> np.ndarray:
    """``weight[perm]`` for a ``(heads·head_dim, …)`` q or k projection (a new array).

    Raises
    ------
    ParameterError
        If the row count is not a multiple of ``2·heads``.

    Examples
    --------
    >>> permute_rows(np.arange(8.0)[:, None], 2).ravel()
    array([0., 2., 1., 3., 4., 6., 5., 7.])

    """
    rows = weight.shape[0] if weight.ndim else 0
    if heads < 1 or rows % (2 * heads):
        raise ParameterError(
            "heads", f"must divide the {rows} rows into heads of even width", heads
        )
    permuted: np.ndarray = np.asarray(weight)[qk_permutation(heads, rows // heads, direction)]
    return permuted


#: Default name patterns (fnmatch) of the q and k projections: Hugging Face's Llama-style names
#: (``model.layers.N.self_attn.q_proj.weight``, and its bias) and Meta's (``layers.N.attention.wq
#: .weight``).
Q_PATTERNS = ("*q_proj.weight", "*q_proj.bias", "*.wq.weight")
K_PATTERNS = ("*k_proj.weight", "*k_proj.bias", "*.wk.weight")
#: Names of projections whose rows RoPE never rotates: permuting them breaks the model.
_NOT_ROTATED = re.compile(r"(^|[._])(v_proj|o_proj|wv|wo|out_proj)([._]|$)")


def head_counts(config: Mapping[str, Any]) -> tuple[int, int, int]:
    """``(num_attention_heads, num_key_value_heads, head_dim)`` of a model's config.json.

    ``num_key_value_heads`` defaults to ``num_attention_heads`` (no grouped-query attention),
    ``head_dim`` to ``hidden_size // num_attention_heads`` (transformers' LlamaConfig); a
    multimodal config's ``text_config`` is read when the top level has no heads.

    >>> head_counts({"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8})
    (32, 8, 128)

    """
    if "num_attention_heads" not in config and isinstance(config.get("text_config"), Mapping):
        config = config["text_config"]
    q = config.get("num_attention_heads")
    if isinstance(q, bool) or not isinstance(q, int) or q < 1:
        raise ParameterError("config", "must give num_attention_heads, an integer >= 1", q)
    kv = config.get("num_key_value_heads") or q
    head_dim = config.get("head_dim") or (config.get("hidden_size") or 0) // q
    if isinstance(kv, bool) or not isinstance(kv, int) or kv < 1:  # 1: multi-query (Gemma 2B)
        raise ParameterError("config", "must give num_key_value_heads, an integer >= 1", kv)
    if isinstance(head_dim, bool) or not isinstance(head_dim, int) or head_dim < 2 or head_dim % 2:
        rule = "must give head_dim (or hidden_size), an even integer >= 2"
        raise ParameterError("config", rule, head_dim)
    return q, int(kv), int(head_dim)


def checkpoint_plan(
    shapes: Mapping[str, tuple[int, ...]],
    *,
    heads: tuple[int, int],
    head_dim: int,
    patterns: tuple[Sequence[str], Sequence[str]] = (Q_PATTERNS, K_PATTERNS),
) -> dict[str, int]:
    """Which tensors of a checkpoint to permute, and with how many heads each.

    Parameters
    ----------
    shapes : mapping of str to tuple of int
        Every tensor's name and shape.
    heads : tuple of int, keyword-only
        ``(num_attention_heads, num_key_value_heads)``: for the q and the k projections.
    head_dim : int, keyword-only
        Rows per head; a matched tensor must have ``heads · head_dim`` rows.
    patterns : tuple of two sequences of str, keyword-only
        fnmatch patterns of the q and the k projections (default :data:`Q_PATTERNS`,
        :data:`K_PATTERNS`).

    Raises
    ------
    ParameterError
        No tensor matched; a pattern matches a v or o projection (never rotated) or a tensor
        the other pattern matches; a matched tensor's rows are not ``heads · head_dim``.

    Examples
    --------
    >>> shapes = {"l.0.q_proj.weight": (8, 8), "l.0.k_proj.weight": (4, 8),
    ...           "l.0.v_proj.weight": (4, 8)}
    >>> checkpoint_plan(shapes, heads=(2, 1), head_dim=4)
    {'l.0.q_proj.weight': 2, 'l.0.k_proj.weight': 1}

    """
    kinds: dict[str, str] = {}
    for kind, chosen in zip(("q", "k"), patterns, strict=True):
        for name in (n for n in shapes if any(fnmatch.fnmatchcase(n, p) for p in chosen)):
            if _NOT_ROTATED.search(name):
                rule = "must not match a v or o projection (RoPE rotates only q and k)"
                raise ParameterError(f"{kind}_pattern", rule, name)
            if name in kinds:
                rule = "must not match a tensor the q pattern matches"
                raise ParameterError(f"{kind}_pattern", rule, name)
            kinds[name] = kind
    if not kinds:
        raise ParameterError("q_pattern", "and `k_pattern` match no tensor", ", ".join(patterns[0]))
    for name, kind in kinds.items():
        count, rows = heads[kind == "k"], shapes[name][0] if shapes[name] else 0
        if rows != count * head_dim:
            what = "num_attention_heads" if kind == "q" else "num_key_value_heads"
            rule = f"{what} {count} × head_dim {head_dim} = {count * head_dim} rows"
            raise ParameterError("config", f"gives {rule}; {name} has {rows}", shapes[name])
    return {name: heads[kind == "k"] for name, kind in kinds.items()}
