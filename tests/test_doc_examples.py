"""Every example in the README and docs/ runs as written, in a scratch folder outside the repo.

* Python blocks (```` ```python ````) run in-process.
* Shell commands run with bash, one page's commands in order in one scratch folder (later
  lines use the files of earlier ones, as a reader following the page would; a page runs as
  several tests of ``CHUNK`` commands, in one worker, and a chunk run alone runs the page's
  earlier commands first), with the
  environment's ``bin`` first on ``PATH``: ``pecli`` and ``python`` are this environment's, as
  after ``source .venv/bin/activate``. Commands are every line of a ```` ```sh ```` block and
  every ``$ `` line of a plain block (a block of bare ``pecli …`` lines counts too), but for
  ``make …`` and ``source .venv/bin/activate``: building the repo (``make test`` runs this
  test) and entering its environment are not examples of pecli.
* The output a page shows under a ``$`` command must be what the command prints now: each
  shown line (box-drawing characters and runs of spaces aside; ``…`` elides) is in the
  command's output, and a command shown with an ``error:`` line fails with status 2 while
  every other command succeeds.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
SETUP = ("#", "make ", "source .venv/")  # comments, building the repo, entering its .venv
BOX = re.compile(r"[│┃┏┓┗┛┡┩┣┫━─┳┻╇╋═╭╮╰╯|]")


def _examples() -> list[tuple[str, int, str]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((page.relative_to(ROOT).as_posix(), line, match.group(1)))
    return found


EXAMPLES = _examples()


def test_examples_found():
    assert any(page == "README.md" for page, _, _ in EXAMPLES)


@pytest.mark.parametrize(
    ("page", "line", "code"), EXAMPLES, ids=[f"{p}:{n}" for p, n, _ in EXAMPLES]
)
def test_example_runs(page, line, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{page}:{line}", "exec"), {"__name__": "__doc_example__"})


# --- shell commands -------------------------------------------------------------------------


@dataclass
class Command:
    """A command of a page, where it is, and the output the page shows under it."""

    line: int
    text: str
    shown: list[str] = field(default_factory=list)


def _joined(lines: list[str]) -> list[tuple[int, str]]:
    """``(offset, line)`` with continuation lines (``\\``) joined to the line they continue."""
    out: list[tuple[int, str]] = []
    carry = False
    for k, line in enumerate(lines):
        if carry:
            out[-1] = (out[-1][0], out[-1][1][:-1] + " " + line.strip())
        else:
            out.append((k, line))
        carry = out[-1][1].endswith("\\")
    return out


def page_commands(text: str) -> list[Command]:
    """The shell commands of a page (see the module's docstring), in order."""
    commands: list[Command] = []
    for match in FENCE.finditer(text):
        kind, body = match.group(1), match.group(2)
        first = text.count("\n", 0, match.start()) + 2  # the line after the fence
        lines = _joined(body.splitlines())
        prompts = any(line.startswith("$ ") for _, line in lines)
        bare = not prompts and bool(lines) and lines[0][1].startswith("pecli ")
        if kind not in ("sh", "") or (kind == "" and not (prompts or bare)):
            continue
        for k, line in lines:
            if kind == "sh" or bare:
                if line.strip() and not line.lstrip().startswith(SETUP):
                    commands.append(Command(first + k, line))
            elif line.startswith("$ "):
                commands.append(Command(first + k, line[2:]))
            elif commands and commands[-1].line >= first:
                commands[-1].shown.append(line)
    return commands


def _normal(text: str) -> str:
    return " ".join(BOX.sub(" ", text).split())


def check_output(command: Command, output: str) -> list[str]:
    """The shown lines the command's output lacks (parts between ``…`` are looked for)."""
    have = "\n".join(_normal(line) for line in output.splitlines())
    missing = []
    for line in command.shown:
        parts = [_normal(part) for part in line.split("…")]
        if any(part and part not in have for part in parts):
            missing.append(line)
    return missing


SHELL = {
    page.relative_to(ROOT).as_posix(): page_commands(page.read_text(encoding="utf-8"))
    for page in PAGES
}


def test_shell_commands_found():
    assert len(SHELL["README.md"]) > 40 and SHELL["docs/cli.md"]
    assert any(c.shown for c in SHELL["README.md"])


def test_commands_are_parsed_as_a_reader_reads_them():
    text = (
        "```\n$ pecli a \\\n    --b 1   # c\nout 1\n…\n$ pecli d\n```\n```sh\npecli e\n# f\n```\n"
    )
    (a, d, e) = page_commands(text)
    assert (a.line, a.text, a.shown) == (2, "pecli a  --b 1   # c", ["out 1", "…"])
    assert (d.text, d.shown, e.text) == ("pecli d", [], "pecli e")
    assert check_output(a, "│ out │ 1 │\n") == []
    assert check_output(Command(1, "x", ["out 2 … 3"]), "out 2 and 3") == []
    assert check_output(Command(1, "x", ["out 2 … 4"]), "out 2 and 3") == ["out 2 … 4"]


def _environment(scratch: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env.update(HOME=str(scratch), MPLCONFIGDIR=str(scratch / ".mpl"), COLUMNS="200")
    env.pop("VIRTUAL_ENV", None)
    return env


#: Commands per test: a page runs as several tests of a few seconds each (the README's 80
#: commands took 33 s as one), in order, in one scratch folder per page.
CHUNK = 5
CHUNKS = [
    (page, start) for page, commands in SHELL.items() for start in range(0, len(commands), CHUNK)
]


def _run(command: Command, scratch: Path, env: dict[str, str]) -> str | None:
    """Run one command as the page shows it; a failure's description, or None."""
    # the repo's own example files, as a reader who cloned it has them
    text = command.text.replace("tests/fixtures/", f"{ROOT}/tests/fixtures/")
    with open(scratch / ".stdout", "wb") as out:
        done = subprocess.run(
            ["bash", "-c", text],
            cwd=scratch,
            env=env,
            stdout=out,
            stderr=subprocess.PIPE,
            timeout=300,
            check=False,
        )
    output = (scratch / ".stdout").read_bytes()[: 1 << 20].decode("utf-8", "replace")
    stderr = done.stderr.decode("utf-8", "replace")
    wants_error = any(": error:" in line for line in command.shown)
    status_ok = done.returncode == 2 if wants_error else done.returncode == 0
    missing = check_output(command, output + stderr)
    if status_ok and not missing:
        return None
    return (
        f"{command.line}: {command.text}\n  status {done.returncode}"
        f", stderr {stderr.strip()[-300:]!r}\n  missing {missing}"
    )


@pytest.fixture(scope="session")
def page_folders():
    """Per page: its scratch folder and how many of its commands have run there."""
    return {}


def _page_folder(page: str, folders: dict, factory) -> tuple[Path, dict[str, str], list[int]]:
    if page not in folders:
        scratch = factory.mktemp(page.replace("/", "_"))
        folders[page] = (scratch, _environment(scratch), [0])
    return folders[page]


@pytest.mark.xdist_group("page-commands")  # one worker runs a page's chunks in order
@pytest.mark.parametrize(("page", "start"), CHUNKS, ids=[f"{p}:{s}" for p, s in CHUNKS])
def test_page_commands_run_as_shown(page, start, page_folders, tmp_path_factory):
    scratch, env, done = _page_folder(page, page_folders, tmp_path_factory)
    assert not scratch.resolve().is_relative_to(ROOT)  # a scratch folder outside the repo
    for command in SHELL[page][done[0] : start]:  # run alone: the page's earlier commands first
        _run(command, scratch, env)
    failures = [f for c in SHELL[page][start : start + CHUNK] if (f := _run(c, scratch, env))]
    done[0] = max(done[0], start + CHUNK)
    assert not failures, "\n".join(f"{page}:{f}" for f in failures)


def test_pages_are_cut_into_chunks_in_order():
    readme = [s for p, s in CHUNKS if p == "README.md"]
    assert readme == list(range(0, len(SHELL["README.md"]), CHUNK)) and len(readme) > 3


def test_readme_says_how_to_run_the_installed_tool_before_any_example():
    """``pecli`` and ``python`` by name are .venv's only once it is active: say so first."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = SHELL["README.md"]
    first_example = min(c.line for c in commands)
    lines = text.splitlines()
    before = "\n".join(lines[: first_example + 1])
    assert "source .venv/bin/activate" in before and "`.venv/bin/pecli`" in before
    for page, found in SHELL.items():  # never the system's Python, which may lack NumPy
        assert not [c.text for c in found if c.text.startswith(("python3 ", "/usr/bin/python"))]
        assert all(c.text.split()[0] in ("pecli", "python", "cat") for c in found), page


def _written(command: str) -> set[str]:
    return set(re.findall(r"(?:-o|--output|>)\s+(\S+\.(?:npy|csv|safetensors|png|svg))", command))


def test_the_performance_examples_overwrite_no_file_of_the_tour():
    """The benchmarks' commands (the Performance table's rows) write files of their own.

    A reader pasting ``pecli compute … -o x.npy`` from the table replaced the tour's sample
    data; a row may reuse a tour file only with the tour's very command.
    """
    tour = {c.text.split("#")[0].strip() for c in SHELL["README.md"]}
    used = {name: cmd for cmd in tour for name in re.findall(r"\b\w+\.(?:npy|csv)\b", cmd)}
    labels = []
    for bench in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        labels += re.findall(r"``(pecli [^`]+)``|\"(pecli [^\"]+)\"", bench.read_text("utf-8"))
    shown = [a or b for a, b in labels]
    assert any("-o" in label for label in shown)
    clashes = [
        label for label in shown for name in _written(label) if name in used and used[name] != label
    ]
    assert not clashes
