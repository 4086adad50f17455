"""xPos refuses a table in which any row's scale rounds to 0, not only the farthest one.

ζ_0 = 2/7 at d = 2 and γ = 1 (``--scale-base 1``): a query row at position p is scaled by
(2/7)^p, which float32 keeps above 0 while it is at least half the smallest subnormal, 2^-150
(exact rationals: p = 82 keeps one, p = 83 does not). torchscale's centre for L rows after
``offset`` tokens is ceil((L + offset)/2), so 2 rows after 165 tokens are positions 81 and 82,
after 166 tokens 82 and 83: the second table holds one scale that rounds to 0.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest


@pytest.mark.parametrize(("offset", "positions"), [(165, (81, 82)), (166, (82, 83))])
def test_one_row_rounding_to_0_refuses_the_table(run_cli, tmp_path, offset, positions):
    exact = [Fraction(2, 7) ** p for p in positions]
    out = tmp_path / "x.npy"
    args = ("xpos", "--head-dim", "2", "--n", "2", "--scale-base", "1", "--offset", str(offset))
    result = run_cli(*args, "-o", str(out))
    if min(exact) > Fraction(1, 2**150):
        assert result.exit_code == 0, result.output
        table = np.load(out)
        assert table[:, 0].tolist() == [float(np.float32(float(v))) for v in exact]
        return
    assert result.exit_code == 2, result.output
    assert "'--offset'" in result.stderr and "above 0 in float32" in result.stderr
    assert not out.exists()


#: Half of each dtype's smallest subnormal: a positive value at or below it rounds to 0.
HALF_TINIEST = {"float16": Fraction(1, 2**25), "float32": Fraction(1, 2**150)}
HALF_TINIEST["float64"] = Fraction(1, 2**1075)


@pytest.mark.parametrize(
    ("dtype", "position"),
    # one row after 2p + 1 tokens sits at p (torchscale); (2/7)^p < 2^-25 from p = 14,
    # < 2^-150 from p = 83, < 2^-1075 from p = 595 (p·log2 3.5 against the exponent)
    [("float16", 14), ("float16", 83), ("float16", 595), ("float32", 83), ("float32", 595)],
)
def test_an_underflow_offers_only_a_wider_dtype_that_keeps_the_scale(run_cli, dtype, position):
    """The refusal offers a wider dtype only if (2/7)^p stays above 0 in it (exact rationals)."""
    exact = Fraction(2, 7) ** position
    assert exact < HALF_TINIEST[dtype]
    size = np.dtype(dtype).itemsize
    wider = [n for n in ("float32", "float64") if np.dtype(n).itemsize > size]
    wider = [n for n in wider if exact > HALF_TINIEST[n]]
    offer = f", or --dtype {'/'.join(wider)})" if wider else " or a larger --scale-base)"
    args = ("--head-dim", "2", "--n", "1", "--scale-base", "1", "--offset", str(2 * position + 1))
    result = run_cli("xpos", *args, "--dtype", dtype, "-o", "-")
    assert result.exit_code == 2 and f"above 0 in {dtype}" in result.stderr, result.stderr
    assert offer + " (got" in result.stderr, result.stderr
