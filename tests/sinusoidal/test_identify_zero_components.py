"""identify's table names the components that are all zero, or says "-" when none is.

fairseq's ``SinusoidalPositionalEmbedding.get_embedding`` pads an odd ``embedding_dim`` with a
zero column after its sin and cos halves: at d = 5, component 5 (1-based) is 0 in every row;
at d = 4 no component is.
"""

from __future__ import annotations

import re

import pytest


@pytest.mark.parametrize(("d", "zero"), [(5, "5"), (4, "-")])
def test_the_zero_components_row(run_cli, tmp_path, d, zero):
    table = tmp_path / "t.npy"
    made = run_cli(
        "compute", "--convention", "fairseq", "--d", str(d), "--n", "8", "-o", str(table), "-q"
    )
    assert made.exit_code == 0, made.output
    result = run_cli("identify", str(table))
    assert result.exit_code == 0, result.output
    assert re.search(rf"^zero components +{re.escape(zero)}$", result.stdout, re.M), result.stdout
