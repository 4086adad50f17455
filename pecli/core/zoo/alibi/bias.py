"""ALiBi's bias tensors, whole and in float64, as each library builds them (docs/zoo.md#alibi).

Attention with Linear Biases adds ``-m_h · distance`` to head ``h``'s attention logits. The
bias tensors differ as tensors and agree after softmax (which ignores a constant added to
a row): the paper's causal ``-m·(i-j)``, the encoders' symmetric ``-m·|i-j|``, BLOOM's and
Falcon's key-only ``m·j`` and MPT's key-only signed distance ``m·(j - (k-1))``
(:data:`~.records.ALIBI_CONVENTIONS`). :mod:`.blocks` writes them a block of heads at a time.

References
----------
.. [1] O. Press, N. A. Smith, M. Lewis, "Train Short, Test Long: Attention with Linear Biases
   Enables Input Length Extrapolation", ICLR 2022, §3.
.. [2] transformers: ``models/bloom/modeling_bloom.py`` (``build_alibi_tensor``),
   ``models/falcon/modeling_falcon.py`` (``build_alibi_tensor``, slopes cast to bfloat16),
   ``models/mpt/modeling_mpt.py`` (``build_mpt_alibi_tensor``).

"""

from __future__ import annotations

import math

import numpy as np

from .rules import check_bias, check_slopes

__all__ = ["alibi_bias", "key_positions"]


def key_positions(n_key: int, attention_mask: object) -> np.ndarray:
    """BLOOM's ``(attention_mask.cumsum(-1) - 1) * attention_mask``: 0, 1, … on kept keys.

    The mask is checked (:func:`~.rules.check_bias`); None: ``0 … k-1``. int64, shape ``(k,)``.

    >>> key_positions(5, [0, 0, 1, 1, 1]).tolist()
    [0, 0, 0, 1, 2]
    """
    if attention_mask is None:
        return np.arange(n_key, dtype=np.int64)
    kept = np.asarray(attention_mask).astype(np.int64)
    positions: np.ndarray = (np.cumsum(kept) - 1) * kept
    return positions


def _bfloat16(values: np.ndarray) -> np.ndarray:
    from ...dtypes import float_dtype, round_once

    return round_once(values, float_dtype("bfloat16")).astype(np.float64)


def alibi_bias(
    slopes: object,
    n_key: int,
    *,
    n_query: int | None = None,
    convention: str = "causal",
    attention_mask: object = None,
) -> np.ndarray:
    """The ALiBi bias tensor of one convention, as the library builds it.

    Parameters
    ----------
    slopes : array_like
        The slopes ``m_h``, shape ``(h,)`` (:func:`~.slopes.alibi_slopes`).
    n_key : int
        Key positions ``k`` (0 … k-1), 1 to 2^24.
    n_query : int, optional, keyword-only
        Query rows of ``causal`` and ``symmetric`` (the last ``q`` positions, as in decoding
        with a cache); default ``k``.
    convention : str, keyword-only
        ``causal``: ``-m·(i-j)`` for ``j <= i``, ``-inf`` above (the paper's figure);
        ``symmetric``: ``-m·|i-j|`` (encoders; MPT with ``full=True``); ``bloom``: ``m·j``
        over key positions ``j`` (BLOOM's ``build_alibi_tensor``); ``falcon``: BLOOM's tensor
        with slopes and positions rounded to bfloat16 and the product rounded to bfloat16
        (Falcon multiplies ``slopes.bfloat16()`` by the int64 positions in bfloat16);
        ``mpt``: ``m·(j-(k-1))``, 0 on the last key (``build_mpt_alibi_tensor``).
    attention_mask : array_like, optional, keyword-only
        ``bloom`` / ``falcon`` only: ``k`` zeros and ones; positions restart after padding as
        ``(cumsum(mask) - 1) · mask``.

    Returns
    -------
    numpy.ndarray
        float64: shape ``(h, q, k)`` for ``causal`` / ``symmetric``, ``(h, 1, k)`` otherwise.

    Raises
    ------
    ParameterError
        For a bad convention, length, mask, or more than :data:`~.rules.MAX_BIAS_VALUES` values.

    Examples
    --------
    >>> alibi_bias([0.5], 3)[0].tolist()
    [[0.0, -inf, -inf], [-0.5, 0.0, -inf], [-1.0, -0.5, 0.0]]
    >>> alibi_bias([0.5], 3, convention="mpt")[0].tolist()
    [[-1.0, -0.5, 0.0]]

    """
    m = check_slopes(slopes)
    record, k, q = check_bias(m.size, n_key, n_query, convention, attention_mask)
    if not record.key_only:
        i = np.arange(k - q, k, dtype=np.float64)[:, None]
        distance = i - np.arange(k, dtype=np.float64)[None, :]
        bias = -(m[:, None, None] * np.abs(distance)) + 0.0  # + 0.0: no -0.0 on the diagonal
        if record.causal:
            bias[:, distance < 0] = -math.inf
        return bias
    positions = key_positions(k, attention_mask).astype(np.float64)
    if record.zero_at_last_key:
        positions = positions - (k - 1)
    if record.bfloat16:
        return _bfloat16(_bfloat16(m)[:, None, None] * _bfloat16(positions))
    rows: np.ndarray = m[:, None, None] * positions
    return rows
