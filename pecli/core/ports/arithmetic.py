"""A rope cache in an engine's arithmetic: exact, transformers' float32 steps, ggml's loop.

One record per arithmetic (:data:`ARITHMETICS`): its row blocks (:mod:`pecli.core.rope.cache`,
:mod:`pecli.core.rope.framework`, :mod:`.ggml_cache`), the refusal of a rope type it does not
repeat, and whether it takes a list of positions. :func:`cache_table` makes the cache of a
:class:`~pecli.core.rope.cache.CacheSpec` in any arithmetic and any form, every argument
checked before a block is computed. Pure NumPy; no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from ..errors import ParameterError
from ..rope.cache import cache_blocks
from ..rope.cache_spec import CacheSpec
from ..rope.forms import FormTable, check_form, form_table, reformed
from ..rope.framework import framework_cache_blocks, transformers_inv_freq
from ..rope.frequencies import RopeFrequencies
from ..sinusoidal.knobs import check_amplitude_range
from .ggml_cache import ggml_angles, ggml_cache_blocks

__all__ = ["ARITHMETICS", "Arithmetic", "cache_sample", "cache_table"]


@dataclass(frozen=True)
class Arithmetic:
    """How a cache is computed.

    Attributes
    ----------
    name : str
        ``exact``, ``transformers`` or ``llama.cpp``.
    blocks : callable
        ``CacheSpec → row blocks``.
    check : callable
        ``RopeFrequencies → None``: refuses (ParameterError) a rope type it does not repeat.
    positions : bool
        Whether it takes a list of positions (ggml counts up from ``start``).

    """

    name: str
    blocks: Callable[[CacheSpec], Iterator[np.ndarray]]
    check: Callable[[RopeFrequencies], None]
    positions: bool = True


def _any(freqs: RopeFrequencies) -> None:
    """Every rope type is computed exactly."""


def _transformers(freqs: RopeFrequencies) -> None:
    transformers_inv_freq(freqs.spec)


def _llama_cpp(freqs: RopeFrequencies) -> None:
    ggml_angles(freqs, np.zeros(1))


#: Every arithmetic, exact first.
ARITHMETICS = {
    a.name: a
    for a in (
        Arithmetic("exact", cache_blocks, _any),
        Arithmetic("transformers", framework_cache_blocks, _transformers),
        Arithmetic("llama.cpp", ggml_cache_blocks, _llama_cpp, positions=False),
    )
}


def cache_table(spec: CacheSpec, *, arithmetic: str = "exact", form: str = "full") -> FormTable:
    """The cache of ``spec`` in ``arithmetic`` and ``form``, checked before any block is made.

    Parameters
    ----------
    spec : CacheSpec
        Frequencies, positions, layout, dtype and part.
    arithmetic : str, keyword-only
        One of :data:`ARITHMETICS`.
    form : str, keyword-only
        One of :data:`pecli.core.rope.forms.FORMS`: ``full``; ``half``, ``complex`` and
        ``matrix`` are rounded once from the float64 full cache (``exact``: from the full
        cache in the stored dtype, rounded under the certificate, which they keep exactly).

    Returns
    -------
    FormTable
        Shape, dtype, columns and tensor names, and the row blocks of each part.

    Raises
    ------
    ParameterError
        An attention factor the dtype cannot hold (as ``attention_factor``), a rope type the
        arithmetic does not repeat, positions it does not take, a bad ``start`` or positions,
        a form the part or dtype cannot hold.

    Examples
    --------
    >>> from pecli.core.rope import RopeSpec, rope_frequencies
    >>> spec = CacheSpec(rope_frequencies(RopeSpec(head_dim=4)), 2, dtype="float64")
    >>> table = cache_table(spec, arithmetic="transformers", form="half")
    >>> table.shape, next(table.blocks())[1].round(6).tolist()
    ((2, 4), [0.540302, 0.99995, 0.841471, 0.01])

    """
    how = ARITHMETICS.get(arithmetic)
    if how is None:
        raise ParameterError("arithmetic", f"must be one of {', '.join(ARITHMETICS)}", arithmetic)
    factor = spec.freqs.attention_factor  # cos and sin times it must stay finite in the dtype
    check_amplitude_range((factor, 0.0), spec.stored, factor, "attention_factor")
    how.check(spec.freqs)
    if spec.positions is not None and not how.positions:
        takers = " or ".join(name for name, a in ARITHMETICS.items() if a.positions)
        rule = f"go with `arithmetic` {takers} ({arithmetic} counts up from `start`)"
        raise ParameterError("positions", rule, arithmetic)
    how.blocks(spec)  # start and positions checked here, first

    def make(part: str) -> Iterator[np.ndarray]:
        if form == "full":
            return how.blocks(dataclasses.replace(spec, part=part))
        wide = spec.stored if how.name == "exact" else np.float64
        full = how.blocks(dataclasses.replace(spec, part="both", dtype=wide, reuse=0))
        h, stored = spec.pairs, spec.stored
        return reformed(full, h=h, layout=spec.layout, form=form, part=part, stored=stored)

    check_form(form, spec.part, spec.stored)
    return form_table(make, n=spec.n, h=spec.pairs, form=form, part=spec.part, stored=spec.stored)


def cache_sample(spec: CacheSpec, arithmetic: str = "exact") -> np.ndarray:
    """Up to 64 rows spread over the cache (at most 2^20 values), for a CSV size estimate.

    Examples
    --------
    >>> from pecli.core.rope import RopeSpec, rope_frequencies
    >>> cache_sample(CacheSpec(rope_frequencies(RopeSpec(head_dim=4)), 1000)).shape
    (64, 8)

    """
    blocks = ARITHMETICS[arithmetic].blocks
    count = max(2, min(64, (1 << 20) // spec.width))
    chosen = np.unique(np.linspace(0, spec.n - 1, count).round().astype(np.int64))
    if spec.positions is not None:
        where = np.asarray(spec.positions, dtype=np.float64)[chosen]
        return np.concatenate(
            list(blocks(dataclasses.replace(spec, n=where.size, positions=where, reuse=0)))
        )
    rows = np.unique(
        np.linspace(spec.start, spec.start + spec.n - 1, count).round().astype(np.int64)
    )
    return np.concatenate(
        [next(blocks(dataclasses.replace(spec, n=1, start=int(p), reuse=0))) for p in rows]
    )
