"""A closed stdout that rich or click dealt with is recognised; a stdout given as /dev/null is not.

rich's documented reaction to ``BrokenPipeError`` (``Console.on_broken_pipe``) is to put
``/dev/null`` on descriptor 1 and raise ``SystemExit(1)``; click's (``Command.main`` on
``EPIPE``) is to wrap ``sys.stdout`` in a ``PacifyFlushWrapper`` and exit with 1.
:func:`pecli.io.pipes.pipe_was_closed` must then say True, so the run ends with 141. A
caller's own ``> /dev/null`` is no closed pipe. Each case runs in a fresh interpreter, whose
stdout is set up before :mod:`pecli.io.pipes` is imported (it notes where stdout started);
a closed one gets pecli's stand-in after that import, as in ``pecli._entry``.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

#: Prints a line through rich (or not), then says what pipe_was_closed() answers.
SCRIPT = """
import os, sys
from pecli.io import pipes, streams
streams.stand_in_for_closed()
import click
from rich.console import Console
echo = click.command()(lambda: click.echo("x" * 50))
try:
    if sys.argv[1] == "rich":
        Console(file=sys.stdout).print("x" * 50)
    elif sys.argv[1] == "click":
        echo.main([], standalone_mode=False)
except SystemExit as done:
    os.write(2, b"exit %d " % done.code)
os.write(2, str(pipes.pipe_was_closed()).encode())
"""


def _answer(stdout: int | None, action: str) -> str:
    """What SCRIPT writes on stderr; ``stdout`` None: descriptor 1 closed (``>&-``)."""
    closing = ["bash", "-c", 'exec "$0" "$@" >&-'] if stdout is None else []
    done = subprocess.run(
        [*closing, sys.executable, "-c", SCRIPT, action],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stderr


@pytest.mark.parametrize("action", ["rich", "click"])
def test_rich_or_click_on_a_pipe_whose_reader_is_gone_is_a_closed_pipe(action):
    reader, writer = os.pipe()
    os.close(reader)  # every write to the pipe now fails with EPIPE
    try:
        assert _answer(writer, action) == "exit 1 True"
    finally:
        os.close(writer)


@pytest.mark.parametrize("action", ["rich", "click"])
def test_rich_or_click_on_a_stdout_closed_from_the_start_is_a_closed_pipe(action):
    """fd 1 was no /dev/null at the start (it was closed); the stand-in pipe has no reader."""
    assert _answer(None, action) == "exit 1 True"


@pytest.mark.parametrize("action", ["rich", "click", "nothing"])
def test_stdout_given_as_dev_null_is_no_closed_pipe(action):
    assert _answer(subprocess.DEVNULL, action) == "False"


def test_an_open_pipe_is_no_closed_pipe():
    reader, writer = os.pipe()
    try:
        assert _answer(writer, "rich") == "False"
    finally:
        os.close(writer)
        assert os.read(reader, 200) == b"x" * 50 + b"\n"
        os.close(reader)
