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
from ...core.zoo.timesteps import INPUT_DTYPES, NETWORK_DTYPES, TIMESTEP_MODELS
from ...io.targets import TableTarget
from .._app import app
from ..options import Base, InputFile, table_options

Model = StrEnum("Model", {name: name for name in TIMESTEP_MODELS})  # type: ignore[misc]
_TIMES = ", ".join(m.name for m in TIMESTEP_MODELS.values() if not m.takes_sigma)
_SIGMAS = ", ".join(m.name for m in TIMESTEP_MODELS.values() if m.takes_sigma)
#: The default model: the first.
FIRST = Model(next(iter(TIMESTEP_MODELS)))
InputDtype = StrEnum("InputDtype", {name: name for name in INPUT_DTYPES})  # type: ignore[misc]
NetworkDtype = StrEnum("NetworkDtype", {name: name for name in NETWORK_DTYPES})  # type: ignore[misc]
_NETWORK = ", ".join(m.name for m in TIMESTEP_MODELS.values() if m.network)
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
@table_options(certified=True)
def timestep_command(
    values: Annotated[
        list[str] | None,
        typer.Argument(help=f"t ({_TIMES}) or σ ({_SIGMAS}) values.", show_default=False),
    ] = None,
    model: Annotated[
        Model, typer.Option("--model", help="The model whose embedding to compute.")
    ] = FIRST,
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
    network_dtype: Annotated[
        NetworkDtype,
        typer.Option(
            "--network-dtype",
            help=f"exact, or the table as linear_1 receives it in a model run in this dtype: "
            f"the library's float32 steps, then the cast ({_NETWORK}).",
        ),
    ] = "exact",  # type: ignore[assignment]
    inputs: Annotated[
        bool, typer.Option("--inputs", help="Write the numbers the embedding receives instead.")
    ] = False,
    base: Base = 10000.0,
    *,
    out: TableTarget,
) -> None:
    """The timestep (or noise-level) embedding a diffusion model computes for each t or σ.

    flux: t·1000 (time_factor), [cos | sin]; dit and pixart: guided-diffusion's table;
    dit-diffusers: diffusers' DiT (downscale_freq_shift 1, unlike the original DiT); edm,
    edm-adm, edm-ve, consistency: σ becomes c_noise first (ln σ/4, ln(σ/2), 250·ln σ).
    --input-dtype bfloat16 rounds t and t·1000 as FLUX does in bfloat16; --network-dtype
    bfloat16 gives the table its linear_1 then receives (float32 steps, cast to bfloat16).

    Example: pecli timestep --model flux --input-dtype bfloat16 --network-dtype bfloat16 0.7
    """
    from ...core.sinusoidal.encoding import component_names
    from ...core.zoo.timesteps import model_inputs, model_table

    kind = out.check()
    _check_inputs_only(inputs, network_dtype.value)
    x = read_values(values, input_file, linspace, d)
    knobs = {"input_dtype": input_dtype.value}
    if inputs:
        with np.errstate(over="ignore"):  # an inf is refused in _write_inputs
            return _write_inputs(x, model_inputs(x, model.value, **knobs), kind, out)
    from ...core import certificate

    dtype = np.dtype(out.dtype)
    with certificate.counting() as tally:  # float32: rounded by the certified kernels
        table = model_table(
            x, model.value, d=d, base=base, network=network_dtype.value, dtype=dtype, **knobs
        )
        said = tally.certificate(dtype, table.size - x.size * (d % 2))  # odd d: a 0 column
    layout = TIMESTEP_MODELS[model.value].table_convention().layout
    out.write(
        [table],
        shape=table.shape,
        dtype=dtype,
        columns=component_names(d, layout, odd_d="zero"),
        description="timestep",
        size=table.nbytes if kind == "npy" else None,
        said=said if network_dtype.value == "exact" else None,  # bf16: a library's steps
        not_certified=NETWORK_STEPS.format(network_dtype.value),
    )


#: Why a table of --network-dtype bfloat16 has no certificate (for --json).
NETWORK_STEPS = (
    "--network-dtype {}: the library's float32 steps, then a cast, on purpose "
    "(not meant to be correctly rounded)"
)


def _check_inputs_only(inputs: bool, network_dtype: str) -> None:
    """Refuse ``--network-dtype`` with ``--inputs``: it shapes the table, which is not written."""
    if inputs and network_dtype != "exact":
        rule = "applies to the table, not to `inputs` (the numbers the table receives)"
        raise ParameterError("network_dtype", rule, network_dtype)


def _write_inputs(x: np.ndarray, exact: np.ndarray, kind: str, out: TableTarget) -> None:
    """--inputs: each value and the number its embedding receives (npy: those numbers).

    Called with overflow ignored: a number past the output dtype's range is refused here.
    """
    from ...io import writing
    from ...io.reports import Written

    received = exact.astype(out.dtype)
    if not np.isfinite(received).all():  # t·1000 past float32's range: never an inf written
        rule = "cannot hold every input the model receives (give --dtype float64)"
        raise ParameterError("dtype", rule, str(received.dtype))
    if kind == "npy":
        writing.write_array(received, output=out.output)
    else:
        writing.write_records({"value": x, "input": received}, output=out.output, fmt="csv")
    shape = received.shape if kind == "npy" else (x.size, 2)  # CSV: value, input
    out.say(Written(out.output, kind, received.dtype, shape), None, not_certified=INPUTS)


#: Why --inputs has no certificate (for --json).
INPUTS = "--inputs: the numbers the embedding receives, not the table (not certified)"


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
        from ...io.reading import read_vector  # a 1-D .npy, one column or one row

        x = read_vector(input_file, parameter="input").astype(np.float64)
    elif linspace is not None:
        start, stop, num = linspace
        if not (math.isfinite(start) and math.isfinite(stop)) or not 1 <= num <= 1 << 24:
            rule = "must be finite START STOP and NUM 1 to 2^24"
            raise ParameterError("linspace", rule, f"{start:g} {stop:g} {num}")
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
