"""pecli.io.targets' output checks against their documented rules, in this process.

Oracles: the documented rules: a plain table may go to stderr, only a JSON report claims
it (reports.check_json_output); a bad suffix offers ``--format`` only where there is one,
and a plot's ``--data`` has none.
"""

from __future__ import annotations

import pytest

from pecli.core.errors import ParameterError
from pecli.io.targets import PlotOutputs, TableTarget


def test_a_table_target_is_plain_unless_asked_so_stderr_may_take_the_table():
    """as_json defaults to False: /dev/stderr is a fine output; with as_json it is refused."""
    assert TableTarget("float64", "/dev/stderr", None).check() == "csv"
    with pytest.raises(ParameterError, match="stderr"):
        TableTarget("float64", "/dev/stderr", None, as_json=True).check()


def test_a_data_file_with_another_suffix_is_not_offered_a_format_option(tmp_path):
    """--data has no --format beside it: the rule names the suffixes and nothing else."""
    figure, data = str(tmp_path / "f.png"), str(tmp_path / "d.txt")
    with pytest.raises(ParameterError) as refused:
        PlotOutputs(figure, "f.png", data, True)
    assert "must end in .csv, .npy" in str(refused.value)
    assert "format" not in str(refused.value)
    assert list(tmp_path.iterdir()) == []
