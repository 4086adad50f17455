"""The correct-rounding certificate (Ziv's strategy), pure NumPy and mpmath, arrays in and out.

A kernel computes each value in float64 with a proven error bound (docs/exactness.md). Its
rounding to the output dtype is *decided* when every number within the bound rounds to the
same output value; the few undecided entries are recomputed with mpmath and rounded
correctly. :mod:`.bounds` holds the bound record and the vectorised check, :mod:`.fallback`
the mpmath recomputation, :mod:`.tally` the counts a writer reports.

References
----------
.. [1] A. Ziv, "Fast evaluation of elementary mathematical functions with correctly rounded
   last bit", ACM Trans. Math. Software 17 (1991), 410-423.

"""

from .bounds import ErrorBound, round_certified, undecided
from .fallback import (
    correctly_rounded,
    power_exact,
    rounded_sum,
    sin_cos_exact,
    sin_cos_product_exact,
    sin_cos_sum_exact,
)
from .tally import TALLY, Certificate, Tally, counting

__all__ = [
    "TALLY",
    "Certificate",
    "ErrorBound",
    "Tally",
    "correctly_rounded",
    "counting",
    "power_exact",
    "round_certified",
    "rounded_sum",
    "sin_cos_exact",
    "sin_cos_product_exact",
    "sin_cos_sum_exact",
    "undecided",
]
