"""YaRN's mscale and mscale_all_dim must give cos/sin a factor > 0, or they are refused by name.

transformers' ``_compute_yarn_parameters`` scales cos/sin by ``get_mscale(f, mscale) /
get_mscale(f, mscale_all_dim)``, ``get_mscale(f, m) = 0.1·m·ln f + 1`` (f > 1). At f = 4 the
denominator is 0 for mscale_all_dim = -10/ln 4 = -7.2135: a cache scaled by ±10^16, or, past
it, by a negative number, was written with status 0.
"""

from __future__ import annotations

import math

import pytest

from pecli.core.errors import ParameterError
from pecli.core.rope import RopeSpec, check_spec, rope_frequencies


def _spec(mscale: float, mscale_all_dim: float) -> RopeSpec:
    return RopeSpec(
        rope_type="yarn",
        theta=10000.0,
        head_dim=8,
        factor=4.0,
        original_max_position_embeddings=4096,
        mscale=mscale,
        mscale_all_dim=mscale_all_dim,
    )


def test_a_factor_above_0_is_kept_as_transformers_computes_it():
    factor = rope_frequencies(check_spec(_spec(1.0, -7.2))).attention_factor
    expected = (0.1 * math.log(4) + 1) / (0.1 * -7.2 * math.log(4) + 1)
    assert factor == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("mscale", "mscale_all_dim", "named"),
    [
        (1.0, -10 / math.log(4), "mscale_all_dim"),
        (1.0, -100.0, "mscale_all_dim"),
        (-8.0, 1.0, "mscale"),
    ],
)
def test_a_get_mscale_at_or_below_0_is_refused(mscale, mscale_all_dim, named):
    with pytest.raises(ParameterError) as caught:
        check_spec(_spec(mscale, mscale_all_dim))
    assert caught.value.parameter == named
    assert "ln(factor) + 1 > 0" in str(caught.value)


def test_the_command_refuses_it_before_writing(run_cli, tmp_path):
    out = tmp_path / "c.npy"
    args = ["rope", "cache", "--rope-type", "yarn", "--factor", "4", "--head-dim", "8"]
    args += ["--original-max-position-embeddings", "4096", "--n", "2", "-o", str(out)]
    result = run_cli(*args, "--mscale", "1", "--mscale-all-dim", "-100")
    assert result.exit_code == 2 and "'--mscale-all-dim'" in result.stderr
    assert not out.exists()
