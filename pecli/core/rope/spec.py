"""The parameters of a rotary embedding (one ``rope_type`` and its fields) and their rules.

The names are those of Hugging Face transformers' ``rope_parameters`` (``rope_theta`` is
``theta`` here). :func:`check_spec` checks the widths, then each given field's own rule, then
what the type's record (:mod:`pecli.core.rope.registry`) asks: its required fields, a factor
of at least 1, its own rules. Where transformers only logs a warning (a factor below 1, a list
of the wrong length) pecli refuses the value. Pure Python; no I/O.
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError
from ..rules import MAX_D, check_n
from .number_rules import check_theta, count, finite, positive, shown
from .registry import FACTOR_AT_LEAST_ONE, RECORDS, ROPE_TYPES, RopeType, default_of, record

__all__ = ["FACTOR_AT_LEAST_ONE", "ROPE_TYPES", "RopeSpec", "check_spec", "with_defaults"]


@dataclass(frozen=True)
class RopeSpec:
    """One rotary embedding: its ``rope_type``, widths and scaling fields.

    Attributes
    ----------
    rope_type : str
        One of :data:`ROPE_TYPES`.
    theta : float
        ``rope_theta``, the base θ (> 1).
    head_dim : int
        Width of one attention head (even).
    partial_rotary_factor : float
        Fraction of the head that rotates, in (0, 1]; the rotated width is
        ``int(head_dim · partial_rotary_factor)`` (even).
    factor, original_max_position_embeddings, max_position_embeddings, seq_len,
    low_freq_factor, high_freq_factor, beta_fast, beta_slow, mscale, mscale_all_dim,
    attention_factor, truncate, short_factor, long_factor
        The scaling fields, as in transformers (None: not given).

    """

    rope_type: str = "default"
    theta: float = 10000.0
    head_dim: int = 128
    partial_rotary_factor: float = 1.0
    factor: float | None = None
    original_max_position_embeddings: int | None = None
    max_position_embeddings: int | None = None
    seq_len: int | None = None
    low_freq_factor: float | None = None
    high_freq_factor: float | None = None
    beta_fast: float | None = None
    beta_slow: float | None = None
    mscale: float | None = None
    mscale_all_dim: float | None = None
    attention_factor: float | None = None
    truncate: bool = True
    short_factor: tuple[float, ...] | None = None
    long_factor: tuple[float, ...] | None = None

    @property
    def rotary_dim(self) -> int:
        """The rotated width ``int(head_dim · partial_rotary_factor)``.

        For ``proportional`` it is ``head_dim``: its pass-through pairs have frequency 0.
        """
        kind = RECORDS.get(self.rope_type) if isinstance(self.rope_type, str) else None
        if kind is not None and kind.whole_head_exponent:
            return self.head_dim
        return int(self.head_dim * self.partial_rotary_factor)

    def given(self) -> dict[str, object]:
        """The fields that are set (not None), in declaration order."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) is not None
        }


def with_defaults(spec: RopeSpec) -> RopeSpec:
    """``spec`` with each unset field its type has a default for set to that default.

    >>> with_defaults(RopeSpec(rope_type="yarn")).beta_fast
    32.0
    """
    defaults = record(spec.rope_type).defaults
    unset: dict[str, Any] = {k: v for k, v in defaults.items() if getattr(spec, k) is None}
    return dataclasses.replace(spec, **unset) if unset else spec


def check_spec(spec: RopeSpec) -> RopeSpec:
    """Return ``spec`` if it is complete and valid; raise :class:`ParameterError` otherwise.

    Raises
    ------
    ParameterError
        An unknown ``rope_type`` (the message lists the known ones), an odd or too small
        ``head_dim`` or rotated width, a ``factor`` below 1 for a type that forbids it,
        a field the type needs that is missing, a ``short_factor``/``long_factor`` of the
        wrong length, ``high_freq_factor <= low_freq_factor``.

    Examples
    --------
    >>> check_spec(RopeSpec(rope_type="linear"))
    Traceback (most recent call last):
    ...
    pecli.core.errors.ParameterError: factor is required by rope_type 'linear' (got 'nothing')

    """
    kind = record(spec.rope_type)
    _check_widths(spec)
    for name in kind.required:
        if getattr(spec, name) is None:
            raise ParameterError(name, f"is required by rope_type {spec.rope_type!r}", "nothing")
    for name in ("original_max_position_embeddings", "max_position_embeddings"):
        if getattr(spec, name) is not None:
            count(name, getattr(spec, name))
    if spec.seq_len is not None:  # a number of positions: exact integers end at 2^53
        check_n(spec.seq_len, "seq_len")
    _check_factor(spec, kind)
    _check_numbers(spec)
    for rule in kind.rules:
        rule(spec)
    return spec


def _check_widths(spec: RopeSpec) -> None:
    """θ > 1, an even head_dim from 2 to MAX_D, an even rotated width >= 2, truncate a bool."""
    check_theta(spec.theta)
    head = spec.head_dim  # 0 and -2 get this rule too, not count's ">= 1" (1 is no width)
    if isinstance(head, bool) or not isinstance(head, numbers.Integral):
        count("head_dim", head)  # a float or a string: "must be an integer"
    if head % 2 or not 2 <= head <= MAX_D:
        raise ParameterError("head_dim", f"must be even (rotary pairs), from 2 to {MAX_D}", head)
    prf = positive("partial_rotary_factor", spec.partial_rotary_factor)
    if prf > 1:
        raise ParameterError("partial_rotary_factor", "must be in (0, 1]", prf)
    if spec.rotary_dim < 2 or spec.rotary_dim % 2:
        rule = (
            "must give an even rotated width int(head_dim·factor) >= 2;"
            f" int({head}·{prf:g}) = {spec.rotary_dim}"
        )
        raise ParameterError("partial_rotary_factor", rule, prf)
    if not isinstance(spec.truncate, bool):
        raise ParameterError("truncate", "must be true or false", shown(spec.truncate))


def _check_factor(spec: RopeSpec, kind: RopeType) -> None:
    """A factor > 0, >= 1 where the type says so; or, if none, the lengths it comes from."""
    if spec.factor is not None:
        factor = positive("factor", spec.factor)
        if kind.factor_at_least_one and factor < 1:
            raise ParameterError("factor", f"must be >= 1 for rope_type {spec.rope_type!r}", factor)
    elif kind.factor_from_lengths and spec.max_position_embeddings is None:
        raise ParameterError(
            "factor",
            f"is required by rope_type {spec.rope_type!r} "
            "(or max_position_embeddings, to take max/original)",
            "nothing",
        )


def _check_numbers(spec: RopeSpec) -> None:
    """Finite factors; yarn's betas (logs) and the attention factor (on cos, sin) also > 0.

    beta_fast must be at least beta_slow, each unset one taken at its default (32 and 1), whatever
    the rope type; the error names the one the spec gives (beta_slow when beta_fast is unset).
    """
    for name in ("low_freq_factor", "high_freq_factor", "mscale", "mscale_all_dim"):
        if getattr(spec, name) is not None:
            finite(name, getattr(spec, name))
    for name in ("beta_fast", "beta_slow", "attention_factor"):
        if getattr(spec, name) is not None:
            positive(name, getattr(spec, name))
    fast = default_of("beta_fast") if spec.beta_fast is None else spec.beta_fast
    slow = default_of("beta_slow") if spec.beta_slow is None else spec.beta_slow
    if fast < slow and spec.beta_fast is None:  # the one given is the one named
        raise ParameterError("beta_slow", f"must be <= beta_fast = {fast:g} (its default)", slow)
    if fast < slow:  # equal betas (Kimi K2): one ramp point, as transformers' +0.001 makes it
        raise ParameterError("beta_fast", f"must be >= beta_slow = {slow:g}", fast)
