"""Every certified writer of docs/exactness.md ("What is covered"), as a small invocation.

Shared by tests/certificate/test_json_report.py (each is run with ``--json``) and the house
test that checks the list against the docs (tests/house/test_json_writers.py): a writer added
to the docs' list must be added here, and have ``--json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: A small data matrix for ``pecli add`` (3 × 4, one entry cancelling sin 1).
ADD_DATA = str(Path(__file__).resolve().parent / "fixtures" / "add_data.csv")


@dataclass(frozen=True)
class Writer:
    """One certified writer: its command words, small arguments, and where it can write.

    ``suffixes``: the file outputs tried (the first is the plain one); ``stdout``: the
    ``--format`` it writes to ``-o -`` (None: the command has no stdout run here).
    """

    command: tuple[str, ...]
    args: tuple[str, ...]
    suffixes: tuple[str, ...] = (".npy",)
    stdout: str | None = "npy"

    @property
    def name(self) -> str:
        """``rope cache``: the command as the docs name it."""
        return " ".join(self.command)


WRITERS = (
    Writer(("compute",), ("--d", "6", "--n", "5"), (".npy", ".safetensors", ".csv")),
    Writer(("compute",), ("--d", "4", "--n", "3", "--relative"), (".npy",)),
    Writer(("grid",), ("3", "4", "--d", "16"), (".npy", ".csv")),
    Writer(
        ("rope", "cache"),
        ("--theta", "10000", "--head-dim", "8", "--n", "5"),
        (".npy", ".safetensors"),
    ),
    Writer(("rope", "freqs"), ("--theta", "500000", "--head-dim", "16"), (".npy",)),
    Writer(("alibi", "slopes"), ("--heads", "12"), (".npy",)),
    Writer(("alibi", "bias"), ("--heads", "4", "--n", "6"), (".npy",)),
    Writer(("add",), (ADD_DATA,), (".npy", ".csv")),
    Writer(("fourier",), ("--k", "2", "--dtype", "float32", "0.5", "1.5"), (".npy", ".csv")),
    Writer(("timestep",), ("0.25", "0.5", "0.75", "--d", "8", "--model", "flux"), (".npy",)),
    Writer(("xpos",), ("--head-dim", "8", "--n", "5"), (".npy", ".safetensors")),
    Writer(
        ("rope", "axes"),
        ("--preset", "flux", "--grid", "2x3", "--text", "1"),
        (".npy", ".safetensors"),
    ),
)

#: The commands of :data:`WRITERS`, as the docs name them (``rope cache``).
COMMANDS = frozenset(writer.name for writer in WRITERS)
