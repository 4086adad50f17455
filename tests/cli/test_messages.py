"""Messages that blame what the user typed; pecli alone; broken settings (issue 12, 3f, 6, 7)."""

from __future__ import annotations

import os
import subprocess

import pytest


def _one_line(result, option: str) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"'{option}'" in lines[0], result.stderr
    return lines[0]


def test_an_existing_folder_as_output_is_called_a_folder(run_cli, tmp_path):
    folder = tmp_path / "adir"
    folder.mkdir()
    for command in (["compute"], ["wavelengths", "--d", "4"], ["heatmap", "--d", "8", "--n", "2"]):
        line = _one_line(run_cli(*command, "-o", str(folder)), "--output")
        assert "is a folder" in line and "must end in" not in line
    assert list(folder.iterdir()) == []


def test_heatmap_states_its_own_bounds(run_cli):
    assert "from 1 to 10000 for a heatmap" in _one_line(run_cli("heatmap", "--n", "0"), "--n")
    assert "from 1 to 10000" in _one_line(run_cli("heatmap", "--n", "10001"), "--n")
    assert "from 2 to 8192" in _one_line(run_cli("heatmap", "--d", "8194"), "--d")


def test_plot_waves_blames_pairs_the_user_typed(run_cli, tmp_path):
    # without --pairs, pecli chooses pairs that fit d (tests/figures/test_figure_options.py)
    typed = run_cli("plot-waves", "--d", "64", "--pairs", "40", "-o", str(tmp_path / "w.png"))
    line = _one_line(typed, "--pairs")
    assert "between 1 and d/2 = 32" in line
    assert list(tmp_path.iterdir()) == []


def test_pecli_alone_prints_the_help_and_succeeds(pecli_cmd):
    result = subprocess.run(pecli_cmd, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0 and result.stderr == ""
    assert result.stdout.startswith("Usage: pecli") and "compute" in result.stdout


def _run(pecli_cmd, *args: str, env: dict[str, str], cwd=None):
    return subprocess.run(
        [*pecli_cmd, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**__import__("os").environ, **env},
        cwd=cwd,
    )


def test_a_zero_d_npy_is_a_usage_error(run_cli, tmp_path):
    import numpy as np

    np.save(tmp_path / "z.npy", np.float64(3))
    line = _one_line(run_cli("add", "-i", str(tmp_path / "z.npy")), "--input")
    assert "2-D" in line and "0-D" in line


@pytest.mark.parametrize(
    ("args", "env", "words"),
    [
        (
            ("heatmap", "--d", "8", "--n", "2", "-o", "h.png"),
            {"MPLBACKEND": "nonsense"},
            "MPLBACKEND='nonsense' is not a matplotlib backend",
        ),
        (
            ("compute", "--d", "4", "--n", "2"),
            {"POLARS_MAX_THREADS": "0"},
            "POLARS_MAX_THREADS must be a positive integer",
        ),
    ],
)
def test_a_broken_environment_setting_is_named_in_one_line(pecli_cmd, tmp_path, args, env, words):
    result = _run(pecli_cmd, *args, env=env, cwd=tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (("conventions",), {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}),
        (("compute", "--help"), {"PYTHONIOENCODING": "latin-1"}),
    ],
)
def test_a_narrow_terminal_encoding_still_prints(pecli_cmd, args, env):
    result = _run(pecli_cmd, *args, env=env)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert "vaswani" in result.stdout or "pe(start)" in result.stdout


def _on_a_terminal(pecli_cmd, *args: str) -> bytes:
    """Run with stdout and stderr on one pseudo-terminal, as typed at a prompt; its bytes."""
    import os
    import pty

    main, secondary = pty.openpty()
    try:
        proc = subprocess.Popen(
            [*pecli_cmd, *args],
            stdout=secondary,
            stderr=secondary,
            env={**os.environ, "COLUMNS": "80"},
        )
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # EIO: the terminal's other side closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert proc.wait(timeout=60) == 0
    finally:
        os.close(main)
    return b"".join(chunks)


def test_no_progress_bar_is_drawn_into_data_on_the_terminal(pecli_cmd, tmp_path):
    # rich draws the bar as it starts: a few blocks' rows are enough to see one (or none)
    shown = _on_a_terminal(pecli_cmd, "compute", "--d", "64", "--n", "30000")
    assert b"rows" not in shown and shown.count(b"\n") == 30001
    # writing a file from a terminal still shows the bar (on stderr)
    assert b"rows" in _on_a_terminal(
        pecli_cmd, "compute", "--d", "512", "--n", "3000", "-o", str(tmp_path / "t.npy")
    )


def test_a_usage_error_found_while_csv_streams_exits_cleanly(pecli_cmd, tmp_path):
    """A NaN deep in the input is found while polars writes: status 2, never an abort (134)."""
    import numpy as np

    data = np.zeros((200_000, 64))
    data[150_001, 3] = np.nan
    np.save(tmp_path / "deep.npy", data)
    for _ in range(4):
        result = subprocess.run(
            [*pecli_cmd, "add", "-i", str(tmp_path / "deep.npy")],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.returncode == 2, result.stderr
        assert result.stderr.count("\n") == 1 and "row 150002, column 4" in result.stderr


@pytest.mark.parametrize("name", ["new.csv/", "sub/"])
def test_an_output_ending_in_a_slash_is_refused(run_cli, tmp_path, name):
    (tmp_path / "sub").mkdir()
    line = _one_line(
        run_cli("compute", "--d", "4", "--n", "2", "-o", f"{tmp_path}/{name}"), "--output"
    )
    assert "folder" in line or "end in /" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sub"]


@pytest.mark.parametrize(
    ("command", "option", "bound", "beyond"),
    [
        (["compute"], "--d", "131072", "131074"),
        (["heatmap"], "--d", "8192", "8194"),
        (["heatmap"], "--n", "10000", "10001"),
        (["plot-waves"], "--points", "1000000", "1000001"),
        (["plot-fourier"], "--periods", "1000", "1001"),
        (["plot-fourier"], "--points", "100000", "100001"),
        (["plot-fourier"], "--hidden", "256", "257"),
        (["plot-fourier"], "--k", "64", "65"),
        (["fourier", "1"], "--k", "65536", "65537"),
        (["fourier", "1"], "--k", "65536", "0"),
    ],
)
def test_help_states_the_bound_the_command_enforces(
    run_cli, tmp_path, command, option, bound, beyond
):
    import typer.main

    from pecli.cli import app

    params = typer.main.get_command(app).commands[command[0]].params  # type: ignore[attr-defined]
    (help_text,) = [p.help for p in params if option in p.opts]
    assert bound in help_text.replace(",", "")
    output = tmp_path / (
        "x.png" if command[0] in ("heatmap", "plot-waves", "plot-fourier") else "x.csv"
    )
    line = _one_line(run_cli(*command, option, beyond, "-o", str(output)), option)
    assert bound in line


def test_add_takes_its_file_as_an_argument_or_with_i(run_cli, tmp_path):
    data = tmp_path / "x.csv"
    data.write_text("1,2\n3,4\n")
    by_argument = run_cli("add", str(data))
    assert by_argument.exit_code == 0, by_argument.stderr
    assert by_argument.stdout == run_cli("add", "-i", str(data)).stdout
    assert by_argument.stdout == run_cli("add", "-", input="1,2\n3,4\n").stdout
    assert by_argument.stdout.splitlines()[1] == "1.841471,2.5403023"
    line = _one_line(run_cli("add", str(data), "-i", str(tmp_path / "other.csv")), "--input")
    assert "given twice" in line


def test_fourier_says_where_a_file_goes(run_cli, tmp_path):
    data = tmp_path / "x.csv"
    data.write_text("1\n")
    result = run_cli("fourier", "--k", "1", str(data))
    assert result.exit_code == 2 and "is a file" in result.stderr and "-i" in result.stderr


WRITERS = [
    ["compute", "--d", "4", "--n", "2", "-o", "out.csv"],
    ["timestep", "--d", "4", "0.5", "-o", "out.npy"],
    ["xpos", "--head-dim", "8", "--n", "5", "-o", "out.csv"],
    ["add", "in.csv", "-o", "out.npy"],
    ["fourier", "1", "2", "-o", "out.csv"],
    ["wavelengths", "--d", "4", "-o", "out.json"],
    ["heatmap", "--d", "8", "--n", "3", "-o", "out.png"],
    ["plot-waves", "--pairs", "1,10", "--points", "11", "-o", "out.png"],
    ["plot-fourier", "--points", "11", "-o", "out.png"],
    ["plot-similarity", "--max-offset", "10", "-o", "out.png"],
    ["plot-spectrum", "--d", "8", "-o", "out.png"],
    ["precision", "--d", "8", "--n", "50", "-o", "out.png"],
]


@pytest.mark.parametrize("args", WRITERS, ids=lambda a: a[0])
def test_every_command_that_writes_a_file_says_so_unless_quiet(
    run_cli, tmp_path, monkeypatch, args
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.csv").write_text("1,2\n3,4\n")
    said = run_cli(*args)
    assert said.exit_code == 0, said.stderr
    certificate = "pecli: every value correctly rounded to float32: 0 undecided\n"
    bound = "pecli: float64 values within the kernels' error bounds (docs/exactness.md)\n"
    stderr = said.stderr.removesuffix(certificate).removesuffix(bound)  # fourier: float64
    assert stderr == f"pecli: wrote {args[-1]}\n"
    quiet = run_cli(*args, "-q")
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_a_default_figure_name_says_it_replaced_a_file(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = run_cli("heatmap", "--d", "8", "--n", "3")
    assert first.stderr == "pecli: wrote heatmap.png\n"
    again = run_cli("heatmap", "--d", "8", "--n", "3")
    assert (
        again.stderr == "pecli: wrote heatmap.png (no -o given: replaced the file of that name)\n"
    )
    named = run_cli("heatmap", "--d", "8", "--n", "3", "-o", "heatmap.png")
    assert named.stderr == "pecli: wrote heatmap.png\n"  # named by the user: no warning


def test_a_huge_csv_cell_is_a_usage_error(run_cli, tmp_path):
    big = tmp_path / "long.csv"
    big.write_text("1," + "2" * 140_000 + "\n")
    for args in (("add", str(big)), ("identify", str(big))):
        result = run_cli(*args)
        assert result.exit_code == 2 and "field limit" in result.stderr, result.stderr


@pytest.mark.parametrize(
    "args", [["conventions"], ["wavelengths", "--d", "8"], ["identify", "T"]], ids=lambda a: a[0]
)
def test_piped_tables_are_plain_aligned_text(pecli_cmd, tmp_path, args):
    """Piped, no box drawing and no trailing spaces: grep and awk see clean lines (item 8)."""
    table = tmp_path / "t.npy"
    made = [*pecli_cmd, "compute", "--d", "8", "--n", "300", "-o", str(table), "-q"]
    subprocess.run(made, check=True, timeout=60)
    args = [str(table) if a == "T" else a for a in args]
    result = subprocess.run(
        [*pecli_cmd, *args], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) >= 3 and all(line == line.rstrip() for line in lines)
    assert not any(ch in result.stdout for ch in "┏━┃│└\x1b")
    assert "━".encode() in _on_a_terminal(pecli_cmd, *args)  # a person at a terminal: boxes


def test_shell_completion_offers_commands_and_convention_names(pecli_cmd):
    """``pecli --install-completion`` exists and completes names (issue 12, item 4)."""
    # typer takes the shell's name only with detection off; with it on, `bash` is ignored and
    # the shell is looked for among the parent processes (none under a detached job)
    named = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    script = subprocess.run(
        [*pecli_cmd, "--show-completion", "bash"],
        capture_output=True,
        text=True,
        timeout=60,
        env=named,
    )
    assert script.returncode == 0 and "_pecli_completion" in script.stdout

    def complete(words: str, cword: int) -> list[str]:
        env = {**os.environ, "COMP_WORDS": words, "COMP_CWORD": str(cword)}
        env["_PECLI_COMPLETE"] = "complete_bash"
        done = subprocess.run(pecli_cmd, env=env, capture_output=True, text=True, timeout=60)
        return done.stdout.split()

    assert "heatmap" in complete("pecli heat", 1)
    from pecli import ALIASES, PRESETS

    assert complete("pecli compute --convention ", 3) == [*PRESETS, *ALIASES]  # in their order
    assert complete("pecli compute --dtype ", 3) == ["float32", "float64", "float16", "bfloat16"]
    assert complete("pecli add --dtype ", 3) == ["float32", "float64"]


def test_an_unwritable_matplotlib_folder_adds_no_warnings(pecli_cmd, tmp_path):
    env = {**os.environ, "MPLCONFIGDIR": "/proc/pecli-no-such-folder"}
    result = subprocess.run(
        [*pecli_cmd, "heatmap", "--d", "8", "--n", "3", "-o", str(tmp_path / "h.png")],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert result.returncode == 0 and result.stderr == f"pecli: wrote {tmp_path / 'h.png'}\n"


def test_a_schedule_too_wide_for_d_states_the_smallest_d(run_cli):
    """d = 3 has one pair, and shift:1.5 divides by pairs - 1.5: the least d is 4, not '> 2'.

    (tensor2tensor's own shift 1 guards its division with max(pairs - 1, 1): d = 2 works.)
    """
    wide = ("--convention", "fairseq", "--schedule", "shift:1.5")
    line = _one_line(run_cli("compute", "--d", "3", "--n", "2", *wide), "--d")
    assert "at least 4" in line
    assert run_cli("compute", "--d", "4", "--n", "3", *wide).exit_code == 0


def test_a_crowded_legend_adds_no_python_warning(pecli_cmd, tmp_path):
    pairs = ",".join(str(i) for i in range(1, 33))  # the most in one figure: two columns
    result = subprocess.run(
        [*pecli_cmd, "plot-waves", "-q", "--pairs", pairs, "-o", str(tmp_path / "w.png")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0 and result.stderr == ""


@pytest.mark.parametrize(("flag", "named"), [([], "FILE"), (["-i"], "--input")])
def test_add_names_its_input_as_it_was_typed(run_cli, tmp_path, flag, named):
    (tmp_path / "bad.csv").write_text("a,b\n1,x\n")
    line = _one_line(run_cli("add", *flag, str(tmp_path / "bad.csv")), named)
    assert "(got 'x' on line 2, column 2)" in line  # before: '--input' for the positional FILE


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    ("args", "redirect", "named"),
    [
        ("compute --d 8 --n 100 -o /dev/full", "", "/dev/full"),
        ("compute --d 8 --n 100 --format npy -o /dev/full", "", "/dev/full"),
        ("compute --d 8 --n 100", "> /dev/full", "stdout"),
        ("wavelengths --d 8 -o /dev/full", "", "/dev/full"),
    ],
)
def test_a_full_device_is_named_in_the_message(pecli_cmd, tmp_path, args, redirect, named):
    script = f"{' '.join(pecli_cmd)} {args} {redirect}"
    result = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.endswith(f"error: No space left on device: {named}\n"), result.stderr


@pytest.mark.parametrize(
    ("command", "accepted"),
    [
        (["identify"], (".npy", "CSV", ".safetensors", ".npz")),
        (["rope", "identify"], (".npy", "CSV", ".safetensors", ".npz")),
        (["rope", "identify-axes"], (".npy", "CSV", ".safetensors", ".npz")),
        (["alibi", "identify"], (".npy", "CSV")),
    ],
)
def test_a_missing_file_is_told_every_kind_the_command_reads(run_cli, tmp_path, command, accepted):
    """identify reads checkpoints too: its message must not say '.npy or .csv' alone."""
    for missing in ("gone.npy", "gone.safetensors", "gone"):
        line = _one_line(run_cli(*command, str(tmp_path / missing)), "FILE")
        named = line.split("must be an existing ", 1)[1].split(" file (or -)")[0]
        assert named.replace(" or ", ", ").split(", ") == list(accepted), line
    assert list(tmp_path.iterdir()) == []


def _range_options():
    """Every option of every command whose type is a click number range, with its path."""
    import click
    import typer.main

    from pecli.cli import app

    def walk(command, path):
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, (*path, name))
        for param in command.params:
            if isinstance(param.type, click.types.IntRange | click.types.FloatRange):
                yield path, param, sum(isinstance(p, click.Argument) for p in command.params)

    return list(walk(typer.main.get_command(app), ()))


def test_number_ranges_are_refused_in_the_house_words(run_cli):
    """gguf check --ulps abc said "'abc' is not a valid integer range." and -1 "-1 is not in
    the range x>=0."; every other number option says "'abc' is not a valid integer." and
    "must be an integer >= 0 (got -1)"."""
    found = _range_options()
    assert {(" ".join(path), p.opts[0]) for path, p, _ in found} >= {("gguf check", "--ulps")}
    for path, param, arguments in found:
        below = param.type.min - 1 if param.type.min is not None else param.type.max + 1
        integer = isinstance(below, int)
        for value, words in (
            ("abc", f"'abc' is not a valid {'integer' if integer else 'float'}."),
            (
                str(below),
                f"must be an integer >= {param.type.min} (got {below})"
                if integer and param.type.max is None
                else "must be ",
            ),
        ):
            line = _one_line(
                run_cli(*path, *["x"] * arguments, param.opts[0], value), param.opts[0]
            )
            assert words in line and "range" not in line, line


def _huge_header_npy(path) -> None:
    """A valid .npy whose header is padded past numpy's 10000-byte safety limit."""
    import struct

    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }" + " " * 20000
    header += " " * ((-(12 + len(header) + 1)) % 64) + "\n"
    body = struct.pack("<I", len(header)) + header.encode() + bytes(32)
    path.write_bytes(b"\x93NUMPY\x02\x00" + body)


def test_a_huge_npy_header_is_refused_in_one_line(run_cli, tmp_path):
    """numpy refuses a header over 10000 bytes in three lines of advice (allow_pickle=True,
    sandboxing): printed whole, the error ran to three lines, streamed or read whole."""
    _huge_header_npy(tmp_path / "h.npy")
    name, data = str(tmp_path / "h.npy"), (tmp_path / "h.npy").read_bytes()
    out = str(tmp_path / "out.npy")
    for args, option, given in [
        (("add", "-i", name, "-o", out), "--input", None),
        (("add", "-o", out), "--input", data),
        (("identify", name), "FILE", None),
        (("rope", "cache", "--head-dim", "4", "--positions", name), "--positions", None),
    ]:
        line = _one_line(run_cli(*args, input=given), option)
        assert "must be a valid .npy file" in line and "header" in line.lower(), line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.npy"]


def test_an_unknown_npy_version_is_named_not_printed_as_a_tuple(run_cli, tmp_path):
    """A file with the .npy magic and version bytes 'ju' (106, 117) was refused as
    'must be a valid .npy file ((106, 117))': numpy's KeyError printed raw."""
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"\x93NUMPYjunk")
    for args, option in [
        (("identify", str(bad)), "FILE"),
        (("rope", "identify", str(bad)), "FILE"),
        (("diff", str(bad), str(bad)), "A"),
    ]:
        line = _one_line(run_cli(*args), option)
        assert "must be a valid .npy file" in line and "version 106.117" in line, line
        assert "((" not in line, line
    assert [p.name for p in tmp_path.iterdir()] == ["bad.npy"]


def test_a_thread_that_cannot_start_is_one_line_status_1():
    """Python's own words when a limit stops a thread ("can't start new thread"), in pecli's."""
    from pecli.cli._app import _explain

    said = _explain(RuntimeError("can't start new thread"))
    assert said == ("cannot start threads: a limit on processes or memory was reached", 1)
    assert _explain(RuntimeError("other"))[0].startswith("internal error: RuntimeError: other")


#: Every command with --header / --no-header, with arguments that would write an npy table.
_HEADER_COMMANDS = {
    "add": ["{x}"],
    "compute": ["--d", "4", "--n", "2"],
    "fourier": ["1", "2"],
    "grid": ["2", "2", "--d", "8"],
    "timestep": ["--model", "flux", "0.7"],
    "random-fourier": ["{tmp}/absent.safetensors", "0.5"],
    "xpos": ["--head-dim", "4", "--n", "2"],
    "rope axes": ["--preset", "flux", "--grid", "2x3"],
    "rope learned-axes": ["{tmp}/absent.safetensors", "--grid", "2x3x4"],
    "rope cache": ["--head-dim", "4", "--n", "2"],
    "alibi bias": ["--heads", "2", "--n", "3"],
}


def _header_commands() -> set[str]:
    """The path of every command that has a --header option."""
    import typer.main

    from pecli.cli import app

    def walk(command, path):
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, (*path, name))
        if any("--header" in p.opts for p in command.params):
            yield " ".join(path)

    return set(walk(typer.main.get_command(app), ()))


@pytest.mark.parametrize("command", sorted(_HEADER_COMMANDS))
def test_a_header_line_asked_of_an_npy_output_is_refused(run_cli, tmp_path, command):
    """compute --header -o t.npy wrote t.npy without a word: the header line is CSV's alone."""
    import numpy as np

    np.save(tmp_path / "x.npy", np.zeros((2, 4)))
    args = [a.format(x=tmp_path / "x.npy", tmp=tmp_path) for a in _HEADER_COMMANDS[command]]
    line = _one_line(
        run_cli(*command.split(), *args, "--header", "-o", str(tmp_path / "t.npy")), "--header"
    )
    assert "only to a CSV output (got npy output)" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]


def test_no_header_with_an_npy_output_is_what_npy_is(run_cli, tmp_path):
    """A script may pass --no-header whatever the format: an .npy file has no header line."""
    out = tmp_path / "t.npy"
    result = run_cli("compute", "--d", "4", "--n", "2", "--no-header", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:6] == b"\x93NUMPY"


def test_every_command_with_a_header_option_is_checked_for_npy():
    assert _header_commands() == set(_HEADER_COMMANDS)


@pytest.mark.parametrize("command", ["compute", "xpos", "rope cache"])
def test_a_header_choice_for_a_safetensors_output_is_refused(run_cli, tmp_path, command):
    args = _HEADER_COMMANDS[command]
    output = str(tmp_path / "t.safetensors")
    line = _one_line(run_cli(*command.split(), *args, "--header", "-o", output), "--header")
    assert "(got safetensors output)" in line and list(tmp_path.iterdir()) == []


def test_a_header_choice_for_csv_is_kept(run_cli):
    """The header line is CSV's: --no-header leaves it out, --header keeps it."""
    with_header = run_cli("compute", "--d", "2", "--n", "1", "--start", "0", "--header")
    assert with_header.exit_code == 0 and with_header.stdout == "sin_1,cos_1\n0.0,1.0\n"
    without = run_cli("compute", "--d", "2", "--n", "1", "--start", "0", "--no-header")
    assert without.exit_code == 0 and without.stdout == "0.0,1.0\n"


def _identify_commands() -> list[tuple[str, ...]]:
    """The path of every command that identifies something (identify, rope identify, …)."""
    import typer.main

    from pecli.cli import app

    def walk(command, path):
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, (*path, name))
        if path and path[-1].startswith("identify"):
            yield path

    return list(walk(typer.main.get_command(app), ()))


def test_every_identify_help_states_its_exit_status(run_cli):
    """alibi identify said "Status 1 when nothing fits" and rope identify nothing at all."""
    found = _identify_commands()
    assert {"identify", "rope identify", "alibi identify"} <= {" ".join(p) for p in found}
    for path in found:
        help_text = " ".join(run_cli(*path, "--help").stdout.split())
        assert "Exit status 1" in help_text, path


def test_the_identify_statuses_the_help_states(run_cli, tmp_path):
    """alibi identify: 1 for slopes of no series, 2 for a tensor of no convention; rope
    identify: 1 for an inv_freq of no rope type (pairs 4 … 7 of d 16 divided by 4, none
    smoothed: neither yarn nor llama3)."""
    import numpy as np

    alibi = run_cli("alibi", "identify", "--help").stdout
    assert "2 when no convention can read it at all" in " ".join(alibi.split())
    np.save(tmp_path / "s.npy", np.array([0.5, 0.25, 0.3]))
    np.save(tmp_path / "t.npy", np.ones((3, 3, 3)))
    inv = 1e4 ** (-np.arange(0, 16, 2) / 16)
    inv[4:] /= 4
    np.save(tmp_path / "inv.npy", inv)
    assert run_cli("alibi", "identify", str(tmp_path / "s.npy")).exit_code == 1
    assert run_cli("alibi", "identify", str(tmp_path / "t.npy")).exit_code == 2
    unknown = run_cli("rope", "identify", str(tmp_path / "inv.npy"))
    assert unknown.exit_code == 1 and "rope_type: unknown" in unknown.stdout
