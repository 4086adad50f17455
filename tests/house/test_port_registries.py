"""The registries of multi-axis presets, M-RoPE presets, engines and rope modes agree with docs.

Each family is one table of records (docs/architecture.md): the docs tables are checked against
the records here, so a preset, an engine or a mode added, renamed or changed without its docs
row fails; the command line's choices and help lists derive from the same records
(tests/multiaxis/test_cli_multiaxis.py::test_the_preset_and_model_lists_are_the_records).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pecli.core.multiaxis.presets import AXIS_PRESETS
from pecli.core.multiaxis.resolve import PRESETS, TEXT_PRESETS
from pecli.core.ports.arithmetic import ARITHMETICS
from pecli.core.ports.engines import ENGINES
from pecli.core.ports.ggml_cache import GGML_TYPES
from pecli.core.ports.gguf_modes import ARCH_MODES, MODES
from pecli.core.rope.framework import FRAMEWORK_TYPES

DOCS = Path(__file__).resolve().parent.parent.parent / "docs"


def rows_after(page: str, heading: str) -> list[list[str]]:
    """The cells of the first Markdown table after ``heading`` on ``page`` (header dropped)."""
    text = (DOCS / page).read_text(encoding="utf-8").split(heading + "\n", 1)[1]
    lines = text.splitlines()
    first = next(k for k, line in enumerate(lines) if line.startswith("|"))
    table = []
    for line in lines[first + 2 :]:
        if not line.startswith("|"):
            break
        table.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
    return table


def quoted(cell: str) -> list[str]:
    """The names in backquotes in a cell."""
    return re.findall(r"`([^`]+)`", cell)


def option_cell(page: str, section: str, option: str) -> str:
    """The meaning of ``option`` in the options table of ``section``."""
    row = next(r for r in rows_after(page, section) if quoted(r[0])[:1] == [option])
    return row[2]


# --- multi-axis and M-RoPE presets ---------------------------------------------------------


def test_the_presets_table_of_multiaxis_md_is_the_records():
    rows = rows_after("multiaxis.md", "## Presets")
    assert [quoted(row[0])[0] for row in rows] == list(AXIS_PRESETS)
    for row in rows:
        preset = AXIS_PRESETS[quoted(row[0])[0]]
        assert row[5] == preset.dtype, preset.name  # the dtype column is the model's


def test_the_m_rope_table_of_multiaxis_md_is_the_records():
    rows = rows_after("multiaxis.md", "## Qwen-VL's M-RoPE")
    assert [quoted(row[0])[0] for row in rows] == list(TEXT_PRESETS)  # + GLM, ERNIE, Omni
    for row in rows:
        preset = TEXT_PRESETS[quoted(row[0])[0]]
        assert row[1] == ", ".join(map(str, preset.section)), preset.name
        assert row[3] == f"{preset.theta:.0e}".replace("e+0", "e") + f", {preset.head_dim}"


def test_cli_md_lists_every_preset_and_model_in_the_records_order():
    presets = option_cell("cli.md", "## pecli rope axes", "--preset")
    assert quoted(presets)[: len(PRESETS)] == list(PRESETS)
    models = option_cell("cli.md", "## pecli rope mrope-ids", "--model")
    assert quoted(models) == list(TEXT_PRESETS)  # mrope-ids takes every text preset


# --- engines, rope modes, arithmetics -------------------------------------------------------


def test_the_engines_table_of_porting_md_is_the_records():
    rows = rows_after("porting.md", "## The engines' dialects")
    assert len(rows) == len(ENGINES)
    for row, engine in zip(rows, ENGINES.values(), strict=True):
        assert row == [f"{engine.name} {engine.version}".strip(), engine.source, engine.differs]


def test_the_rope_modes_porting_md_names_are_the_records():
    text = (DOCS / "porting.md").read_text(encoding="utf-8")
    said = text.split("* **the rope mode**", 1)[1].split("A config with", 1)[0]
    named = re.findall(r"\b([A-Z]+) (-?\d+)\b", " ".join(said.split()))
    assert [(name, int(value)) for name, value in named] == [
        (m.name, m.value) for m in MODES.values()
    ]


@pytest.mark.parametrize("mode", list(MODES.values()), ids=lambda m: m.name)
def test_each_architecture_is_in_one_mode(mode):
    assert all(ARCH_MODES[arch] == mode.name for arch in mode.architectures)
    assert len(ARCH_MODES) == sum(len(m.architectures) for m in MODES.values())  # no twice


def test_cli_md_arithmetic_row_is_the_records():
    cell = option_cell("cli.md", "## pecli rope cache", "--arithmetic")
    assert [name for name in quoted(cell) if name in ARITHMETICS] == list(ARITHMETICS)
    llama = cell.split("`llama.cpp`", 1)[1]  # "for the same types" as transformers' steps
    assert "for the same types" in llama and GGML_TYPES == FRAMEWORK_TYPES
