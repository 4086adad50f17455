"""``pecli random-fourier``: Fourier features with frequencies read from a checkpoint.

See docs/zoo.md#random-fourier-features.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import numpy as np
import typer

from ...core.errors import ParameterError
from ...io.targets import TableTarget
from .._app import app
from ..options import InputFile, table_options
from .timestep import Linspace, read_values


class FeatureLayout(StrEnum):
    """Order of the sines and cosines of ``gaussian`` features."""

    sin_cos = "sin-cos"
    cos_sin = "cos-sin"


@app.command("random-fourier", context_settings={"ignore_unknown_options": True})
@table_options()
def random_fourier_command(
    file: Annotated[
        str,
        typer.Argument(
            help="The .safetensors or .npz holding the frequencies.", show_default=False
        ),
    ],
    values: Annotated[
        list[str] | None,
        typer.Argument(
            help="The network's inputs x (EDM2: ln σ/4; score-SDE: ln σ).", show_default=False
        ),
    ] = None,
    key: Annotated[
        str | None,
        typer.Option(
            "--key",
            help="The frequencies' tensor (…freqs, …W, …weight). [default: the one pecli finds]",
            show_default=False,
        ),
    ] = None,
    layout: Annotated[
        FeatureLayout,
        typer.Option(
            "--layout",
            help="gaussian: sin-cos (score-SDE, diffusers) or cos-sin "
            "(diffusers flip_sin_to_cos, EDM FourierEmbedding).",
        ),
    ] = FeatureLayout.sin_cos,
    log: Annotated[
        bool, typer.Option("--log", help="Take ln of the values first (diffusers log=True).")
    ] = False,
    read: Annotated[
        str | None,
        typer.Option(
            "--read",
            help="Instead: read this table (.npy or CSV) back: its layout "
            "and the input x of each row.",
            show_default=False,
        ),
    ] = None,
    input_file: InputFile = None,
    linspace: Linspace = None,
    *,
    out: TableTarget,
) -> None:
    """The random Fourier features a network computes, its frequencies read from its checkpoint.

    EDM2 MPFourier (freqs, phases): √2·cos(x·freqs + phases); score-SDE / diffusers
    GaussianFourierProjection and EDM FourierEmbedding (W, weight or freqs): sin and cos of
    2π·x·W; k-diffusion FourierFeatures (a 2-D weight): cos and sin of 2π·x·Wᵀ. The tensors are
    found by name and shape, or named with --key; nothing else of the file is read.

    Example: pecli random-fourier model.safetensors 0.5 1.0
    """
    from ...core.zoo.random_fourier import feature_columns, random_fourier_table

    out.check()
    if read is not None:
        return _read_back(file, key, read, values or input_file or linspace, out.output)
    x = read_values(values, input_file, linspace, 1)
    x = _logged(x) if log else x
    family, freqs, phases = _tensors(file, key)
    cos_first = layout == FeatureLayout.cos_sin
    table = random_fourier_table(x, family, freqs=freqs, phases=phases, cos_first=cos_first)
    stored = table.astype(out.dtype)
    columns = feature_columns(family, stored.shape[1], cos_first)
    out.write(
        [stored],
        shape=stored.shape,
        dtype=stored.dtype,
        columns=columns,
        description="random-fourier",
    )


def _read_back(file: str, key: str | None, table_file: str, values: object, output: str) -> None:
    """--read: which layout made a table with these frequencies, and each row's input."""
    from ...analysis.zoo.random_fourier import read_fourier_table
    from ...io import text, writing
    from ...io.paths import check_not_input
    from ...io.reading import read_table

    if values:
        raise ParameterError("read", "takes no values: it finds them in the table", table_file)
    check_not_input(output, (file, table_file))  # t.npy was replaced
    if output != "-" and not output.lower().endswith(".csv"):  # rows are CSV (row, input)
        raise ParameterError("output", "with --read must be a .csv file (row, input)", output)
    family, freqs, phases = _tensors(file, key)
    table = read_table(table_file, parameter="read")
    try:
        reading = read_fourier_table(table, freqs, phases)
    except ParameterError as error:  # the table is --read's
        raise ParameterError("read", error.rule, error.value) from None
    if output != "-":
        rows = {"row": np.arange(reading.inputs.size), "input": reading.inputs}
        writing.write_records(rows, output=output, fmt="csv")
    shown = ", ".join(f"{v:.6g}" for v in reading.inputs[:8]) + (" …" if table.shape[0] > 8 else "")
    verdict = "read" if reading.matched else "NOT read (no input rebuilds it)"
    text.show(
        f"{family} features, {reading.layout}: {verdict}; largest difference "
        f"{reading.residual:.3g} (tolerance {reading.tolerance:g})",
        f"inputs x of the {table.shape[0]} rows: {shown}",
    )
    if not reading.matched:
        raise SystemExit(1)


def _logged(x: np.ndarray) -> np.ndarray:
    if (x <= 0).any():
        raise ParameterError("log", "needs values > 0 (it takes their logarithm)", x.min())
    logged: np.ndarray = np.log(x)
    return logged


def _tensors(path: str, key: str | None) -> tuple[str, np.ndarray, np.ndarray | None]:
    """The family and the tensors: --key's, or the one set the headers show."""
    from ...analysis.zoo.random_fourier import chosen_fourier_tensors
    from ...io.checkpoints import open_checkpoint

    with open_checkpoint(path, parameter="file") as checkpoint:
        if key is not None:
            checkpoint.info(key)  # a key the file lacks: its error, naming what it holds
        headers = [(t.key, t.shape) for t in checkpoint.tensors]
        chosen = chosen_fourier_tensors(headers, key)
        if len(chosen) != 1:
            names = ", ".join(f.freqs for f in chosen) or "none found by name"
            raise ParameterError("key", f"must name the frequencies ({names})", key or "none given")
        (tensors,) = chosen
        freqs = np.asarray(checkpoint.load(tensors.freqs), dtype=np.float64)
        phases = checkpoint.load(tensors.phases) if tensors.phases else None
        return tensors.family, freqs, None if phases is None else np.asarray(phases, np.float64)
