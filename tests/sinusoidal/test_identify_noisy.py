"""identify on a table a little off every base's exact values: the base stays the table's.

A float64 table made at C = 7321 (d 16) with Gaussian noise of 10^-10 added: no base rebuilds
it exactly, so identify keeps the shortest base within the fit's own error, else the fitted
one. Shorter bases such as 7000 are far outside that error (their angles drift by
ln(7321/7000)·p radians), so the reading must still be C = 7321: the paper schedule's C, or
tensor2tensor's base C^((h−1)/h) = 7321^(7/8) for h = 8 pairs (the same frequencies).
"""

from __future__ import annotations

import numpy as np

from pecli import encoding_table
from pecli.analysis.sinusoidal.identify import identify_table


def test_a_slightly_noisy_table_keeps_a_base_equivalent_to_its_own():
    table = np.asarray(encoding_table(d=16, n=40, base=7321, dtype="float64"))
    noisy = table + 1e-10 * np.random.default_rng(0).standard_normal(table.shape)
    found = identify_table(noisy)
    assert found.schedule in ("paper", "tensor2tensor")
    paper_c = found.base if found.schedule == "paper" else found.base ** (8 / 7)
    assert abs(paper_c / 7321 - 1) < 1e-8
    assert found.equivalent == "paper schedule with C = 7321" or found.base == 7321.0
