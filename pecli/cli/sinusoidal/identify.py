"""``pecli identify``: which convention a table, a grid table or a checkpoint's tables use.

The reports of a 1-D table are here (also shown for a checkpoint's tensor); a grid's is
:mod:`pecli.cli.grids.identify`'s; checkpoints are read tensor by tensor in
:mod:`pecli.cli.checkpoints`. rich is imported inside the reports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from ...core.errors import ParameterError, RuntimeFailure
from .. import text
from .._app import app, option_words
from ..grids.identify import show_grid
from ..options import IdentifyKey
from .readings import show_candidates, show_identification

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from ...analysis.sinusoidal.identify import Identification


@app.command()
def identify(
    file: Annotated[
        str,
        typer.Argument(
            help="Table to identify (.npy or CSV; - for stdin), rows = positions; or a "
            "checkpoint (.safetensors, .npz) whose table-shaped tensors are each identified."
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    key: IdentifyKey = None,
) -> None:
    """Recognise the convention of a table: layout, schedule, base C, first position, storage.

    Below the reading, the pecli compute command that rebuilds the table: with the shortest
    base that rebuilds it exactly where one does (7321, not 7321.000000000008), else the
    rounder one within the storage's rounding; a note: line says what the table leaves open
    and what the command does not rebuild (more than one all-zero row).

    Exit status 1, with the closest candidates, when no reading reproduces the table
    within tolerance (one unit in the storage's last place plus float32 arithmetic). In a
    checkpoint, every 2-D (or [1, n, d], [n, 1, d], a grid's [1, H, W, d]) float tensor is
    screened and identified, a grid's table as one (a ViT's pos_embed); learned tables are
    listed as not sinusoidal; status 1 when none is identified.

    Example: pecli identify pe.npy --json; pecli identify model.safetensors
    """
    from ...io.checkpoints import CHECKPOINT_SUFFIXES, is_checkpoint
    from ...io.reading import TABLE_FORMATS, check_source

    check_source(file, parameter="file", formats=(*TABLE_FORMATS, *CHECKPOINT_SUFFIXES))
    if key is not None and not is_checkpoint(file):
        rule = f"applies only to {' and '.join(CHECKPOINT_SUFFIXES)} files"
        raise ParameterError("key", rule, file)
    if key is not None or is_checkpoint(file):
        from ..checkpoints import identify_checkpoint  # (which shows this module's reports)

        return identify_checkpoint(file, key, as_json=as_json)
    table, found = _read_identified(file)
    if not found.matched and show_grid(table, as_json=as_json):  # a 2-D grid table
        return
    _report(found, file, as_json=as_json)


def _read_identified(file: str) -> tuple[np.ndarray, Identification]:
    """The whole table named by identify's FILE and its reading; a bad file names FILE."""
    from ...analysis.sinusoidal.identify import identify_table
    from ...io.reading import read_table

    try:
        table = read_table(file)
        return table, identify_table(table)
    except ParameterError as error:  # unreadable, or too few rows to tell
        rule = option_words(error.rule)
        raise typer.BadParameter(f"{rule} (got {error.value})", param_hint="'FILE'") from None


def _report(found: Identification, file: str, *, as_json: bool) -> None:
    """Print identify's reading (or the closest candidates); status 1 when nothing matched."""
    if as_json:
        import json

        typer.echo(json.dumps(text.report(found), indent=2))
    elif found.matched:
        show_identification(found)
    else:
        show_candidates(found)
    if not found.matched:
        name = "the table on stdin" if file == "-" else file
        note = f"; {option_words(found.note)}" if found.note else ""
        raise RuntimeFailure(f"{name} matches no convention within tolerance{note}")  # status 1
