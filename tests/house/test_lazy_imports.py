"""Heavy libraries are imported only by the commands whose output needs them (issue 24).

``import ml_dtypes`` alone takes 0.5 s with ml_dtypes 0.7 (polars, matplotlib and safetensors
0.05-0.3 s each): a float32 table written to .npy must not pay for any of them. Each case runs
the console script's entry point in a fresh interpreter and lists the heavy modules loaded.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import typer

import pecli.cli
from pecli.cli import COMMAND_MODULES

HEAVY = ("ml_dtypes", "polars", "matplotlib", "safetensors")

#: The console script's entry point, run in a fresh interpreter; what it loaded follows.
ENTRY = """
import sys
sys.argv = ["pecli", *sys.argv[1:]]
from pecli._entry import main
try:
    main()
except SystemExit as stop:
    status = stop.code or 0
"""
RUN = (
    ENTRY
    + """heavy = sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY))
sys.__stderr__.write(f"\\nexit {status} loaded {','.join(heavy)}\\n")
"""
)

#: For a run that fails: the modules are listed as it leaves through ``os._exit``.
FAILING = """
import os, sys
leave = os._exit
def listed(status):
    heavy = sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY))
    sys.__stderr__.write(f"\\nexit {status} loaded {','.join(heavy)}\\n")
    sys.__stderr__.flush()
    leave(status)
os._exit = listed
"""


def loaded(tmp_path, *args: str, status: int = 0) -> set[str]:
    """The heavy top-level modules a ``pecli ARGS`` run imported (it must end with ``status``).

    A run that fails leaves through ``os._exit``: that is where the modules are listed then.
    """
    argv = [a.format(tmp=tmp_path) for a in args]
    code = f"HEAVY = {HEAVY!r}\n{RUN}" if status == 0 else f"HEAVY = {HEAVY!r}\n{FAILING}\n{ENTRY}"
    return listed_modules(tmp_path, code, argv, status)


def listed_modules(tmp_path, code: str, argv: list[str], status: int) -> set[str]:
    """Run ``code`` with ``argv`` in a fresh interpreter: the modules its last line lists."""
    done = subprocess.run(
        [sys.executable, "-c", code, *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"exit {status} loaded"), done.stderr
    return set(filter(None, last.removeprefix(f"exit {status} loaded").strip().split(",")))


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["compute", "--help"],
        ["compute", "--d", "512", "--n", "100", "-o", "{tmp}/s.npy"],
        ["compute", "--d", "64", "--n", "10", "--dtype", "float16", "-o", "{tmp}/h.npy"],
        ["grid", "8", "8", "--d", "64", "-o", "{tmp}/g.npy"],
        [
            "rope",
            "cache",
            "--theta",
            "500000",
            "--head-dim",
            "128",
            "--n",
            "64",
            "-o",
            "{tmp}/r.npy",
        ],
        ["rope", "freqs", "--head-dim", "64"],
        ["wavelengths", "--d", "16"],
    ],
)
def test_float32_commands_import_no_heavy_library(tmp_path, args):
    assert loaded(tmp_path, *args) == set()


def test_reading_float_tables_imports_no_ml_dtypes(tmp_path):
    table = tmp_path / "t.npy"
    assert loaded(tmp_path, "compute", "--d", "32", "--n", "50", "-o", str(table)) == set()
    assert loaded(tmp_path, "identify", str(table)) == set()
    np.save(tmp_path / "x.npy", np.ones((50, 32)))
    assert loaded(tmp_path, "add", str(tmp_path / "x.npy"), "-o", "{tmp}/y.npy") == set()
    cache = tmp_path / "r.npy"
    loaded(tmp_path, "rope", "cache", "--head-dim", "16", "--n", "40", "-o", str(cache))
    assert loaded(tmp_path, "rope", "identify", str(cache)) == set()
    assert loaded(tmp_path, "rope", "precision", "-q", "--n", "2000") == set()  # bf16 on bits
    text = tmp_path / "t.csv"
    np.savetxt(text, np.load(table), delimiter=",", fmt="%.9g")  # float32 text: no bf16 read
    assert "ml_dtypes" not in loaded(tmp_path, "identify", str(text))


def test_diffing_float32_caches_imports_no_ml_dtypes(tmp_path):
    """diff's bf16 cause is tried on the bits first: no 0.5 s import of ml_dtypes 0.7."""
    cache = ["rope", "cache", "--head-dim", "16", "--n", "40"]
    loaded(tmp_path, *cache, "-o", "{tmp}/a.npy")
    loaded(tmp_path, *cache, "--start", "1", "-o", "{tmp}/b.npy")
    assert loaded(tmp_path, "diff", "{tmp}/a.npy", "{tmp}/b.npy", status=1) == set()


def test_each_library_is_imported_where_the_output_needs_it(tmp_path):
    """The control: the same harness sees each library when its path runs."""
    bf16 = ["compute", "--d", "8", "--n", "4", "--dtype", "bfloat16", "-o", "{tmp}/b.safetensors"]
    assert "ml_dtypes" in loaded(tmp_path, *bf16)
    assert "ml_dtypes" in loaded(tmp_path, "identify", "{tmp}/b.safetensors")
    f32 = ["compute", "--d", "8", "--n", "4", "-o", "{tmp}/f.safetensors"]
    assert "ml_dtypes" not in loaded(tmp_path, *f32)  # pecli's own safetensors reader/writer
    assert "ml_dtypes" not in loaded(tmp_path, "identify", "{tmp}/f.safetensors")
    assert loaded(tmp_path, "compute", "--d", "8", "--n", "4", "-o", "{tmp}/t.csv") == {"polars"}
    png = ["heatmap", "--d", "8", "--n", "4", "-o", "{tmp}/h.png"]
    assert "matplotlib" in loaded(tmp_path, *png)


#: What a run loaded of the modules a reader has no use for (``numpy.ma``: 20-30 ms that
#: ``np.median`` / ``np.unique`` import; ``mpmath``: the certificate's fallback only).
UNUSED = ("numpy.ma", "mpmath")
#: Lists them as the run leaves: through ``os._exit`` (a failing run), or at the end.
UNUSED_LISTING = """
import os, sys
def listed(status):
    names = sorted(m for m in sys.modules if m in UNUSED)
    sys.__stderr__.write(f"\\nexit {status} loaded {','.join(names)}\\n")
    sys.__stderr__.flush()
leave = os._exit
os._exit = lambda status: (listed(status), leave(status))
"""
UNUSED_RUN = UNUSED_LISTING + ENTRY + "listed(status)\n"


def unused(tmp_path, *args: str, status: int = 0) -> set[str]:
    """The modules of :data:`UNUSED` a ``pecli ARGS`` run imported (it must end with ``status``)."""
    return listed_modules(tmp_path, f"UNUSED = {UNUSED!r}\n{UNUSED_RUN}", list(args), status)


def test_reader_commands_import_neither_numpy_ma_nor_mpmath(tmp_path):
    """identify, rope identify, diff, alibi identify, grid identify (pecli.core.median), and
    rope identify-axes (the certificate's rounded_sum imports mpmath for undecided sums only).
    """
    t, a, b = tmp_path / "t.npy", tmp_path / "a.npy", tmp_path / "b.npy"
    np.save(t, np.load(_made(tmp_path, "compute", "--d", "64", "--n", "300", "-o", str(t))))
    cache = ["rope", "cache", "--theta", "500000", "--head-dim", "64", "--n", "3000"]
    _made(tmp_path, *cache, "-o", str(a))
    _made(tmp_path, *cache, "--arithmetic", "transformers", "-o", str(b))
    bias = tmp_path / "bias.npy"
    _made(
        tmp_path, "alibi", "bias", "--heads", "8", "--n", "64", "--queries", "16", "-o", str(bias)
    )
    grid = tmp_path / "g.npy"
    _made(tmp_path, "grid", "12", "10", "--d", "64", "-o", str(grid))
    assert unused(tmp_path, "identify", str(t)) == set()
    assert unused(tmp_path, "identify", str(a), status=1) == set()  # no convention; certified rows
    assert unused(tmp_path, "rope", "identify", str(a)) == set()
    assert unused(tmp_path, "diff", str(a), str(b), status=1) == set()
    assert unused(tmp_path, "diff", str(a), str(a)) == set()
    assert unused(tmp_path, "alibi", "identify", str(bias)) == set()
    assert unused(tmp_path, "identify", str(grid)) == set()
    axes = tmp_path / "axes.npy"  # its exact preset rebuilt: rounded_sum's sums all decided
    _made(tmp_path, "rope", "axes", "--preset", "wan", "--grid", "3x4x5", "-o", str(axes))
    assert unused(tmp_path, "rope", "identify-axes", str(axes), "--grid", "3x4x5") == set()


def test_the_harness_sees_numpy_ma_when_it_is_imported(tmp_path):
    """The control: np.median imports numpy.ma, and the same listing names it."""
    code = UNUSED_LISTING + "import numpy as np; np.median([1.0, 2.0])\nlisted(0)\n"
    done = subprocess.run(
        [sys.executable, "-c", f"UNUSED = {UNUSED!r}\n{code}"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    assert done.stderr.strip().splitlines()[-1] == "exit 0 loaded numpy.ma", done.stderr


def _made(tmp_path, *args: str) -> str:
    """Run ``pecli ARGS`` (a writer) in-process-free: a fresh interpreter, as a user would."""
    done = subprocess.run(
        [sys.executable, "-m", "pecli", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return args[args.index("-o") + 1]


LISTING_RUN = (
    ENTRY
    + """
names = sorted(m for m in sys.modules if m == "numpy" or m.startswith("pecli."))
sys.__stderr__.write(f"\\nexit {status} loaded {','.join(names)}\\n")
"""
)


@pytest.mark.parametrize("args", [[], ["--help"], ["-h"], ["--version"]])
def test_help_and_version_import_no_numpy_and_no_command(tmp_path, args):
    """The listing comes from pecli/cli/listing.py: no command module, no NumPy (issue 24)."""
    done = subprocess.run(
        [sys.executable, "-c", LISTING_RUN, *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("exit 0 loaded "), done.stderr
    names = set(last.removeprefix("exit 0 loaded ").split(","))
    assert "numpy" not in names
    assert names <= {
        "pecli._entry",
        "pecli.cli",
        "pecli.cli._app",
        "pecli.cli.listing",
        "pecli.core",
        "pecli.core.errors",
        "pecli.io",
        "pecli.io.guard",
        "pecli.io.paths",
        "pecli.io.pipes",
        "pecli.io.streams",
    }
    assert "pecli.cli.listing" in names  # the command records: COMMAND_MODULES derive from it


def _first_paragraphs() -> dict[str, str]:
    """Each command's name and the first paragraph of its help, as ``pecli --help`` lists."""
    whole = typer.main.get_command(pecli.cli.app)
    return {
        name: " ".join((command.help or "").split("\n\n")[0].split())
        for name, command in whole.commands.items()  # type: ignore[attr-defined]
        if not command.hidden
    }


def test_the_listing_is_what_the_commands_say():
    """pecli/cli/listing.py holds a copy of each help: every command, in order, with its help.

    On a difference the message prints the records to paste into ``COMMANDS`` (the top-level
    ones; a new command's ``module`` is to be filled in).
    """
    from pecli.cli.listing import COMMANDS, LISTING

    modules = {c.name: c.module for c in COMMANDS if not c.parent}
    paste = "".join(
        f"    Command({name!r}, {modules.get(name, 'MODULE')!r}, {text!r}"
        + (", group=True" if name in pecli.cli.GROUPS else "")
        + "),\n"
        for name, text in _first_paragraphs().items()
    )
    assert list(LISTING.items()) == list(_first_paragraphs().items()), (
        f"pecli/cli/listing.py differs from the commands' help; its records should read:\n{paste}"
    )


def test_a_stale_listing_lists_the_whole_application(monkeypatch):
    """A command missing from the table is still listed: every module is imported instead."""
    from pecli.cli import listing

    monkeypatch.setattr(
        listing, "LISTING", {k: v for k, v in listing.LISTING.items() if k != "compute"}
    )
    built = typer.main.get_command(pecli.cli.chosen(["--help"]))
    assert list(built.commands) == list(_first_paragraphs())  # type: ignore[attr-defined]
    assert built.commands["compute"].help.startswith("Compute the table")  # type: ignore[attr-defined]


CHOSEN = """
from pecli.cli import chosen, GROUPS
built = typer.main.get_command(chosen(sys.argv[1:]))
group = built.commands.get(sys.argv[1]) if sys.argv[1] in GROUPS else built
print(" ".join(group.commands))
"""


def _every_command() -> list[str]:
    whole = typer.main.get_command(pecli.cli.app)
    every = []
    for name, command in whole.commands.items():  # type: ignore[attr-defined]
        inner = getattr(command, "commands", None)
        every += [f"{name} {n}" for n in inner] if inner is not None else [name]
    return every


EVERY_COMMAND = _every_command()


@pytest.fixture(scope="module")
def built_alone() -> dict[str, tuple[int, str, str]]:
    """The commands ``chosen`` builds for ``PATH --help``, each in a child of a process that
    imported typer and no pecli (forked: a fresh ``sys.modules`` as far as pecli goes)."""
    cases = [[*path.split(), "--help"] for path in EVERY_COMMAND]
    return forked("import typer", CHOSEN, cases, dict(os.environ))


@pytest.mark.parametrize("path", EVERY_COMMAND)
def test_a_run_builds_its_command_from_its_module_alone(path, built_alone):
    """pecli.cli.chosen imports COMMAND_MODULES[name] only: it must register that command."""
    status, out, err = built_alone[f"{path} --help"]
    assert status == 0 and out.split() == [path.split()[-1]], err


def test_command_modules_name_every_command():
    whole = typer.main.get_command(pecli.cli.app)
    assert sorted(whole.commands) == sorted(COMMAND_MODULES)  # type: ignore[attr-defined]
    assert sorted(n for n, c in whole.commands.items() if hasattr(c, "commands")) == sorted(
        pecli.cli.GROUPS
    )  # type: ignore[attr-defined]


def test_subcommand_modules_name_every_command_of_their_group():
    whole = typer.main.get_command(pecli.cli.app)
    for group, modules in pecli.cli.SUBCOMMAND_MODULES.items():
        inner = whole.commands[group].commands  # type: ignore[attr-defined]
        assert sorted(inner) == sorted(modules)


def test_a_group_command_imports_its_own_module_not_the_groups_others():
    code = (
        "import sys; from pecli.cli import chosen; chosen(['rope', 'cache', '--help']); "
        "print(sorted(m for m in sys.modules if m.startswith('pecli.cli.')))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "pecli.cli.rope.cache" in loaded.stdout, loaded.stderr
    for other in ("rope.probe", "multiaxis.identify", "ports.engines", "rope.commands"):
        assert f"pecli.cli.{other}'" not in loaded.stdout


#: Runs ``PREAMBLE`` once, then ``BODY`` for each JSON list of arguments on stdin, in a child
#: forked for it (``sys.argv`` = ``["pecli", *arguments]``): a fresh interpreter's worth of
#: exit status, stdout and stderr for each, one JSON line each, without one start-up each.
FORKED = """
import json, os, sys, tempfile
exec(PREAMBLE)
for line in sys.stdin:
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    sys.stdout.flush(); sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.dup2(out.fileno(), 1); os.dup2(err.fileno(), 2)
        sys.argv = ["pecli", *json.loads(line)]
        try:
            exec(BODY)
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 1
            if not isinstance(stop.code, (int, type(None))):
                print(stop.code, file=sys.stderr)
        sys.stdout.flush(); sys.stderr.flush()
        os._exit(code)
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    said = []
    for f in (out, err):
        f.seek(0)
        said.append(f.read().decode())
    print(json.dumps([status, *said]), flush=True)
"""


def forked(preamble: str, body: str, cases: list[list[str]], env: dict[str, str]) -> dict:
    """``{" ".join(arguments): (status, stdout, stderr)}`` of ``body`` run for each case."""
    import json

    code = f"PREAMBLE = {preamble!r}\nBODY = {body!r}\n{FORKED}"
    done = subprocess.run(
        [sys.executable, "-c", code],
        input="".join(json.dumps(args) + "\n" for args in cases),
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": os.environ["PYTHONPATH"]},
        check=True,
    )
    said = [tuple(json.loads(line)) for line in done.stdout.splitlines()]
    assert len(said) == len(cases), done.stderr
    return {" ".join(args): s for args, s in zip(cases, said, strict=True)}


LAZY = "import sys; sys.argv = ['pecli', *sys.argv[1:]]; from pecli._entry import main; main()"
TRIMMED_CASES = [
    [],
    ["--help"],
    ["-h"],
    ["--version"],
    ["rope"],
    ["rope", "--help"],
    ["compute", "--help"],
    ["rope", "cache", "-h"],
    ["comput"],
    ["rope", "cach"],
    ["grid", "--d", "3", "2", "2"],
]
TRIMMED_ENV = {"COLUMNS": "100", "PATH": "/usr/bin:/bin"}


@pytest.fixture(scope="module")
def whole_application_says() -> dict[str, tuple[int, str, str]]:
    """What the whole application, loaded once, says to each of TRIMMED_CASES."""
    whole = "from pecli.cli import load\nfrom pecli.cli._app import main\napp = load()"
    return forked(whole, "main(app)", TRIMMED_CASES, TRIMMED_ENV)


@pytest.mark.parametrize("args", TRIMMED_CASES)
def test_a_trimmed_application_says_what_the_whole_one_says(args, whole_application_says):
    lazy = subprocess.run(
        [sys.executable, "-c", LAZY, *args],
        capture_output=True,
        text=True,
        env={**TRIMMED_ENV, "PYTHONPATH": os.environ["PYTHONPATH"]},
        check=False,
    )
    full = whole_application_says[" ".join(args)]
    assert full == (lazy.returncode, lazy.stdout, lazy.stderr)
    assert full[1] or full[2]


def test_click_is_imported_only_as_a_fallback():
    """typer >= 0.26 vendors click: a plain pip install has no click, so `import click` fails.

    Every import of click must be the fallback of a ``try`` importing typer's own copy
    (every command failed at import in a plain install once: pecli/cli/rope/cache.py).
    """
    import ast
    from pathlib import Path

    bare = []
    for path in Path(pecli.cli.__file__).parents[1].rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        handlers = {
            id(n)
            for t in ast.walk(tree)
            if isinstance(t, ast.Try)
            for h in t.handlers
            for n in ast.walk(h)
        }
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            module = node.module if isinstance(node, ast.ImportFrom) else None
            if ("click" in names or (module or "").split(".")[0] == "click") and id(
                node
            ) not in handlers:
                bare.append(f"{path.name}:{node.lineno}")
    assert bare == []
