"""The documentation in docs/ and the README against the code they describe.

* every ``docs/<page>.md`` and ``docs/<page>.md#<anchor>`` cited in the code, the tests, the
  README or the docs exists (anchors are GitHub's heading slugs);
* nothing points at the team's private material (the product spec or its shared folder);
* the README's "Layout of the code" table names every package folder and top-level module,
  and only paths that exist (docs/architecture.md names every module: test_architecture_doc);
* every command and option has help text, and docs/cli.md has a section per command naming
  exactly the options the command takes.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest
import typer

ROOT = Path(__file__).resolve().parent.parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
THIS = Path(__file__).resolve()

CITATION = re.compile(r"docs/([a-z_-]+\.md)(?:#([a-z0-9-]+))?")
RELATIVE_LINK = re.compile(r"\]\(([a-z_-]+\.md)(?:#([a-z0-9-]+))?\)")  # links between docs pages
FENCE = re.compile(r"^(```|~~~)")


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _sources() -> list[Path]:
    """Files whose citations of docs/ must resolve."""
    files = sorted((ROOT / "pecli").rglob("*.py")) + sorted((ROOT / "tests").rglob("*.py"))
    return [*files, README, *sorted(DOCS.glob("*.md"))]


# --- 1. citations of docs/ ---------------------------------------------------------------


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower()
    kept = [
        c
        for c in text
        if c in " -_" or unicodedata.category(c)[0] in "LN"  # letters, digits (any script)
    ]
    return "".join(kept).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of a markdown page's headings (outside code fences), with -1, -2 for repeats."""
    found: set[str] = set()
    counts: dict[str, int] = {}
    in_fence = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        match = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if in_fence or not match:
            continue
        base = slug(match[1])
        n = counts.get(base, 0)
        counts[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def _citations() -> list[tuple[str, str, str | None]]:
    """(where, page, anchor) for every citation of a docs page."""
    cited = []
    for source in _sources():
        text = source.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), start=1):
            matches = list(CITATION.finditer(line))
            if source.parent == DOCS:
                matches += list(RELATIVE_LINK.finditer(line))
            for match in matches:
                cited.append((f"{_rel(source)}:{number}", match[1], match[2]))
    return cited


CITATIONS = _citations()


def test_code_cites_the_docs():
    # the test below must have something to check: the code does cite pages and anchors
    assert len(CITATIONS) > 20
    assert any(anchor for _, _, anchor in CITATIONS)


def test_cited_page_and_anchor_exist():
    """Every citation at once (one test, not one per citation: ~340 of them), each named."""
    wrong = []
    for where, page, anchor in CITATIONS:
        target = DOCS / page
        if not target.is_file():
            wrong.append(f"{where} cites docs/{page}, which does not exist")
        elif anchor and anchor not in anchors(target):
            wrong.append(f"{where} cites docs/{page}#{anchor}: no heading of it has that anchor")
    assert CITATIONS and not wrong, "\n".join(wrong)


def test_slug_is_githubs():
    assert slug("Numerics") == "numerics"
    assert slug("pecli plot-waves") == "pecli-plot-waves"
    assert slug("Adding the encoding to data") == "adding-the-encoding-to-data"
    assert slug("Sine curves (`plot-waves`)") == "sine-curves-plot-waves"


# --- 2. no private material ---------------------------------------------------------------

# built from pieces, so that this file does not match its own patterns
PRIVATE = [
    re.compile("SPEC" + r"\s*§"),
    re.compile("SPEC" + r"\.md"),
    re.compile(r"\.\./" + "shared"),
    re.compile("/work/" + "shared"),
]


def _public_files() -> list[Path]:
    files = [p for p in (ROOT / "pecli").rglob("*") if p.is_file() and p.suffix != ".pyc"]
    files += [p for p in (ROOT / "tests").rglob("*") if p.is_file() and p.suffix != ".pyc"]
    return [*sorted(files), README, *sorted(DOCS.glob("*"))]


def test_no_reference_to_private_material():
    """Every public file at once (one test, not one per file: ~2,400 of them), each named."""
    found = []
    for path in _public_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [f"{_rel(path)}: {m[0]!r}" for pattern in PRIVATE if (m := pattern.search(text))]
    assert not found, "these files refer to private material:\n" + "\n".join(found)


# --- 3. the README's layout table -----------------------------------------------------------


def layout_table_paths(readme: str) -> list[str]:
    """The code-formatted paths in the first column of README's "Layout of the code" table."""
    section = readme.split("## Layout of the code", 1)[1].split("\n## ", 1)[0]
    paths = []
    for line in section.splitlines():
        if not line.startswith("|") or line.startswith("|---"):
            continue
        first_cell = line.split("|")[1]
        paths += re.findall(r"`([^`]+)`", first_cell)
    return paths


TABLE = layout_table_paths(README.read_text(encoding="utf-8"))
MODULES = sorted(_rel(p) for p in (ROOT / "pecli").rglob("*.py"))
#: What the table must name: each package folder (``pecli/core/rope/``) and each module of
#: ``pecli/`` itself; docs/architecture.md names every module
#: (tests/house/test_architecture_doc.py).
PLACES = sorted(
    {m.rsplit("/", 1)[0] + "/" for m in MODULES if m.count("/") > 1}
    | {m for m in MODULES if m.count("/") == 1}
)


def test_layout_table_found():
    assert any(p.startswith("pecli/") for p in TABLE), "no README table under 'Layout of the code'"


@pytest.mark.parametrize("place", PLACES)
def test_every_package_is_in_the_layout_table(place):
    assert place in TABLE, f"{place} is not listed in README.md's 'Layout of the code' table"


@pytest.mark.parametrize("entry", TABLE)
def test_every_layout_table_path_exists(entry):
    assert (ROOT / entry).exists(), f"README.md's layout table lists {entry}, which is missing"
    if entry.startswith("pecli/") and entry.endswith("/"):
        assert (ROOT / entry / "__init__.py").exists(), f"{entry} in README.md is not a package"


def test_layout_places_are_folders_and_top_level_modules():
    assert {
        "pecli/_entry.py",
        "pecli/core/",
        "pecli/core/multiaxis/",
        "pecli/io/reading/",
    } <= set(PLACES)
    assert "pecli/core/rope/registry.py" not in PLACES and "pecli/" not in PLACES


# --- 4. help texts and docs/cli.md ------------------------------------------------------------


def _cli():
    import pecli.cli

    group = typer.main.get_command(pecli.cli.app)
    ctx = typer.Context(group)
    commands = {name: group.get_command(ctx, name) for name in group.list_commands(ctx)}
    for name, command in list(commands.items()):  # a sub-group (pecli rope): "rope freqs", …
        if hasattr(command, "list_commands"):
            sub = typer.Context(command)
            commands |= {
                f"{name} {n}": command.get_command(sub, n) for n in command.list_commands(sub)
            }
    return group, commands


GROUP, COMMANDS = _cli()
#: Options every command has, and the group's own (--version, the completion options).
GLOBAL = {"--help", "-h"} | {name for param in GROUP.params for name in param.opts}


def _names(param) -> list[str]:
    """How docs name a parameter: its option strings, or an argument's metavar (``FILE``)."""
    if param.param_type_name == "argument":
        return [param.name.upper()]
    return [*param.opts, *param.secondary_opts]


PARAMS = [(command, param) for command, cmd in COMMANDS.items() for param in cmd.params]


def test_commands_found():
    assert {"compute", "add", "identify", "wavelengths"} <= set(COMMANDS)


#: The figure options every drawing command takes from ``@plot_options`` (declared once).
PLOT_BLOCK = {"-o", "--data", "--dpi", "--size", "--title", "--quiet"}
#: Commands whose figure is an option of a printed report, not their output: no --data.
FIGURE_AS_OPTION = {"precision": "-o draws the report's error; the report itself is printed"}
DRAWING = [
    c
    for c, cmd in COMMANDS.items()
    if any("--dpi" in p.opts for p in cmd.params) and c not in FIGURE_AS_OPTION
]


def test_drawing_commands_found():
    assert {"heatmap", "plot-waves", "plot-grid", "plot-alibi", "rope plot-axes"} <= set(DRAWING)
    assert set(FIGURE_AS_OPTION) <= set(COMMANDS)


@pytest.mark.parametrize("command", DRAWING)
def test_every_drawing_command_has_the_whole_plot_block(command):
    opts = {o for p in COMMANDS[command].params for o in p.opts}
    assert opts >= PLOT_BLOCK, f"pecli {command} lacks {sorted(PLOT_BLOCK - opts)}"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_command_has_help(command):
    cmd = COMMANDS[command]
    assert (cmd.help or "").strip(), f"pecli {command} has no help text (docstring)"
    assert (cmd.get_short_help_str() or "").strip(), f"pecli {command} has no short help"


def test_option_has_help():
    """Every option of every command at once (one test, not one per option), each named."""
    bare = [
        f"pecli {command} {'/'.join(_names(param))}"
        for command, param in PARAMS
        if not (getattr(param, "help", None) or "").strip()
    ]
    assert PARAMS and not bare, f"options without help text: {bare}"


def cli_sections(text: str) -> tuple[str, dict[str, str]]:
    """docs/cli.md split into the text before the command sections and ``{command: section}``."""
    heading = r"^## pecli ([a-z][a-z0-9-]*(?: [a-z][a-z0-9-]*)?)[ \t]*$"
    parts = re.split(heading, text, flags=re.MULTILINE)
    preamble, sections = parts[0], {}
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        sections[name] = body.split("\n## ", 1)[0]  # up to the next section of any kind
        preamble += "\n" + body.split("\n## ", 1)[1] if "\n## " in body else ""
    return preamble, sections


def _code(text: str) -> list[str]:
    """The inline code spans and the lines of fenced blocks of markdown text."""
    fence = r"^```[^\n]*\n(.*?)^```"
    fenced = re.findall(fence, text, flags=re.MULTILINE | re.DOTALL)
    rest = re.sub(fence, "", text, flags=re.MULTILINE | re.DOTALL)
    lines = []
    for block in fenced:  # a command shown with "No such option" is a mistake on purpose
        shown = block.splitlines()
        lines += [
            line
            for line, after in zip(shown, [*shown[1:], ""], strict=True)
            if "error: No such option" not in after
        ]
    return lines + re.findall(r"`([^`\n]+)`", rest)


def _pecli_words(fragment: str) -> str:
    """The part of a code fragment that pecli parses: a pecli command line up to a pipe or
    redirection, or a bare option (``-o``); '' for other tools' command lines (``head -n 3``)."""
    fragment = fragment.strip().removeprefix("$ ")
    if fragment.startswith("pecli "):
        return re.split(r"[|<>]", fragment, maxsplit=1)[0]
    return fragment if fragment.startswith("-") else ""


def mentioned_options(text: str) -> set[str]:
    """Long options anywhere; short options (``-o``) in pecli command lines or alone in code."""
    long = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))
    words = " ".join(_pecli_words(fragment) for fragment in _code(text)).split()
    short = {w for w in words if re.fullmatch(r"-[a-zA-Z]", w)}
    return long | short


def _mentions(section: str, name: str) -> bool:
    if name.startswith("-"):
        return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", section) is not None
    return re.search(rf"\b{re.escape(name)}\b", section) is not None


CLI_DOC = DOCS / "cli.md"
PREAMBLE, SECTIONS = cli_sections(CLI_DOC.read_text(encoding="utf-8"))


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_command_has_a_section_in_cli_md(command):
    assert command in SECTIONS, f"docs/cli.md has no '## pecli {command}' section"


def test_option_is_in_its_cli_md_section():
    """Every option of every command at once (one test, not one per option), each named."""
    missing = [
        f"'pecli {command}' section: {name}"
        for command, param in PARAMS
        for name in _names(param)
        if not _mentions(SECTIONS.get(command, ""), name)
    ]
    assert PARAMS and not missing, f"docs/cli.md does not mention: {missing}"


@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_cli_md_section_is_a_command(section):
    assert section in COMMANDS, f"docs/cli.md documents 'pecli {section}', which does not exist"


@pytest.mark.parametrize("section", sorted(SECTIONS))
def test_cli_md_section_names_only_the_commands_options(section):
    cmd = COMMANDS.get(section)
    known = GLOBAL | {n for p in (cmd.params if cmd else []) for n in _names(p)}
    known |= {n for c, p in PARAMS if c.startswith(section + " ") for n in _names(p)}  # a group
    unknown = sorted(mentioned_options(SECTIONS[section]) - known)
    assert not unknown, f"docs/cli.md's 'pecli {section}' section names {unknown}, not its options"


def test_cli_md_names_no_unknown_command_or_option():
    every_option = GLOBAL | {n for _, p in PARAMS for n in _names(p)}
    unknown = sorted(mentioned_options(PREAMBLE) - every_option)
    assert not unknown, f"docs/cli.md names options no command has: {unknown}"
    text = CLI_DOC.read_text(encoding="utf-8")
    used = set(re.findall(r"\bpecli ([a-z][a-z0-9-]*)", "\n".join(_code(text))))
    assert not used - set(COMMANDS), f"docs/cli.md uses unknown commands {used - set(COMMANDS)}"


def test_cli_md_parsing_sees_options():
    # the checks above must be able to fail: the parser does find options and commands
    assert {"--d", "-o", "--no-header"} <= mentioned_options(SECTIONS["compute"])
    assert "-j" not in mentioned_options("`ω_j = C^(-j/(h-S))`")
    assert mentioned_options("`pecli compute -x 1 | head -n 3`, `-y`") == {"-x", "-y"}


def test_cli_md_names_every_rope_subcommand_in_its_introduction():
    """The opening paragraph of cli.md's ``pecli rope`` lists what ``pecli rope --help`` does."""
    from pecli.cli.listing import COMMANDS

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    intro = text.split("\n## pecli rope\n", 1)[1].split("\n| option |", 1)[0]
    named = set(re.findall(r"`pecli rope ([a-z-]+)`", intro))
    assert named == {c.name for c in COMMANDS if c.parent == "rope"}
