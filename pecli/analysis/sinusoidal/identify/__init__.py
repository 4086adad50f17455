"""Recognise which convention produced a table: layout, schedule, base, first position, storage.

The fit, for rows = positions (and again for the transposed table):

1. all-zero rows are padding rows, an all-zero last column of an odd-width table is the
   zero column of tensor2tensor / fairseq / diffusers;
2. a layout pairs columns into ``(sin θ, cos θ)``: only the right pairing puts every pair on
   the unit circle, and only the right sine/cosine order makes θ grow with the row;
3. the angles ``θ_j(r) = (start + r) ω_j`` with ``ω_j = exp(-k j)`` give ``k`` from the slopes;
   the first position is the integer that agrees with the phase of every pair (the fast pairs
   pin the residue, the slow ones the wrap count: :mod:`.phases`), checked against the rows;
   when no integer does (a base that is not a round number, a start that is not an integer),
   ``start`` and ``k`` are fitted as real numbers from the intercepts (:mod:`.fitting`);
4. ``k = ln C / (h - s)`` alone is what a table determines: the paper schedule with base ``C``
   and tensor2tensor's with ``C^((h-1)/h)`` are the same table. The reading whose base is the
   rounder number is reported first, the other as equivalent;
5. the table is rebuilt with :func:`pecli.core.sinusoidal.encoding.table_blocks`, rounded to
   the storage precision, and compared entry by entry; the presets whose own tables are the
   same numbers are named (:mod:`.naming`).

Steps 2-3 run on the first 256 non-zero rows, step 5 on every row; when that quick pass does
not settle the reading (:mod:`.passes`: anything but one integer start, a round base and
every row reproduced to the storage's rounding), steps 2-5 run again on 2048 rows.

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.

"""

from __future__ import annotations

import numpy as np

from ....core.dtypes import storage_precision
from ....core.sinusoidal.knobs import ODD_SINE
from . import phases
from .fits import denominator, other_base, schedules
from .fitting import Fit, Zeros
from .identifiable import check_identifiable
from .naming import command, preset_names, short_base
from .passes import nonzero_lines, search
from .result import Candidate, Identification

__all__ = ["BEYOND", "Candidate", "Identification", "identify", "identify_table"]

#: The note of a table whose closest reading starts in the top half of the positions searched
#: and does not match: its first position is most likely past them.
BEYOND = "first position not determined (beyond 2^24)"


def _equivalent(fit: Fit, d: int) -> str:
    """The other readings of the same numbers: paper with C, or tensor2tensor with C^((h-1)/h)."""
    own = denominator(fit.schedule, d, fit.odd_d)
    if d // 2 == 1 and fit.odd_d not in ODD_SINE:  # one pair, ω_0 = 1
        return "any base (d = 2)" if d == 2 else f"any base (one pair at d = {d})"
    rules = ODD_SINE if fit.odd_d in ODD_SINE else (fit.odd_d,)
    others = []
    for rule, schedule, den in schedules(d, rules):
        base = other_base(fit.base, den, own)
        if (schedule, rule) == (fit.schedule, fit.odd_d) or den == own or base is None:
            continue
        label = f"{schedule} schedule" + (f" (odd d: {rule})" if rule != fit.odd_d else "")
        others.append(f"{label} with C = {base:.6g}")
    return ", ".join(others)


def _note(fit: Fit, zeros: Zeros) -> str:
    """Words for what the numbers leave open, and for what the command does not rebuild.

    Left open: the base, the start, a start compute refuses; not rebuilt: more than one zero
    row (``compute`` zeroes one, ``--padding-idx``).
    """
    notes = [_start_note(fit)] if _start_note(fit) else []
    if len(zeros.padding) > 1:  # compute zeroes one row: --padding-idx
        rows = ", ".join(map(str, zeros.padding[:8])) + (", …" if len(zeros.padding) > 8 else "")
        notes.append(
            f"the command does not rebuild the zero rows {rows}: it computes them as positions "
            "(pecli compute zeroes one padding row, `padding_idx`)"
        )
    if fit.base_open:
        notes.append(
            "the base is not determined: only the first pair moves beyond the storage's "
            f"rounding in these rows; C = {fit.base:g} is given, larger bases give the "
            "same numbers"
        )
    return "; ".join(notes)


def _start_note(fit: Fit) -> str:
    if len(fit.starts) > 1:
        shown = ", ".join(f"{s:.0f}" for s in fit.starts[:6]) + (
            ", …" if len(fit.starts) > 6 else ""
        )
        return (
            "the first position is not determined by the table to its precision: the rows are "
            f"the same from positions {shown} (searched up to 2^24); "
            "the smallest is given"
        )
    if not float(fit.start).is_integer():
        return "the first position is not an integer: pecli compute takes integer starts only"
    return ""


def identify_table(table: np.ndarray) -> Identification:
    """Which convention produced ``table``: layout, schedule, base, start, padding, storage.

    Parameters
    ----------
    table : numpy.ndarray
        2-D, rows = positions, or transposed (``d × n``), of any float dtype (bfloat16 from
        ``ml_dtypes`` included); at least 2 rows and 2 columns. Any window ``rows[a:b]`` of a
        table whose first position is an integer from 0 to 2^24 is placed at its position.

    Returns
    -------
    Identification
        ``matched`` is true when the rebuilt table, rounded to the detected storage
        precision, is within the allowed error of every entry (one unit in the last place
        of the storage, plus float32 arithmetic of the producing framework, ``2^-22`` per
        unit of position, at most 0.1 in all). Otherwise ``candidates`` lists the closest
        readings, and
        ``convention``, ``presets`` and ``command`` are empty.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for a table with fewer than 2 rows or columns.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", 2017, §3.5; docs/conventions.md (the conventions).

    Examples
    --------
    >>> from pecli import encoding_table
    >>> found = identify_table(encoding_table(d=64, n=50, start=0, layout="sin-cos",
    ...                                       schedule="tensor2tensor", base=1000))
    >>> found.matched, found.layout, found.schedule, found.base, found.start, found.storage
    (True, 'sin-cos', 'tensor2tensor', 1000.0, 0.0, 'float32')
    >>> window = encoding_table(d=16, n=300, start=49_900)  # a window of a long table
    >>> found = identify_table(window)
    >>> found.start, found.presets[0], found.command.arguments[:2]
    (49900.0, 'pytorch `start` 49900', (('convention', 'pytorch'), ('start', '49900')))

    """
    values = np.asarray(table)
    if values.dtype not in (np.float32, np.float64):  # float32 stays: fits convert their rows
        values = values.astype(np.float64)
    check_identifiable(values.shape)
    nonzero = nonzero_lines(values)  # rows, columns
    check_identifiable(values.shape, (int(nonzero[0].sum()), int(nonzero[1].sum())))
    storage = storage_precision(values)
    result = Identification(False, (values.shape[0], values.shape[1]), storage=storage)
    best: tuple[Fit, Zeros, bool] | None = None
    for transposed, tried in zip((False, True), search(values, storage, nonzero), strict=True):
        note = " (transposed)" if transposed else ""
        result.candidates += [
            Candidate(c.description + note, c.residual, c.score) for c in tried.candidates
        ]
        fit = tried.best
        if fit is not None and (best is None or fit.score < best[0].score):
            best = (fit, tried.zeros, transposed)
    result.candidates.sort(key=lambda c: c.score)
    if best is not None:
        _fill(result, *best, values.T if best[2] else values)
    return result


def _fill(
    found: Identification, fit: Fit, zeros: Zeros, transposed: bool, table: np.ndarray
) -> None:
    """Copy the best fit into ``found``; name presets and a command only for a match."""
    n, d = table.shape
    found.matched, found.transposed = fit.score <= 1.0, transposed
    found.layout, found.start, found.starts = fit.layout, fit.start, fit.starts
    found.padding_rows, found.zero_components = zeros.padding, [d] if zeros.odd else []
    found.residual, found.relative_residual = fit.residual, fit.score
    if found.matched:
        short_base(fit, table, zeros, found.storage)  # 7321, not 7321.000000000008
        readings = preset_names(fit, (n, d), zeros)  # may switch to the reading they need
        found.presets = [reading.label(fit) for reading in readings]
        found.convention = readings[0].name if readings else "custom"
        found.command = command(fit, (n, d), zeros, readings, found.storage)
        found.note = _note(fit, zeros)
    elif not fit.real and fit.start >= phases.MAX_START // 2:  # at the end of the searched range
        found.note = BEYOND
    found.schedule, found.base, found.base_fit = fit.schedule, fit.base, fit.base_fit
    found.equivalent = _equivalent(fit, d)


#: The same function under the short name the checkpoint scan calls.
identify = identify_table
