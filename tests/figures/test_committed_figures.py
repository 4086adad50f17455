"""The committed figures are what ``make figures`` builds: rebuilt here, compared byte for byte.

The Makefile's ``figures`` target runs these commands with the matplotlib pinned in
constraints.txt; pecli promises byte-reproducible figure files (docs/figures.md), so the
same commands must give the same bytes.
"""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import pytest

ROOT = Path(__file__).resolve().parent.parent.parent

#: The commands of the Makefile's ``figures`` target, without the output option.
FIGURES = {
    "waves": ["plot-waves"],
    "heatmap": ["heatmap", "--d", "128", "--n", "100"],
    "fourier": ["plot-fourier", "--k", "3"],
    "similarity": ["plot-similarity", "--base", "100", "--base", "10000"],
    "grid": ["plot-grid", "14", "14", "--d", "64"],
    "patch-similarity": ["plot-grid", "14", "14", "--d", "768", "--similarity"],
    "axes-wan": ["rope", "plot-axes", "--preset", "wan"],
    "axes-qwen3-vl": ["rope", "plot-axes", "--preset", "qwen3-vl"],
    "alibi": ["plot-alibi", "--heads", "12", "--compare", "next-power-of-two"],
    "t5-buckets": ["plot-t5-buckets"],
}


def makefile_commands() -> list[str]:
    """Each figure file's command, from the Makefile's rules ``A B: … \\n\\t… -o $@``."""
    text = (ROOT / "Makefile").read_text()
    rules = re.findall(
        r"^(figures/\S+) (figures/\S+):.*\n\t\$\(BIN\)/pecli (.+) -o \$@$", text, re.M
    )
    return [f"{command} -o {target}" for *targets, command in rules for target in targets]


def test_the_makefile_builds_exactly_these_figures():
    expected = [
        f"{' '.join(args)} -o figures/{name}.{suffix}"
        for name, args in FIGURES.items()
        for suffix in ("png", "svg")
    ]
    assert makefile_commands() == expected
    assert sorted(p.name for p in (ROOT / "figures").iterdir()) == sorted(
        f"{name}.{suffix}" for name in FIGURES for suffix in ("png", "svg")
    )


def pinned(package: str) -> str:
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.lower().startswith(f"{package.lower()}=="):
            return line.split("==", 1)[1].strip()
    raise LookupError(package)


@pytest.mark.parametrize("suffix", ["png", "svg"])
@pytest.mark.parametrize("name", list(FIGURES))
def test_committed_figure_is_rebuilt_byte_for_byte(run_cli, tmp_path, name, suffix):
    built = tmp_path / f"{name}.{suffix}"
    with matplotlib.rc_context():
        matplotlib.rcdefaults()  # matplotlib's own defaults, whatever earlier tests set
        result = run_cli(*FIGURES[name], "-o", str(built))
    assert result.exit_code == 0, result.output
    committed = (ROOT / "figures" / f"{name}.{suffix}").read_bytes()
    versions = f"matplotlib {matplotlib.__version__}, pinned {pinned('matplotlib')}"
    assert built.read_bytes() == committed, f"figures/{name}.{suffix} differs ({versions})"
