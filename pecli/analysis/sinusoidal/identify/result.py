"""What :func:`pecli.analysis.sinusoidal.identify.identify_table` reports."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ...rebuild import Rebuild

__all__ = ["Candidate", "Identification"]


@dataclass
class Candidate:
    """One reading of the table and how far the table is from it."""

    description: str
    residual: float
    score: float


@dataclass
class Identification:
    """What :func:`identify_table` found; ``matched`` says whether it reproduces the table.

    ``convention`` is the first preset that builds the table (``custom`` when none does, empty
    when nothing matched); ``presets`` lists every preset that builds it, with the flags it
    needs, parameters in backticks (``pytorch `start` 49900`` for a window of a preset's table).
    ``start`` is the first position;
    ``starts`` every first position that reproduces the table as well (more than one when the
    table does not determine it, see ``note``). ``padding_rows`` are 0-based row indices, as
    ``padding_idx`` takes them (fairseq's ``padding_idx``); ``zero_components`` are 1-based
    component numbers, as in docs/encoding.md's ``pe(pos)[1 … d]`` (the zero column that pads
    an odd ``d`` is component ``d``). ``command`` holds the arguments of ``compute`` that
    rebuild the table (:class:`~pecli.analysis.rebuild.Rebuild`); it is empty when nothing
    matched or ``compute`` cannot take the start.
    """

    matched: bool
    shape: tuple[int, int]
    transposed: bool = False
    storage: str = "float64"
    convention: str = ""
    layout: str = ""
    schedule: str = ""
    base: float = math.nan
    base_fit: float = math.nan
    start: float = math.nan
    starts: list[float] = field(default_factory=list)
    padding_rows: list[int] = field(default_factory=list)
    zero_components: list[int] = field(default_factory=list)
    residual: float = math.inf
    relative_residual: float = math.inf  # residual / allowed error: <= 1 is a match
    presets: list[str] = field(default_factory=list)
    equivalent: str = ""
    command: Rebuild = field(default_factory=Rebuild)
    note: str = ""
    candidates: list[Candidate] = field(default_factory=list)
