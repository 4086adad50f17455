"""How many entries a writer's certificate checked and recomputed, and its one-line report.

The kernels add to :data:`TALLY` from any thread; a writer resets it with :func:`counting`
around the table it writes and reports :meth:`Tally.message` (stderr, safetensors metadata,
``--json``). Pure Python, no I/O.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

__all__ = ["TALLY", "Certificate", "Tally", "counting"]


#: What a certificate claims: every value (or some) correctly rounded, values within an error
#: bound (float64), every value rounded under a proof (ALiBi's slopes), or none checked.
CLAIMS = ("correctly rounded", "partly certified", "error bound", "proven", "not certified")


@dataclass(frozen=True)
class Certificate:
    """One written table's certificate: its claim, counts and the one-line report.

    ``claim`` is one of :data:`CLAIMS`; ``checked`` values were rounded under the
    certificate, ``recomputed`` of them (undecided) in exact arithmetic; ``values`` the
    table's values the claim is about (None: each value is a copy of a checked one or an
    exact zero); ``message`` the line said on stderr and kept in safetensors metadata.

    Examples
    --------
    >>> t = Tally()
    >>> t.add(checked=4)
    >>> c = t.certificate(np.float32, 4)
    >>> c.claim, c.checked, c.recomputed, c.message
    ('correctly rounded', 4, 0, 'every value correctly rounded to float32: 0 undecided')

    """

    claim: str
    checked: int
    recomputed: int
    values: int | None
    message: str

    @property
    def certified(self) -> bool:
        """Whether the claim is a certificate at all (not ``not certified``)."""
        return self.claim != "not certified"

    @classmethod
    def proven(cls, dtype: object, values: int) -> Certificate:
        """``values`` each rounded once under a proof: nothing undecided, nothing recomputed."""
        name = np.dtype(dtype).name  # type: ignore[call-overload]
        said = f"every value correctly rounded to {name}: proven (exact powers, docs/exactness.md)"
        return cls("proven", values, 0, values, said)


class Tally:
    """Counts of one table's certificate: values checked, undecided (all recomputed), changed.

    Examples
    --------
    >>> t = Tally()
    >>> t.add(checked=10, recomputed=1)
    >>> t.message(np.float32, 10)
    'every value correctly rounded to float32: 1 recomputed'

    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        """Back to no values checked."""
        self.checked = 0
        self.recomputed = 0

    def add(self, *, checked: int, recomputed: int = 0) -> None:
        """Count ``checked`` values rounded under the certificate, ``recomputed`` of them."""
        with self._lock:
            self.checked += checked
            self.recomputed += recomputed

    def message(self, dtype: object, total: int | None) -> str:
        """``every value correctly rounded to float32: 0 undecided`` (or ``k recomputed``).

        The :attr:`Certificate.message` of :meth:`certificate`.
        """
        return self.certificate(dtype, total).message

    def certificate(self, dtype: object, total: int | None) -> Certificate:
        """The :class:`Certificate` of the counts so far, for a table of ``dtype``.

        ``total``: the values of the table; a table whose values were not all checked (their
        rounding took a path without the certificate) says so instead. None: every value is
        a copy of a checked one or an exact zero (a grid's per-axis values, broadcast). A
        float64 table says what is claimed for it; a complex table speaks of its parts.
        """
        name = np.dtype(dtype).name  # type: ignore[call-overload]
        name = {"complex64": "float32", "complex128": "float64"}.get(name, name)  # per part
        counts = (self.checked, self.recomputed, total)
        if name == "float64":
            said = "float64 values within the kernels' error bounds (docs/exactness.md)"
            return Certificate("error bound", *counts, said)
        if not self.checked:
            said = f"{name} values not certified (docs/exactness.md lists the paths covered)"
            return Certificate("not certified", *counts, said)
        count = f"{self.recomputed} recomputed" if self.recomputed else "0 undecided"
        if total is not None and self.checked < total:
            said = f"{self.checked} of {total} values certified as rounded to {name}: {count}"
            return Certificate("partly certified", *counts, said)
        return Certificate(
            "correctly rounded", *counts, f"every value correctly rounded to {name}: {count}"
        )


#: The tally every kernel adds to (reset by :func:`counting`).
TALLY = Tally()


@contextmanager
def counting() -> Iterator[Tally]:
    """Reset :data:`TALLY`, yield it; the writer reads it after the table is written."""
    TALLY.reset()
    yield TALLY
