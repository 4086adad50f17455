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
