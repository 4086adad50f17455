"""``pecli alibi identify`` of a large bias: its bfloat16 test reads a few rows at a time.

The paper's causal bias masked with ``-inf`` (the first row ``0, -inf, …`` holds only bfloat16
numbers) was tested for bfloat16 a whole head at a time in float64 with its finite values
copied: an 8192 × 8192 float32 head (268 MB) took 1.5 GB, and ``ulimit -v 1200000`` gave
"out of memory", while the same bias masked with -1e9 read in 300 MB. The bias here is built
with NumPy from ``-m·(i - j)``, ``m = 1/2`` (the paper's first slope of 8 heads).
"""

from __future__ import annotations

import numpy as np
from traced import traced_peak


def test_a_causal_bias_masked_with_inf_is_read_in_less_than_its_own_size():
    from pecli.analysis.zoo.alibi import identify_alibi_bias

    i, j = np.arange(1024)[:, None], np.arange(1024)[None, :]
    bias = np.where(j <= i, -0.5 * (i - j), -np.inf)[None].astype(np.float32)  # 4 MB
    fit, peak = traced_peak(lambda: identify_alibi_bias(bias))
    assert (fit.convention, fit.matched, fit.slopes.tolist()) == ("causal", True, [0.5])
    assert peak < bias.nbytes, peak  # it was 4.6 times the head
