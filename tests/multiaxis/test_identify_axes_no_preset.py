"""``identify_axes`` on a cache no preset is as wide as, without ids: the refusal's numbers.

Half-split cos and sin of 3 pairs over 5 rows: 6 channels wide (2 × 3 pairs), 5 rows. No
multi-axis preset rotates 6 channels, and no ids were given to say which tokens they are.
"""

from __future__ import annotations

import numpy as np
import pytest

from pecli.analysis.multiaxis.identify import cache_pairs, identify_axes
from pecli.core.errors import ParameterError


def test_a_six_channel_cache_without_ids_fits_no_preset_and_says_width_and_rows():
    angle = np.arange(5.0)[:, None] * np.array([1.0, 0.1, 0.01])
    halves = np.concatenate([angle, angle], axis=1)
    cache = cache_pairs({"cos": np.cos(halves), "sin": np.sin(halves)})
    with pytest.raises(ParameterError) as caught:
        identify_axes(cache, preset=None, head_dim=None, ids=None, grid=None, text=0)
    assert caught.value.parameter == "file"
    assert caught.value.rule == (
        "fits no preset of width 6 without ids (5 rows): give the tokens' ids with `grid` "
        "(and `text`), `tokens` or `ids`"
    )
