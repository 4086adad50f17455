"""Every example in the README and docs/ runs as written, in a scratch folder outside the repo.

* Python blocks (```` ```python ````) run in-process.
* Shell commands run one page's commands in order in one scratch folder (later lines use the
  files of earlier ones, as a reader following the page would), one test per page, with the
  environment's ``bin`` first on ``PATH``: ``pecli`` and ``python`` are this environment's, as
  after ``source .venv/bin/activate``. A plain ``pecli …`` line (no pipe, redirection,
  ``&&``, variable or glob) runs in its own process forked from one that loaded pecli once
  (tests/page_runner.py: the console script's entry point, exit status and streams as in a
  shell, without the start-up); any other line runs with bash. Commands are every line of a
  ```` ```sh ```` block and every ``$ `` line of a plain block (a block of bare ``pecli …``
  lines counts too), but for ``make …`` and ``source .venv/bin/activate``: building the repo
  (``make test`` runs this test) and entering its environment are not examples of pecli.
* The output a page shows under a ``$`` command must be what the command prints now: each
  shown line (box-drawing characters and runs of spaces aside; ``…`` elides) is in the
  command's output, and a command shown with an ``error:`` line fails with status 2 while
  every other command succeeds.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
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


#: Characters that need bash: pipes, redirections, lists, variables, globs, substitutions,
#: escapes (anywhere before the comment, quoted or not).
SHELL_SYNTAX = set("|&;<>()$`*?[]~{}!\\")
#: Seconds a command may take (a page's commands run in one test).
COMMAND_SECONDS = 300


def _before_comment(text: str) -> str:
    """The command without its comment: from an unquoted ``#`` that starts a word, as bash."""
    quote = ""
    for k, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (k == 0 or text[k - 1].isspace()):
            return text[:k]
    return text


def simple_pecli(command: Command) -> list[str] | None:
    """The arguments after ``pecli`` of a command bash would pass through as they are."""
    text = _before_comment(command.text)
    if SHELL_SYNTAX & set(text):
        return None
    words = shlex.split(text)
    return words[1:] if words and words[0] == "pecli" else None


class PageRunner:
    """tests/page_runner.py for one page: ``pecli`` commands forked from one loaded process."""

    def __init__(self, scratch: Path, env: dict[str, str]):
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).parent.parent / "page_runner.py")],
            cwd=scratch,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        self.scratch = scratch

    def run(self, argv: list[str]) -> tuple[int, bytes, bytes]:
        """Status, stdout and stderr of ``pecli argv``."""
        out, err = self.scratch / ".stdout", self.scratch / ".stderr"
        job = {"argv": argv, "stdout": str(out), "stderr": str(err)}
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps(job).encode() + b"\n")
        self.process.stdin.flush()
        with selectors.DefaultSelector() as wait:
            wait.register(self.process.stdout, selectors.EVENT_READ)
            if not wait.select(COMMAND_SECONDS):
                raise TimeoutError(f"pecli {' '.join(argv)}: no status in {COMMAND_SECONDS} s")
        status = int(self.process.stdout.readline())
        return status, out.read_bytes(), err.read_bytes()

    def close(self) -> None:
        """End the runner (and any child still running)."""
        assert self.process.stdin and self.process.stdout
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()
        self.process.stdout.close()


def _bash(text: str, scratch: Path, env: dict[str, str]) -> tuple[int, bytes, bytes]:
    with open(scratch / ".stdout", "wb") as out:
        done = subprocess.run(
            ["bash", "-c", text],
            cwd=scratch,
            env=env,
            stdout=out,
            stderr=subprocess.PIPE,
            timeout=COMMAND_SECONDS,
            check=False,
        )
    return done.returncode, (scratch / ".stdout").read_bytes(), done.stderr


def _run(command: Command, scratch: Path, env: dict[str, str], runner: PageRunner) -> str | None:
    """Run one command as the page shows it; a failure's description, or None."""
    # the repo's own example files, as a reader who cloned it has them
    text = command.text.replace("tests/fixtures/", f"{ROOT}/tests/fixtures/")
    argv = simple_pecli(Command(command.line, text))
    status, out, err = runner.run(argv) if argv is not None else _bash(text, scratch, env)
    output = out[: 1 << 20].decode("utf-8", "replace")
    stderr = err.decode("utf-8", "replace")
    wants_error = any(": error:" in line for line in command.shown)
    status_ok = status == 2 if wants_error else status == 0
    missing = check_output(command, output + stderr)
    if status_ok and not missing:
        return None
    return (
        f"{command.line}: {command.text}\n  status {status}"
        f", stderr {stderr.strip()[-300:]!r}\n  missing {missing}"
    )


PAGES_WITH_COMMANDS = [page for page, commands in SHELL.items() if commands]


@pytest.mark.timeout(1800)  # a page's commands in one test: the README's 80 take ~25 s of CPU
@pytest.mark.parametrize("page", PAGES_WITH_COMMANDS)
def test_page_commands_run_as_shown(page, tmp_path):
    assert not tmp_path.resolve().is_relative_to(ROOT)  # a scratch folder outside the repo
    env = _environment(tmp_path)
    runner = PageRunner(tmp_path, env)
    try:
        failures = [f for c in SHELL[page] if (f := _run(c, tmp_path, env, runner))]
    finally:
        runner.close()
    assert not failures, "\n".join(f"{page}:{f}" for f in failures)


@pytest.mark.parametrize(
    "text",
    [
        "pecli compute --d 4 --n 2 --format csv",  # stdout
        "pecli compute --d 4 --n 2 -o t.npy",  # a file, and the line saying so on stderr
        "pecli compute --d 0",  # a usage error: status 2, one line
        "pecli rope cache --n 4 --head-dim 8 --format npy",  # binary on stdout
        "pecli --version",
    ],
)
def test_a_forked_command_is_the_command_run_by_bash(tmp_path, text):
    """Status, stdout, stderr and files written: the runner's child is ``pecli`` in a shell."""
    env = _environment(tmp_path)
    argv = simple_pecli(Command(1, text))
    assert argv is not None
    (tmp_path / "bash").mkdir()
    (tmp_path / "fork").mkdir()
    by_bash = _bash(text, tmp_path / "bash", env)
    runner = PageRunner(tmp_path / "fork", env)
    try:
        forked = runner.run(argv)
    finally:
        runner.close()
    assert forked == by_bash
    written = sorted(p.name for p in (tmp_path / "bash").iterdir() if p.name[0] != ".")
    assert sorted(p.name for p in (tmp_path / "fork").iterdir() if p.name[0] != ".") == written
    assert written or text != "pecli compute --d 4 --n 2 -o t.npy"
    for name in written:
        assert (tmp_path / "fork" / name).read_bytes() == (tmp_path / "bash" / name).read_bytes()


def test_only_plain_pecli_lines_are_forked():
    quoted = Command(1, "pecli grid 14 14 --title 'a b#c' --d 8  # c")
    assert simple_pecli(quoted) == ["grid", "14", "14", "--title", "a b#c", "--d", "8"]
    assert simple_pecli(Command(1, "pecli grid 14 14#c")) == ["grid", "14", "14#c"]
    for text in (
        "pecli compute --d 64 | head -n 3",
        "pecli a -o f.npy && pecli identify f.npy",
        "cat x.npy | pecli add > y.npy",
        "pecli diff a.npy b.npy; echo $?",
        "pecli identify *.npy",
        "python -c 'import pecli'",
        "pecli compute --title a\\ b",
    ):
        assert simple_pecli(Command(1, text)) is None, text
    forked = [c for commands in SHELL.values() for c in commands if simple_pecli(c) is not None]
    assert len(forked) > 100


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
