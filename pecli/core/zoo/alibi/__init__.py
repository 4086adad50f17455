"""ALiBi: the per-head slopes and the bias tensors of each library (docs/zoo.md#alibi).

Attention with Linear Biases adds ``-m_h · distance`` to head ``h``'s attention logits. The
slopes are a geometric series: for ``n`` heads and ``P = 2^floor(log2 n)``, head ``h`` (0-based)
has ``m_h = 2^(-b·(h+1)/P)`` for ``h < P`` and, for the ``n - P`` heads past the power of two,
every other slope of the doubled series, ``m_h = 2^(-b·(2(h-P)+1)/(2P))``; ``b`` is ggml's
``max_bias`` and MPT's ``alibi_bias_max`` (8 in the paper).

The modules, by concern: :mod:`.records` (the registries: one record per slope series and per
bias tensor), :mod:`.rules` (the argument rules and the size cap), :mod:`.slopes` (the
exponents and the exact slopes, rounded once by :mod:`.powers`), :mod:`.bias` (the whole
tensors in float64), :mod:`.certified` (the products ``μ·d`` rounded under the certificate)
and :mod:`.blocks` (the tensors a block of heads at a time, for writing).

References
----------
.. [1] O. Press, N. A. Smith, M. Lewis, "Train Short, Test Long: Attention with Linear Biases
   Enables Input Length Extrapolation", ICLR 2022, §3 (``get_slopes`` in the authors'
   ``attention_with_linear_biases`` repository, fairseq/models/transformer.py).
.. [2] transformers: ``models/bloom/modeling_bloom.py`` (``_get_alibi_slopes``,
   ``build_alibi_tensor``), ``models/falcon/modeling_falcon.py`` (``build_alibi_tensor``,
   slopes cast to bfloat16), ``models/mpt/modeling_mpt.py`` (``build_mpt_alibi_tensor``).
.. [3] ggml: ``ggml_soft_max_ext`` with ``max_bias``: ``m0 = 2^(-max_bias/P)``,
   ``m1 = 2^(-max_bias/2/P)``, slope ``m0^(h+1)`` or ``m1^(2(h-P)+1)``.

"""

from .bias import alibi_bias
from .records import (
    ALIBI_CONVENTIONS,
    ALIBI_SERIES,
    CONVENTIONS,
    VARIANTS,
    AlibiConvention,
    AlibiSeries,
    alibi_convention,
    names,
)
from .rules import MAX_BIAS_VALUES, MAX_HEADS, check_heads, check_max_bias
from .slopes import ExactSlopes, alibi_exponents, alibi_slopes, exact_slopes

__all__ = [
    "ALIBI_CONVENTIONS",
    "ALIBI_SERIES",
    "CONVENTIONS",
    "MAX_BIAS_VALUES",
    "MAX_HEADS",
    "VARIANTS",
    "AlibiConvention",
    "AlibiSeries",
    "ExactSlopes",
    "alibi_bias",
    "alibi_convention",
    "alibi_exponents",
    "alibi_slopes",
    "check_heads",
    "check_max_bias",
    "exact_slopes",
    "names",
]
