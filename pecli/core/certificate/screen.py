"""A cheap screen for the float32 certificate: a superset of the undecided, from the bits.

Rounding a float64 ``v`` to float32 keeps the top 23 of its 52 significand bits; the 29
dropped bits ``L`` put ``v`` exactly ``|L - 2^28|`` float64 ulps from the float32 halfway
point of its binade. Under an absolute bound ``e``, and for ``|v| >= 2^-SMALL`` (one ulp
is then at least ``2^(-SMALL-52)``), a halfway point within ``2e`` needs
``|L - 2^28| < 2^t`` with ``2^t > 2e·2^(SMALL+52)``: one integer add, one mask and one
equality on the float64 words decide it. Smaller values are flagged from the rounded
float32 output (``|r| <= 2^-SMALL``). Flags are a superset of what the exact test
(:func:`.bounds.ends_differ`) leaves undecided; that test then runs on the flags only.
Pure NumPy, in place on caller-owned buffers (docs/exactness.md, "Cost").
"""

from __future__ import annotations

import numpy as np

from .bounds import ends_differ

__all__ = ["BitScreen"]


class BitScreen:
    """Screen of float64 -> float32 roundings under one absolute bound ``e``.

    The window's edge cases: a value in the binade's first ``2^26`` ulps whose nearest
    halfway point lies in the binade below is ``>= 2^27`` ulps from it, and the window is
    at most ``2^26`` wide (or the screen flags everything); the add's carry out of the 29
    bits happens only within ``2^t`` ulps below a float32 number, ``2^28 - 2^t`` ulps from
    any halfway point. Float32 subnormals lie below ``2^-SMALL``: flagged.

    Parameters
    ----------
    e : float
        The absolute bound (>= 0), already widened for the float64 rounding of ``v ± e``.

    Examples
    --------
    >>> screen = BitScreen(2.0**-48)
    >>> tie = 0.75 + 2.0**-25  # halfway between two float32 numbers
    >>> screen.undecided(np.array([tie, 0.75, 1e-9]))
    array([0, 2])

    """

    SMALL = 10

    def __init__(self, e: float) -> None:
        self.e = float(e)
        t = max(1, int(np.ceil(np.log2(max(2 * self.e, 2.0**-1000)) + self.SMALL + 52)) + 1)
        self.everything = t > 25  # a bound too wide to screen: every entry goes to the test
        t = min(t, 25)
        self.add = np.uint64(1 << t)
        self.mask = np.uint64((1 << 29) - (1 << (t + 1)))
        self.small = np.float32(2.0**-self.SMALL)

    def flags(self, wide: np.ndarray, rounded: np.ndarray, work: tuple[np.ndarray, ...]) -> bool:
        """Whether any entry is flagged; the flags are left in ``work[2]``.

        ``wide``: float64 values; ``rounded``: the same rounded to float32; ``work``:
        buffers of their shape, (uint64, float32, bool, bool).
        """
        bits, size, flagged, small = work
        if self.everything:
            flagged[...] = True
            return True
        np.add(wide.view(np.uint64), self.add, out=bits)
        np.bitwise_and(bits, self.mask, out=bits)
        np.equal(bits, np.uint64(1 << 28), out=flagged)
        np.less_equal(np.abs(rounded, out=size), self.small, out=small)
        if not small.any():
            return bool(flagged.any())
        np.logical_or(flagged, small, out=flagged)
        return True

    def undecided(self, flat: np.ndarray) -> np.ndarray:
        """Flat indices the exact test leaves undecided, found through the screen."""
        flat = np.ascontiguousarray(flat, dtype=np.float64).reshape(-1)
        work = (np.empty(flat.shape, np.uint64), np.empty(flat.shape, np.float32))
        flags = np.empty(flat.shape, bool)
        self.flags(flat, flat.astype(np.float32), (*work, flags, np.empty(flat.shape, bool)))
        where = np.flatnonzero(flags)
        kept: np.ndarray = where[ends_differ(flat[where], self.e, np.dtype(np.float32))]
        return kept
