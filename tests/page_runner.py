"""Run a page's ``pecli`` commands, each in its own process, forked from one that loaded pecli.

tests/house/test_doc_examples.py starts one runner per page of the docs, in the page's scratch
folder and environment, and sends it one command per line: JSON with the arguments after
``pecli`` and the files for stdout and stderr. The runner forks; the child reads stdin from
/dev/null, writes to those files and runs :func:`pecli._entry.main`, the console script's
entry point, as ``pecli`` would in a shell: its own signal handlers, exit hooks and exit
status, ``os._exit`` on failure. The runner answers with the status as bash gives it (128 + N
after signal N). What the fork saves is the start-up: the interpreter and the imports of
numpy, typer, rich and matplotlib, about 0.25 s of CPU per command, 113 of the docs' 133.

Nothing here catches an exception: a child's ``SystemExit`` (or error) must leave the
process the way it leaves ``pecli``. The protocol uses bare descriptors, which a child closes.
"""

from __future__ import annotations

import json
import os
import sys


def preload() -> None:
    """Import what most commands import (no library that starts threads: polars does)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as pecli._entry, before numpy loads
    import matplotlib.backends.backend_agg
    import matplotlib.figure  # noqa: F401
    import numpy  # noqa: F401
    import rich.console
    import rich.table  # noqa: F401
    import typer  # noqa: F401

    import pecli._entry
    import pecli.cli  # noqa: F401


def become(job: dict, protocol: tuple[int, int]) -> None:
    """In the child: the command's stdin, stdout, stderr and arguments, then pecli itself."""
    for fd, path, flags in (
        (0, os.devnull, os.O_RDONLY),
        (1, job["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
        (2, job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
    ):
        opened = os.open(path, flags, 0o666)
        os.dup2(opened, fd)
        os.close(opened)
    for fd in protocol:
        os.close(fd)
    sys.argv = ["pecli", *job["argv"]]
    from pecli._entry import main

    main()
    raise SystemExit(0)


def run(job: dict, protocol: tuple[int, int]) -> int:
    """One command in a forked child: its exit status (128 + N after signal N)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        become(job, protocol)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return 128 - code if code < 0 else code


def serve(commands: int, results: int) -> None:
    """Answer each command line with a status line until the commands end."""
    pending = b""
    while True:
        while b"\n" not in pending:
            chunk = os.read(commands, 1 << 16)
            if not chunk:
                return
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        status = run(json.loads(line), (commands, results))
        os.write(results, f"{status}\n".encode())


if __name__ == "__main__":
    preload()
    protocol = os.dup(0), os.dup(1)  # the pipes; 0 and 1 become the commands' own
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    serve(*protocol)
