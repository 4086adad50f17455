"""Each family of variants is one registry of records; its docs tables and CLI choices agree.

The registries: the convention presets (``PRESETS``, ``ALIASES``), the ALiBi slope series and
bias conventions (``ALIBI_SERIES``, ``ALIBI_CONVENTIONS``) and the diffusion timestep models
(``TIMESTEP_MODELS``). A record added, renamed or changed without its docs row fails here; the
command line's choices are built from the records, and checked to be them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pecli.core.sinusoidal.conventions import ALIASES, PRESETS
from pecli.core.zoo.alibi import ALIBI_CONVENTIONS, ALIBI_SERIES, CONVENTIONS
from pecli.core.zoo.timesteps import TIMESTEP_MODELS

DOCS = Path(__file__).resolve().parent.parent.parent / "docs"
README = DOCS.parent / "README.md"


def table_after(path: Path, heading: str) -> list[list[str]]:
    """The rows of the first table after ``heading`` (cells stripped, header and rule dropped).

    >>> rows = table_after(DOCS / "zoo.md", "### Bias tensors")
    >>> rows[0][:3]
    ['`causal`', '`−m·(i−j)` for `j ≤ i`, `−inf` above', '`(h, q, k)`']
    """
    text = path.read_text(encoding="utf-8")
    start = text.index(heading + "\n")
    lines = text[start:].splitlines()
    first = next(k for k, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[first + 2 :]:
        if not line.startswith("|"):
            break
        cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]  # `\|` inside a cell is no separator
        rows.append([cell.strip() for cell in cells])
    return rows


def names_in(cell: str) -> list[str]:
    """The names in backticks in a cell: ``"`a`, `b` or `c`"`` → ``["a", "b", "c"]``."""
    return re.findall(r"`([^`]+)`", cell)


def option_row(page: str, section: str, option: str) -> list[str]:
    """The row of ``option`` in the options table of ``section`` of a page."""
    rows = table_after(DOCS / page, section)
    return next(row for row in rows if names_in(row[0])[:1] == [option])


# --- the convention presets -------------------------------------------------------------------


def test_the_presets_table_of_conventions_md_is_presets():
    rows = table_after(DOCS / "conventions.md", "## The presets")
    assert sorted(names_in(row[0])[0] for row in rows) == sorted(PRESETS)  # grouped by family
    for row in rows:
        preset = PRESETS[names_in(row[0])[0]]
        schedule, layout, start, padding, odd_d = row[1:6]
        assert schedule.split()[0] == preset.schedule, row
        assert (layout, start, odd_d) == (preset.layout, str(preset.start), preset.odd_d), row
        assert padding == ("none" if preset.padding_idx is None else f"row {preset.padding_idx}")


def test_the_aliases_of_conventions_md_are_aliases():
    text = (DOCS / "conventions.md").read_text(encoding="utf-8")
    paragraph = text[text.index("Aliases (the same table") :].split("\n\n")[0]
    said = {}
    for group in paragraph.split(";"):
        *aliases, preset = names_in(group)
        said |= dict.fromkeys(aliases, preset)
    assert said == ALIASES


def test_the_readme_lists_every_preset_and_alias():
    rows = table_after(README, "## Other libraries' conventions")
    assert sorted(names_in(row[0])[0] for row in rows) == sorted(PRESETS)
    text = README.read_text(encoding="utf-8")
    paragraph = text[text.index("Aliases: ") :].split("\n\n")[0]
    assert set(names_in(paragraph)) == set(ALIASES) | set(ALIASES.values())


def test_the_command_line_offers_the_presets_then_the_aliases():
    from pecli.cli.sinusoidal.options import ConventionName

    assert [name.value for name in ConventionName] == [*PRESETS, *ALIASES]


# --- ALiBi ------------------------------------------------------------------------------------


def test_the_bias_tensors_table_is_alibi_conventions():
    rows = table_after(DOCS / "zoo.md", "### Bias tensors")
    assert [names_in(row[0])[0] for row in rows] == list(ALIBI_CONVENTIONS)
    for row in rows:
        record = ALIBI_CONVENTIONS[names_in(row[0])[0]]
        assert row[2] == ("`(h, 1, k)`" if record.key_only else "`(h, q, k)`"), row
        assert ("bfloat16" in row[1]) == record.bfloat16, row
        assert ("−inf" in row[1]) == record.causal, row
        assert ("0 on the last key" in row[1]) == record.zero_at_last_key, row


def test_the_wrong_series_table_is_alibi_series():
    rows = table_after(DOCS / "zoo.md", "### Wrong series found in ports")
    assert [names_in(row[0])[0] for row in rows] == list(ALIBI_SERIES)
    assert [s.name for s in ALIBI_SERIES.values() if s.right] == [names_in(rows[0][0])[0]]


@pytest.mark.parametrize(
    ("section", "option", "table"),
    [
        ("## pecli alibi slopes", "--variant", "zoo.md#wrong-series-found-in-ports"),
        ("## pecli alibi bias", "--convention", "zoo.md#bias-tensors"),
        ("## pecli plot-alibi", "--convention", "zoo.md#bias-tensors"),
        ("## pecli timestep", "--model", "zoo.md#timestep-embeddings"),
        ("## pecli timestep", "VALUES", "zoo.md#timestep-embeddings"),
    ],
)
def test_cli_md_sends_the_choices_to_their_one_table(section, option, table):
    """cli.md lists no record: a name added to a registry goes in one docs table."""
    meaning = option_row("cli.md", section, option)[2]
    assert f"]({table})" in meaning, meaning
    named = set(names_in(meaning)) - {"press", "t", "σ > 0"}
    assert not named & (set(ALIBI_SERIES) | set(ALIBI_CONVENTIONS) | set(TIMESTEP_MODELS))


def test_the_alibi_options_offer_the_records():
    from pecli.cli.zoo.alibi import DESCRIPTIONS, BiasConvention, Variant

    assert [v.value for v in Variant] == list(ALIBI_SERIES)
    assert [c.value for c in BiasConvention] == list(ALIBI_CONVENTIONS)
    assert set(DESCRIPTIONS) == set(ALIBI_SERIES) | set(ALIBI_CONVENTIONS)


def test_the_reports_describe_each_record_by_its_summary():
    from pecli.cli.zoo.alibi import DESCRIPTIONS

    for record in [*ALIBI_SERIES.values(), *ALIBI_CONVENTIONS.values()]:
        assert DESCRIPTIONS[record.name] == record.summary
        assert record.summary.startswith("WRONG") == (record in _wrong_series())


def _wrong_series():
    return [s for s in ALIBI_SERIES.values() if not s.right]


def test_the_variant_help_lists_the_series_records(run_cli):
    for command in (("alibi", "slopes"), ("alibi", "bias"), ("plot-alibi",)):
        text = "".join(run_cli(*command, "--help").stdout.split())  # wrapped at any hyphen
        right = [s for s in ALIBI_SERIES.values() if s.right]
        assert "".join(f"{right[0].name} ({right[0].aka})".split()) in text, command
        assert ",".join(s.name for s in _wrong_series()) in text, command


def test_help_lists_derive_from_the_records(run_cli):
    bias = " ".join(run_cli("alibi", "bias", "--help").stdout.split())
    every = ", ".join(CONVENTIONS[:-1]) + f" or {CONVENTIONS[-1]}."
    matrices = "/".join(c.name for c in ALIBI_CONVENTIONS.values() if not c.key_only)
    masked = "/".join(c.name for c in ALIBI_CONVENTIONS.values() if c.takes_mask)
    assert every in bias
    assert f"{matrices}: the last q positions" in bias and f"{masked}: padded keys" in bias


# --- diffusion timesteps ----------------------------------------------------------------------


def test_the_timestep_table_of_zoo_md_is_timestep_models():
    rows = table_after(DOCS / "zoo.md", "## Timestep embeddings")
    assert [names_in(row[0])[0] for row in rows] == list(TIMESTEP_MODELS)
    for row in rows:
        model = TIMESTEP_MODELS[names_in(row[0])[0]]
        named = names_in(row[1])[0]
        own = TIMESTEP_MODELS[named].convention if row[1].startswith("as ") else named
        assert own == model.convention, row
        assert ("σ" in row[2]) == model.takes_sigma, row


def test_the_timestep_options_offer_the_models(run_cli):
    from pecli.cli.zoo.timestep import Model

    assert [m.value for m in Model] == list(TIMESTEP_MODELS)
    shown = " ".join(run_cli("timestep", "--help").stdout.split())
    times = ", ".join(m.name for m in TIMESTEP_MODELS.values() if not m.takes_sigma)
    sigmas = ", ".join(m.name for m in TIMESTEP_MODELS.values() if m.takes_sigma)
    assert f"t ({times}) or σ ({sigmas}) values." in shown
