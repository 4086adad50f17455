"""What a rope type's formula and rules read of a rotary embedding: its fields, as a protocol.

:class:`~pecli.core.rope.spec.RopeSpec` has them. The formulas (:mod:`.formulas`,
:mod:`.float32_formulas`) and the types' own rules (:mod:`.type_rules`) are written against
this protocol rather than the class, so the registry (:mod:`.registry`), which pairs them with
their types, sits below the spec, whose rotated width asks the registry: no module imports one
that imports it back. Types only; no code runs here.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["RopeFields"]


class RopeFields(Protocol):
    """The fields of :class:`~pecli.core.rope.spec.RopeSpec` (read-only), by their names."""

    @property
    def rope_type(self) -> str: ...  # noqa: D102
    @property
    def theta(self) -> float: ...  # noqa: D102
    @property
    def head_dim(self) -> int: ...  # noqa: D102
    @property
    def partial_rotary_factor(self) -> float: ...  # noqa: D102
    @property
    def rotary_dim(self) -> int: ...  # noqa: D102
    @property
    def factor(self) -> float | None: ...  # noqa: D102
    @property
    def original_max_position_embeddings(self) -> int | None: ...  # noqa: D102
    @property
    def max_position_embeddings(self) -> int | None: ...  # noqa: D102
    @property
    def seq_len(self) -> int | None: ...  # noqa: D102
    @property
    def low_freq_factor(self) -> float | None: ...  # noqa: D102
    @property
    def high_freq_factor(self) -> float | None: ...  # noqa: D102
    @property
    def beta_fast(self) -> float | None: ...  # noqa: D102
    @property
    def beta_slow(self) -> float | None: ...  # noqa: D102
    @property
    def mscale(self) -> float | None: ...  # noqa: D102
    @property
    def mscale_all_dim(self) -> float | None: ...  # noqa: D102
    @property
    def attention_factor(self) -> float | None: ...  # noqa: D102
    @property
    def truncate(self) -> bool: ...  # noqa: D102
    @property
    def short_factor(self) -> tuple[float, ...] | None: ...  # noqa: D102
    @property
    def long_factor(self) -> tuple[float, ...] | None: ...  # noqa: D102
