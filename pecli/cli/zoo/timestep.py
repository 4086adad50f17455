"""``pecli timestep``: a diffusion model's timestep / noise-level embedding of given t or σ.

See docs/zoo.md#timestep-embeddings.
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Annotated

import numpy as np
import typer

from ...core.errors import ParameterError
from ...core.zoo.timesteps import INPUT_DTYPES, TIMESTEP_MODELS
from ...io import formats
from .._app import app
from ..options import Base, Dtype, DtypeOpt, FormatOpt, Header, InputFile, Quiet, TableOutput
from ..progress import write_streamed

Model = StrEnum("Model", {name: name for name in TIMESTEP_MODELS})  # type: ignore[misc]
InputDtype = StrEnum("InputDtype", {name: name for name in INPUT_DTYPES})  # type: ignore[misc]
Linspace = Annotated[
    tuple[float, float, int] | None,
    typer.Option(
        "--linspace",
        metavar="START STOP NUM",
        show_default=False,
        help="NUM evenly spaced values from START to STOP.",
    ),
]
#: Most values x width held at once (the table is built whole).
MAX_TIMESTEP_VALUES = 1 << 26


@app.command("timestep", context_settings={"ignore_unknown_options": True})
def timestep_command(
    values: Annotated[
        list[str] | None,
        typer.Argument(
            help="t (flux, dit, dit-diffusers, pixart) or σ (edm, edm-adm, edm-ve, "
            "consistency) values.",
            show_default=False,
        ),
    ] = None,
    model: Annotated[
        Model, typer.Option("--model", help="The model whose embedding to compute.")
    ] = "flux",  # type: ignore[assignment]
    input_file: InputFile = None,
    linspace: Linspace = None,
    d: Annotated[int, typer.Option("--d", help="Width (frequency embedding size).")] = 256,
    input_dtype: Annotated[
        InputDtype,
        typer.Option(
            "--input-dtype",
            help="exact, or the dtype the library rounds t (and "
            "t·1000) or c_noise to: bfloat16 for FLUX in bf16.",
        ),
    ] = "exact",  # type: ignore[assignment]
    inputs: Annotated[
        bool, typer.Option("--inputs", help="Write the numbers the embedding receives instead.")
    ] = False,
    base: Base = 10000.0,
    dtype: DtypeOpt = Dtype.float32,
    output: TableOutput = "-",
    fmt: FormatOpt = None,
    header: Header = True,
    quiet: Quiet = False,
) -> None:
    """The timestep (or noise-level) embedding a diffusion model computes for each t or σ.

    flux: t·1000 (time_factor), [cos | sin]; dit and pixart: guided-diffusion's table;
    dit-diffusers: diffusers' DiT (downscale_freq_shift 1, unlike the original DiT); edm,
    edm-adm, edm-ve, consistency: σ becomes c_noise first (ln σ/4, ln(σ/2), 250·ln σ).
    --input-dtype bfloat16 rounds t and t·1000 as FLUX does in bfloat16.

    Example: pecli timestep --model flux --input-dtype bfloat16 --format csv 0.7
    """
    from ...core.sinusoidal.encoding import component_names
    from ...core.zoo.timesteps import model_inputs, timestep_table

    kind = formats.resolve_format(output, fmt.value if fmt else None)
    formats.check_output(output, kind)
    x = read_values(values, input_file, linspace, d)
    knobs = {"input_dtype": input_dtype.value}
    if inputs:
        received = model_inputs(x, model.value, **knobs).astype(dtype.value)
        _write_inputs(x, received, kind, output, quiet=quiet)
        return
    table = timestep_table(x, model.value, d=d, base=base, dtype="float64", **knobs)
    columns = component_names(d, _layout(model.value), odd_d="zero")
    _write(table.astype(dtype.value), columns, kind, output, header=header, quiet=quiet)


def _write(
    out: np.ndarray, columns: list[str], kind: str, output: str, *, header: bool, quiet: bool
) -> None:
    write_streamed(
        [out],
        output=output,
        fmt=kind,
        shape=out.shape,  # type: ignore[arg-type]
        dtype=out.dtype,
        columns=columns,
        header=header,
        quiet=quiet,
        description="timestep",
        size=out.nbytes if kind == "npy" else None,
    )


def _write_inputs(
    x: np.ndarray, received: np.ndarray, kind: str, output: str, *, quiet: bool
) -> None:
    """--inputs: each value and the number its embedding receives (npy: those numbers)."""
    from ...io import writing
    from ..progress import say_written

    if kind == "npy":
        writing.write_array(received, output=output)
    else:
        writing.write_records({"value": x, "input": received}, output=output, fmt="csv")
    say_written(output, quiet=quiet)


def _layout(model: str) -> str:
    from ...core.sinusoidal.conventions.resolve import convention

    spec = TIMESTEP_MODELS[model]
    return convention(spec.convention, **spec.knobs).layout


def read_values(
    values: list[str] | None,
    input_file: str | None,
    linspace: tuple[float, float, int] | None,
    width: int,
) -> np.ndarray:
    """The values from exactly one source: arguments, --input (one column) or --linspace.

    ``width`` columns will be made of each (the --d of the table, else 1): at most 2^26 in all.
    """
    given = [bool(values), input_file is not None, linspace is not None]
    if sum(given) != 1:
        hint = "'VALUES...', '--input' or '--linspace'"
        raise typer.BadParameter("give exactly one source of values", param_hint=hint)
    if input_file is not None:
        from ...io.reading import read_table

        x = read_table(input_file, parameter="input").astype(np.float64)
        if 1 not in x.shape:
            raise ParameterError("input", "must hold one column (or row) of values", x.shape)
        x = x.reshape(-1)
    elif linspace is not None:
        start, stop, num = linspace
        if not (math.isfinite(start) and math.isfinite(stop)) or not 1 <= num <= 1 << 24:
            raise ParameterError("linspace", "must be finite START STOP and NUM 1 to 2^24", num)
        x = np.linspace(start, stop, num)
    else:
        x = np.array([_number(text) for text in values or []])
    if x.size * max(width, 1) > MAX_TIMESTEP_VALUES:
        name = "d" if width > 1 else "x"
        raise ParameterError(name, f"times {x.size} values must be at most 2^26", width)
    return x


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        rule = "is neither a number nor an option" if text.startswith("-") else "is not a number"
        raise typer.BadParameter(f"{text!r} {rule}", param_hint="'VALUES...'") from None
