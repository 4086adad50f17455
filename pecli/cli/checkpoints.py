"""``pecli identify`` on a checkpoint: one line per tensor, or one tensor in full (``--key``).

Reading is :mod:`pecli.io.checkpoints`' (headers first, one tensor at a time), judging is
:mod:`pecli.analysis.checkpoints.scan`'s; rich is imported by the tables of :mod:`pecli.cli.text`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import typer

from ..core.errors import RuntimeFailure
from ..io import text
from ._app import option_words
from .grids.identify import show_grid_reading
from .sinusoidal.readings import show_candidates, show_identification
from .text import command_line, report

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.checkpoints.scan import TensorFinding


def identify_checkpoint(file: str, key: str | None, *, as_json: bool) -> None:
    """Identify the tables of checkpoint ``file`` (only ``key`` if given) and report them.

    Raises
    ------
    RuntimeFailure
        When no tensor (or not ``key``) is identified: status 1, after the report.

    """
    from ..analysis.checkpoints.scan import scan_tensors
    from ..io.checkpoints import open_checkpoint

    with open_checkpoint(file) as checkpoint:
        tensors = [checkpoint.info(key)] if key is not None else checkpoint.tensors
        findings = scan_tensors(
            tensors, part=checkpoint.part, load=checkpoint.load, metadata=checkpoint.metadata
        )
    if as_json:
        import json

        typer.echo(json.dumps([report(f) for f in findings], indent=2))
    elif key is not None and findings[0].grid is not None:
        show_grid_reading(findings[0].grid)
    elif key is not None and findings[0].identification is not None:
        _show_one(findings[0])
    else:
        _show_all(file, findings)
    if not any(f.verdict == "identified" for f in findings):
        if key is not None and findings[0].verdict != "no match":  # what it is, not "no match"
            raise RuntimeFailure(f"tensor {key} of {file}: {findings[0].reason}")
        if key is not None:
            raise RuntimeFailure(f"tensor {key} of {file} matches no convention within tolerance")
        raise RuntimeFailure(f"no tensor of {file} matches a convention within tolerance")


def _show_all(file: str, findings: list[TensorFinding]) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"pecli identify: {file}", title_justify="left")
    for column in ("tensor", "shape", "dtype", "verdict", "reading", "residual"):
        table.add_column(column)
    for f in (f for f in findings if f.verdict != "skipped" or len(findings) == 1):
        residual = "-" if math.isnan(f.residual) else f"{f.residual:.3g}"
        shape = "×".join(map(str, f.shape)) or "scalar"
        table.add_row(f.key, shape, f.dtype, f.verdict, option_words(f.reading), residual)
    notes = [
        f"{f.key}: rebuild with {command_line(f.rebuilt_by)}"
        + (f" (note: {option_words(f.open_note)})" if f.open_note else "")
        for f in findings
        if f.rebuilt_by
    ]
    notes += [
        f"{f.key}: pecli's metadata {option_words(f.metadata)}" for f in findings if f.metadata
    ]
    notes += [
        f"{f.key}: a rotary embedding's buffer? pecli rope identify {file} --tensor {f.key}"
        for f in findings
        if f.rotary
    ]
    if (skipped := sum(f.verdict == "skipped" for f in findings)) and len(findings) > 1:
        notes.append(
            f"{skipped} tensors skipped by their header (not float tables; --json lists them)"
        )
    text.show(table, *map(Text, notes))  # Text: no rich markup in tensor names


def _show_one(finding: TensorFinding) -> None:
    found = finding.identification
    assert found is not None
    if finding.verdict == "identified":
        show_identification(found)
    else:
        show_candidates(found)
    if finding.metadata:
        typer.echo(f"pecli's metadata {option_words(finding.metadata)}")
