"""The rules a rope type adds to its fields' own (run last by :func:`.spec.check_spec`).

Each takes a checked-so-far :class:`~pecli.core.rope.spec.RopeSpec` (typed by its fields,
:class:`~.fields.RopeFields`) of its type and raises
:class:`~pecli.core.errors.ParameterError` naming the field; :mod:`pecli.core.rope.registry`
names them in each type's record. transformers only warns for most of these
(``_validate_<type>_rope_parameters``); pecli refuses, since the formula would be undefined or
silently wrong. Pure Python; no I/O.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..errors import ParameterError
from .number_rules import positive

if TYPE_CHECKING:  # pragma: no cover
    from .fields import RopeFields

__all__ = ["dynamic_width", "llama3_bands", "longrope_factors", "yarn_mscales"]


def llama3_bands(spec: RopeFields) -> None:
    """low_freq_factor > 0 (it divides L) and high_freq_factor >= low_freq_factor.

    Equal factors (Llama 4 Scout: 1 and 1) leave no band to smooth; transformers accepts them.
    """
    if spec.low_freq_factor <= 0:  # type: ignore[operator]
        raise ParameterError("low_freq_factor", "must be > 0 (it divides L)", spec.low_freq_factor)
    if spec.high_freq_factor < spec.low_freq_factor:  # type: ignore[operator]
        raise ParameterError(
            "high_freq_factor", "must be >= low_freq_factor", spec.high_freq_factor
        )


def dynamic_width(spec: RopeFields) -> None:
    """A rotated width of at least 4: θ' has the exponent dim/(dim − 2)."""
    if spec.rotary_dim < 4:
        rule = (
            "must give a rotated width of at least 4 for rope_type 'dynamic' (θ' has the"
            f" exponent dim/(dim − 2)); int({spec.head_dim}·{spec.partial_rotary_factor:g})"
            f" = {spec.rotary_dim}"
        )
        raise ParameterError("head_dim", rule, spec.head_dim)


def longrope_factors(spec: RopeFields) -> None:
    """short_factor and long_factor: rotary_dim/2 numbers each, every one > 0."""
    for name in ("short_factor", "long_factor"):
        values = getattr(spec, name)
        if len(values) != spec.rotary_dim // 2:
            rule = f"must hold rotary_dim/2 = {spec.rotary_dim // 2} numbers"
            raise ParameterError(name, rule, f"{len(values)} numbers")
        for value in values:
            positive(name, value)


def yarn_mscales(spec: RopeFields) -> None:
    """``mscale`` and ``mscale_all_dim`` give cos/sin a finite factor > 0.

    Without ``attention_factor`` the factor is ``get_mscale(f, mscale) / get_mscale(f,
    mscale_all_dim)``, ``get_mscale(f, m) = 0.1·m·ln f + 1`` for ``f > 1`` (``f``: ``factor``,
    else ``M/L``): each must be > 0, or the cache is scaled by a negative number or divided
    by zero.

    >>> from types import SimpleNamespace as S
    >>> try:
    ...     yarn_mscales(S(attention_factor=None, mscale=1.0, mscale_all_dim=-100.0, factor=4.0))
    ... except ParameterError as error:
    ...     print(error.parameter, str(error).split(" (YaRN")[0])
    mscale_all_dim mscale_all_dim must keep 0.1·mscale_all_dim·ln(factor) + 1 > 0
    """
    if spec.attention_factor is not None or not (spec.mscale and spec.mscale_all_dim):
        return
    f = spec.factor or spec.max_position_embeddings / spec.original_max_position_embeddings  # type: ignore[operator]
    for name in ("mscale", "mscale_all_dim"):
        value = getattr(spec, name)
        if f > 1 and not 0.1 * value * math.log(f) + 1 > 0:
            rule = f"must keep 0.1·{name}·ln(factor) + 1 > 0 (YaRN's get_mscale; factor {f:g})"
            raise ParameterError(name, rule, value)
