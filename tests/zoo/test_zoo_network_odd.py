"""An odd ``d`` in the table a diffusion network's ``linear_1`` receives ends in a zero column.

diffusers' ``get_timestep_embedding`` builds ``half = d // 2`` frequencies, concatenates
``[cos | sin]`` and, for an odd ``embedding_dim``, pads one zero column on the right
(``torch.nn.functional.pad(emb, (0, 1, 0, 0))``). At d = 3 the only frequency is
``exp(-ln(C)·0 / 1) = 1``, so a row is ``[cos t, sin t, 0]`` with t cast to float32 and each
value rounded once to float32 — numbers NumPy gives here in float64, then rounds.
"""

from __future__ import annotations

import numpy as np

from pecli.core.zoo.timesteps import network_table


def test_odd_d_pads_one_zero_column_after_cos_and_sin():
    t = np.array([0.0, 300.0, 999.0])
    table = network_table(t, "flux", d=3, base=1e4, dtype="float32")
    wide = t.astype(np.float32).astype(np.float64)
    expected = np.stack(
        [np.cos(wide).astype(np.float32), np.sin(wide).astype(np.float32), np.zeros(3)], axis=1
    )
    assert table.shape == (3, 3)
    np.testing.assert_array_equal(table, expected.astype(np.float64))
