"""How many entries a writer's certificate checked and recomputed, and its one-line report.

The kernels add to :data:`TALLY` from any thread; a writer resets it with :func:`counting`
around the table it writes and reports :meth:`Tally.message` (stderr, safetensors metadata,
``--json``). Pure Python, no I/O.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

__all__ = ["TALLY", "Tally", "counting"]


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

        ``total``: the values of the table; a table whose values were not all checked (their
        rounding took a path without the certificate) says so instead. None: every value is
        a copy of a checked one or an exact zero (a grid's per-axis values, broadcast). A
        float64 table says what is claimed for it; a complex table speaks of its parts.
        """
        name = np.dtype(dtype).name  # type: ignore[call-overload]
        name = {"complex64": "float32", "complex128": "float64"}.get(name, name)  # per part
        if name == "float64":
            return "float64 values within the kernels' error bounds (docs/exactness.md)"
        if not self.checked:
            return f"{name} values not certified (docs/exactness.md lists the paths covered)"
        count = f"{self.recomputed} recomputed" if self.recomputed else "0 undecided"
        if total is not None and self.checked < total:
            return f"{self.checked} of {total} values certified as rounded to {name}: {count}"
        return f"every value correctly rounded to {name}: {count}"

    def as_dict(self, dtype: object, total: int | None) -> dict[str, object]:
        """The counts and the message, for ``--json`` and safetensors metadata."""
        return {
            "checked": self.checked,
            "recomputed": self.recomputed,
            "message": self.message(dtype, total),
        }


#: The tally every kernel adds to (reset by :func:`counting`).
TALLY = Tally()


@contextmanager
def counting() -> Iterator[Tally]:
    """Reset :data:`TALLY`, yield it; the writer reads it after the table is written."""
    TALLY.reset()
    yield TALLY
