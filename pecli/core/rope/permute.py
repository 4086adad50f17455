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

import numpy as np

from ..errors import ParameterError

__all__ = ["DIRECTIONS", "permute_rows", "qk_permutation"]

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
