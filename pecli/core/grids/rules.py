"""Argument rules of grid tables (:mod:`pecli.core.grids`), beside the general ones.

Every check returns the value in its working type or raises
:class:`~pecli.core.errors.ParameterError` naming the argument and the rule, as
:mod:`pecli.core.rules` does for the 1-D encoding (whose ``as_int`` they share).
"""

from __future__ import annotations

import math

from ..errors import ParameterError
from ..rules import as_int

__all__ = [
    "MAX_GRID_TOKENS",
    "MOSAIC_TOKENS",
    "PLOT_TOKENS",
    "check_extra_tokens",
    "check_grid_axes",
    "check_grid_scale",
    "check_grid_shape",
    "check_plot_plane",
    "leading_rows",
]


#: Largest number of tokens of a grid, H·W·…: the rows must stay countable exactly.
MAX_GRID_TOKENS = 1 << 40


def check_grid_shape(shape: object) -> tuple[int, ...]:
    """Return the grid's sides as a tuple; raise unless 1 to 4 integers >= 1, product <= 2^40.

    >>> check_grid_shape([3, 5])
    (3, 5)
    """
    rule = "must be 1 to 4 integers >= 1 (rows, columns, …) with at most 2^40 tokens"
    try:
        sides: tuple[object, ...] = tuple(shape)  # type: ignore[arg-type]
    except TypeError:
        raise ParameterError("shape", rule, shape) from None
    values = [as_int(side) for side in sides]
    if not 1 <= len(values) <= 4 or any(v is None or v < 1 for v in values):
        raise ParameterError("shape", rule, shape)
    if math.prod(values) > MAX_GRID_TOKENS:  # type: ignore[arg-type]
        raise ParameterError("shape", rule, shape)
    return tuple(values)  # type: ignore[arg-type]


def check_grid_axes(m: int, allowed: tuple[int, ...], preset: str) -> None:
    """Raise :class:`ParameterError` unless a grid of ``m`` axes is one ``preset`` takes."""
    if m not in allowed:
        counts = " or ".join(str(a) for a in allowed)
        raise ParameterError("shape", f"must have {counts} axes for `preset` {preset}", m)


def check_extra_tokens(extra_tokens: object) -> int:
    """Return the number of leading zero rows (cls and other tokens); an integer 0 … 2^20."""
    value = as_int(extra_tokens)
    if value is None or not 0 <= value <= 1 << 20:
        raise ParameterError("extra_tokens", "must be an integer from 0 to 2^20", extra_tokens)
    return value


def leading_rows(cls_token: bool, extra_tokens: int | None) -> int:
    """The leading zero rows: ``extra_tokens``, else 1 with ``cls_token``, else 0.

    >>> leading_rows(True, None), leading_rows(False, 4), leading_rows(True, 1)
    (1, 4, 1)
    """
    if cls_token and extra_tokens is not None and extra_tokens != 1:
        rule = "must be 1 with `cls_token` (or drop `cls_token`)"
        raise ParameterError("extra_tokens", rule, extra_tokens)
    return extra_tokens if extra_tokens is not None else int(cls_token)


#: Most tokens a grid plot draws as channel images.
PLOT_TOKENS = 1 << 16
#: Most tokens of a similarity mosaic, whose similarities of every pair of tokens are (H·W)².
MOSAIC_TOKENS = 1 << 12


def check_plot_plane(
    shape: list[int], *, similarity: bool = False, patch: tuple[int, int] | None = None
) -> tuple[int, int]:
    """The grid of a 2-D plot, ``(H, W)``, small enough to draw (``patch`` needs ``similarity``).

    >>> check_plot_plane([14, 14], similarity=True, patch=(0, 3))
    (14, 14)
    """
    if patch is not None and not similarity:
        rule = "goes with `similarity` (it picks one tile of the similarity figure)"
        raise ParameterError("patch", rule, " ".join(map(str, patch)))
    if len(shape) != 2:
        raise ParameterError("shape", "must be two sides H W for a plot", " ".join(map(str, shape)))
    most, what = (
        (MOSAIC_TOKENS, "`similarity` (64 × 64)")
        if similarity
        else (PLOT_TOKENS, "a plot (256 × 256)")
    )
    if shape[0] * shape[1] > most:  # one image cell per token; the mosaic holds (H·W)² values
        rule = f"must have at most {most:,} tokens H·W for {what}"
        raise ParameterError("shape", rule, " ".join(map(str, shape)))
    return shape[0], shape[1]


def check_grid_scale(name: str, value: object) -> float:
    """Return diffusers' ``base_size`` or ``interpolation_scale``; a number from 1e-6 to 1e6."""
    rule = "must be a number from 1e-6 to 1e6"
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(name, rule, value) from None
    if not 1e-6 <= number <= 1e6 or isinstance(value, bool):
        raise ParameterError(name, rule, value)
    return number
