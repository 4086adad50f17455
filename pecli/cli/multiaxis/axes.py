"""``pecli rope axes``: the cache of a multi-axis rotary embedding (FLUX, Wan, Pixtral, …)."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import numpy as np

from ...core.errors import ParameterError
from ...core.rules import check_checkpoint_table
from ...io.rope.output import table_kind, write_cache
from ..options import (
    ComputeOutput,
    FormatOpt,
    Header,
    JsonReport,
    Quiet,
    TableDtype,
    TableDtypeOpt,
    given,
)
from ..rope.app import rope_app
from ..rope.options import Form, Part
from .options import (
    AxesConfigOpt,
    AxisLayoutOpt,
    FpsOpt,
    GridOpt,
    HeadDimOpt,
    IdsOpt,
    LayoutMergeOpt,
    LayoutReleaseOpt,
    PatchOpt,
    PresetOpt,
    RopeScaleOpt,
    ScaleFactorOpt,
    TextOpt,
    ThetaOpt,
    TokensOpt,
    TokensPerSecondOpt,
    WidthsOpt,
    _option,
    id_source,
    layout_rules,
    plan_of,
)

if TYPE_CHECKING:  # pragma: no cover
    from ...core.multiaxis.cache import AxesSpec
    from ...core.rope.forms import FormTable


class AxisArithmetic(StrEnum):
    """Exact, or a model's compute dtype."""

    exact = "exact"
    model = "model"
    float64 = "float64"
    float32 = "float32"


FormOpt = Annotated[
    Form,
    _option(
        "--form",
        "full (rotary_dim columns), half (one per pair), "
        "complex (cos + i·sin, .npy) or matrix (2×2 per pair, .npy, .safetensors).",
    ),
]
PartOpt = Annotated[
    Part, _option("--part", "cos, sin or both (cos columns, then sin) for the full and half forms.")
]
ArithmeticOpt = Annotated[
    AxisArithmetic,
    _option(
        "--arithmetic",
        "exact (each value rounded once), model (the preset's own dtype), float64 or float32.",
    ),
]


@rope_app.command("axes")
def axes_command(
    preset: PresetOpt = None,
    head_dim: HeadDimOpt = None,
    grid: GridOpt = None,
    text: TextOpt = 0,
    ids: IdsOpt = None,
    widths: WidthsOpt = None,
    theta: ThetaOpt = None,
    layout: AxisLayoutOpt = None,
    form: FormOpt = Form.full,
    part: PartOpt = Part.both,
    dtype: TableDtypeOpt = TableDtype.float32,
    arithmetic: ArithmeticOpt = AxisArithmetic.exact,
    output: ComputeOutput = "-",
    fmt: FormatOpt = None,
    header: Header = True,
    quiet: Quiet = False,
    tokens: TokensOpt = None,
    release: LayoutReleaseOpt = None,
    tokens_per_second: TokensPerSecondOpt = None,
    spatial_merge_size: LayoutMergeOpt = None,
    fps: FpsOpt = None,
    patch: PatchOpt = None,
    scale_factor: ScaleFactorOpt = None,
    rope_scale: RopeScaleOpt = None,
    config: AxesConfigOpt = None,
    as_json: JsonReport = False,
) -> None:
    """Cos and sin of a multi-axis rotary embedding, one row per token, exact.

    Pair j turns by pos[axis(j)]·ω_j (pecli rope axis-map shows which axis and ω). Ids come
    from the preset and --grid (and --text), a Qwen-VL preset and --tokens, or --ids. Angles
    are exact and every value is rounded once to --dtype; --arithmetic model repeats the
    model's own float64 or float32 steps. Streamed in row blocks to CSV or npy;
    -o NAME.safetensors holds tensors cos and sin (or rotation) with the plan as metadata.

    Example: pecli rope axes --preset flux --grid 2x3 --text 2 --form half --format csv;
    pecli rope axes --preset wan --grid 21x60x104 --patch model -o wan.npy (a latent of
    21×60×104, patched 1×2×2 as Wan does);
    pecli rope axes --config Qwen2-VL-7B/config.json --tokens "text:3 image:1,4,4" -o c.npy
    """
    from ...core.multiaxis.cache import AxesSpec, axes_table

    plan, chosen = plan_of(preset, head_dim, widths, theta, layout, rope_scale, config)
    kind = _output_kind(output, fmt, form.value, as_json=as_json, header=header)
    given = {
        "grid": grid,
        "text": text,
        "fps": fps,
        "patch": patch,
        "scale_factor": scale_factor,
        **layout_rules(tokens, release, tokens_per_second, spatial_merge_size),
    }
    source = id_source(plan, chosen, output, ids=ids, **given)
    model = chosen.dtype if chosen else "float64"
    mode = model if arithmetic is AxisArithmetic.model else arithmetic.value
    spec = AxesSpec(plan, source, form.value, part.value, dtype.value, mode)
    table = axes_table(spec)
    check_checkpoint_table(source.n, math.prod(table.shape[1:]), np.dtype(spec.dtype), kind)
    preset_name = chosen.name if chosen else ""
    _write(table, spec, preset_name, output, kind, header=header, quiet=quiet, as_json=as_json)


def _write(
    table: FormTable,
    spec: AxesSpec,
    preset: str,
    output: str,
    kind: str,
    *,
    header: bool,
    quiet: bool,
    as_json: bool,
) -> None:
    """The cache written (the plan as ``.safetensors`` metadata) and said (``as_json``)."""
    from ... import __version__
    from ...core.multiaxis.cache import axes_metadata

    meta = axes_metadata(spec, preset=preset, version=__version__)
    write_cache(
        table,
        output=output,
        kind=kind,
        header=header,
        quiet=quiet,
        description="rope axes",
        metadata=meta if kind == "safetensors" else None,
        certified=spec.arithmetic == "exact",  # the others repeat a model's own steps
        not_certified=f"{spec.arithmetic} arithmetic (--arithmetic): a model's steps, on purpose",
        as_json=as_json,
    )


def _output_kind(output: str, fmt: FormatOpt, form: str, *, as_json: bool, header: bool) -> str:
    """The output's kind, refused before any work where it cannot hold the form.

    ``as_json``: stderr is refused too (the report goes there); ``header``: ``--header`` is
    refused but for CSV (``--no-header`` is what npy and .safetensors are).
    """
    chosen = header if given("header") else None
    kind = table_kind(output, fmt, as_json=as_json, header=chosen)
    if (kind == "csv" and form in ("complex", "matrix")) or (kind, form) == (
        "safetensors",
        "complex",
    ):
        rule = f"cannot hold the {form} form as {kind} (npy can; CSV: --form half)"
        raise ParameterError("output" if fmt is None else "format", rule, output)
    return kind
