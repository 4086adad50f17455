"""The parameters of a rotary embedding (one ``rope_type`` and its fields) and their rules.

The names are those of Hugging Face transformers' ``rope_parameters`` (``rope_theta`` is
``theta`` here); the defaults and the rules follow ``transformers/modeling_rope_utils.py``
(``_compute_*_parameters`` and ``RotaryEmbeddingConfigMixin._validate_*_rope_parameters``),
except that where transformers only logs a warning (a factor below 1, a list of the wrong
length) pecli refuses the value. Pure Python; no I/O.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from dataclasses import dataclass

from ..errors import ParameterError
from ..rules import MAX_D

__all__ = ["FACTOR_AT_LEAST_ONE", "ROPE_TYPES", "RopeSpec", "check_spec"]

#: Every ``rope_type`` of transformers 5's ``ROPE_INIT_FUNCTIONS``, plus ``default``.
ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "longrope", "llama3", "proportional")
#: Types whose ``factor`` must be >= 1 (transformers warns "must be a float or int >= 1").
FACTOR_AT_LEAST_ONE = ("linear", "dynamic", "yarn", "longrope", "llama3")
#: Fields a type cannot do without (``factor`` of yarn/longrope may come from the lengths).
_REQUIRED = {
    "linear": ("factor",),
    "dynamic": ("factor", "max_position_embeddings"),
    "yarn": ("original_max_position_embeddings",),
    "longrope": ("original_max_position_embeddings", "short_factor", "long_factor"),
    "llama3": (
        "factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings",
    ),
}  # fmt: skip


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
        if self.rope_type == "proportional":
            return self.head_dim
        return int(self.head_dim * self.partial_rotary_factor)

    def given(self) -> dict[str, object]:
        """The fields that are set (not None), in declaration order."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) is not None
        }


class _Shown(str):
    """A value as an error message shows it: ``the string '2'`` (repr and str alike)."""

    def __repr__(self) -> str:
        return str(self)


def shown(value: object) -> object:
    """``value``, or ``the string '2'`` for a string (a JSON number given in quotes)."""
    return _Shown(f"the string {value!r}") if isinstance(value, str) else value


def _positive(name: str, value: object, *, above: float = 0.0) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not ok:
        raise ParameterError(name, f"must be a finite number > {above:g}", shown(value))
    if not math.isfinite(float(value)) or float(value) <= above:  # type: ignore[arg-type]
        raise ParameterError(name, f"must be a finite number > {above:g}", value)
    return float(value)  # type: ignore[arg-type]


def _count(name: str, value: object) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or int(value) < 1:
        raise ParameterError(name, "must be an integer >= 1", shown(value))
    return int(value)


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
    if not isinstance(spec.rope_type, str) or spec.rope_type not in ROPE_TYPES:
        raise ParameterError("rope_type", f"must be one of {', '.join(ROPE_TYPES)}", spec.rope_type)
    _positive("theta", spec.theta, above=1.0)
    head = _count("head_dim", spec.head_dim)
    if head % 2 or head < 2 or head > MAX_D:
        raise ParameterError("head_dim", f"must be even (rotary pairs), from 2 to {MAX_D}", head)
    prf = _positive("partial_rotary_factor", spec.partial_rotary_factor)
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
    for name in _REQUIRED.get(spec.rope_type, ()):
        if getattr(spec, name) is None:
            raise ParameterError(name, f"is required by rope_type {spec.rope_type!r}", "nothing")
    _check_scaling(spec)
    return spec


def _check_scaling(spec: RopeSpec) -> None:
    for name in ("original_max_position_embeddings", "max_position_embeddings", "seq_len"):
        if getattr(spec, name) is not None:
            _count(name, getattr(spec, name))
    if spec.factor is not None:
        least = 1.0 if spec.rope_type in FACTOR_AT_LEAST_ONE else 0.0
        factor = _positive("factor", spec.factor)
        if factor < least:
            raise ParameterError("factor", f"must be >= 1 for rope_type {spec.rope_type!r}", factor)
    elif spec.rope_type in ("yarn", "longrope") and spec.max_position_embeddings is None:
        raise ParameterError(
            "factor", f"is required by rope_type {spec.rope_type!r} "
            "(or max_position_embeddings, to take max/original)", "nothing",
        )  # fmt: skip
    _check_numbers(spec)
    if spec.rope_type == "llama3" and spec.low_freq_factor <= 0:  # type: ignore[operator]
        raise ParameterError("low_freq_factor", "must be > 0 (it divides L)",
                             spec.low_freq_factor)  # fmt: skip
    if spec.rope_type == "llama3" and spec.high_freq_factor <= spec.low_freq_factor:  # type: ignore[operator]
        raise ParameterError("high_freq_factor", "must be > low_freq_factor", spec.high_freq_factor)
    if spec.rope_type == "longrope":
        for name in ("short_factor", "long_factor"):
            values = getattr(spec, name)
            if len(values) != spec.rotary_dim // 2:
                rule = f"must hold rotary_dim/2 = {spec.rotary_dim // 2} numbers"
                raise ParameterError(name, rule, f"{len(values)} numbers")
            for value in values:
                _positive(name, value)


def _check_numbers(spec: RopeSpec) -> None:
    """Finite factors; yarn's betas (logs) and the attention factor (on cos, sin) also > 0."""
    for name in ("low_freq_factor", "high_freq_factor", "mscale", "mscale_all_dim"):
        if getattr(spec, name) is not None:
            _finite(name, getattr(spec, name))
    for name in ("beta_fast", "beta_slow", "attention_factor"):
        if getattr(spec, name) is not None:
            _positive(name, getattr(spec, name))
    _check_betas(spec)


def _check_betas(spec: RopeSpec) -> None:
    """Check that yarn's correction range has beta_fast above beta_slow (defaults 32 and 1)."""
    fast = 32.0 if spec.beta_fast is None else spec.beta_fast
    slow = 1.0 if spec.beta_slow is None else spec.beta_slow
    if fast <= slow:
        raise ParameterError("beta_fast", f"must be > beta_slow = {slow:g}", fast)


def _finite(name: str, value: object) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not ok or not math.isfinite(float(value)):  # type: ignore[arg-type]
        raise ParameterError(name, "must be a finite number", shown(value))
    return float(value)  # type: ignore[arg-type]
