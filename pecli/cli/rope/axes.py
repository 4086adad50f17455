"""``pecli rope axes``: the cache of a multi-axis rotary embedding (FLUX, Wan, Pixtral, …)."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np

from ...core.errors import ParameterError
from ...core.rules import check_checkpoint_table, check_table_dtype
from ...io import formats
from ..options import (
    COMPUTE_FORMATS,
    ComputeOutput,
    FormatOpt,
    Header,
    Quiet,
    TableDtype,
    TableDtypeOpt,
)
from ..progress import say_written, write_streamed
from .app import rope_app
from .axes_output import axes_metadata, write_tensors
from .mrope import Release, ReleaseOpt, TokensOpt, TokensPerSecondOpt, _option
from .options import Part

if TYPE_CHECKING:  # pragma: no cover
    from ...core.rope.multiaxis.cache import IdSource
    from ...core.rope.multiaxis.plan import AxisPlan


class Form(StrEnum):
    """What each row of the cache holds."""

    full = "full"
    half = "half"
    complex = "complex"
    matrix = "matrix"


class AxisArithmetic(StrEnum):
    """Exact, or a model's compute dtype."""

    exact = "exact"
    model = "model"
    float64 = "float64"
    float32 = "float32"


PresetOpt = Annotated[
    str | None,
    _option(
        "--preset",
        "flux, flux2, hunyuanvideo, wan, cogvideox, "
        "allegro, cosmos, qwen-image, pixtral, llama4-vision, rope-vit-axial, lucidrains-axial, "
        "qwen2-vl, qwen2.5-vl, qwen3-vl or qwen3.5 (pecli rope axis-map lists them).",
    ),
]
HeadDimOpt = Annotated[
    int | None,
    _option(
        "--head-dim", "Head width [default: the preset's]; FLUX and HunyuanVideo fix it at 128."
    ),
]
GridOpt = Annotated[
    str | None,
    _option(
        "--grid",
        "Grid sizes, e.g. 64x64 (H W: latent patches "
        "after packing) or 21x30x52 (T H W); Llama 4 vision: one side.",
    ),
]
TextOpt = Annotated[
    int,
    _option("--text", "Text tokens before the grid (FLUX.1: ids 0; FLUX.2: 0 … L-1 on axis l)."),
]
IdsOpt = Annotated[
    str | None,
    _option(
        "--ids",
        "A .npy or CSV file of ids, one row per token, "
        "one column per axis (any finite numbers); replaces --grid.",
    ),
]
WidthsOpt = Annotated[
    str | None,
    _option(
        "--widths",
        "Without --preset: rotated channels per "
        "axis, e.g. 16,56,56 (a schedule per axis over its width).",
    ),
]
ThetaOpt = Annotated[
    str | None, _option("--theta", "θ, or one per axis (10000,256,256); overrides a preset's.")
]
AxisLayoutOpt = Annotated[
    str | None,
    _option(
        "--layout",
        "interleaved (2j, 2j+1), half-split (j, j+h) or half-split-per-axis; overrides a preset's.",
    ),
]
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
FpsOpt = Annotated[
    float | None,
    _option("--fps", "Cosmos videos: frames at k/fps·24 (base_fps 24); images without it."),
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
    release: ReleaseOpt = Release.v5_24,
    tokens_per_second: TokensPerSecondOpt = 2,
    fps: FpsOpt = None,
) -> None:
    """Cos and sin of a multi-axis rotary embedding, one row per token, exact.

    Pair j turns by pos[axis(j)]·ω_j (pecli rope axis-map shows which axis and ω). Ids come
    from the preset and --grid (and --text), a Qwen-VL preset and --tokens, or --ids. Angles
    are exact and every value is rounded once to --dtype; --arithmetic model repeats the
    model's own float64 or float32 steps. Streamed in row blocks to CSV or npy;
    -o NAME.safetensors holds tensors cos and sin (or rotation) with the plan as metadata.

    Example: pecli rope axes --preset flux --grid 2x3 --text 2 --form half --format csv
    """
    from ...core.rope.multiaxis import axes_cache_blocks
    from ...core.rope.multiaxis.resolve import resolve_plan

    plan, chosen = resolve_plan(
        preset, head_dim=head_dim, widths=widths, theta=theta, layout=layout
    )
    kind, stored = _output_kind(output, fmt, form.value), check_table_dtype(dtype.value)
    source = _ids(
        plan,
        chosen,
        output,
        grid=grid,
        text=text,
        ids=ids,
        tokens=tokens,
        fps=fps,
        release=release.value,
        tokens_per_second=tokens_per_second,
    )
    model = chosen.dtype if chosen else "float64"
    mode = model if arithmetic is AxisArithmetic.model else arithmetic.value
    blocks = axes_cache_blocks(
        plan, source, form=form.value, part=part.value, dtype=stored, arithmetic=mode
    )
    shape, columns = _shape(plan, source.n, form.value, part.value)
    check_checkpoint_table(source.n, int(np.prod(shape[1:])), stored, kind)
    if kind == "safetensors":
        meta = axes_metadata(plan, chosen, form=form.value, arithmetic=mode, dtype=stored.name)
        write_tensors(blocks, output=output, names=_names(form.value, part.value), meta=meta)
        return say_written(output, quiet=quiet)
    write_streamed(
        blocks,
        output=output,
        fmt=kind,
        shape=shape,
        dtype=_stored(stored, form.value),
        columns=columns,
        header=header,
        quiet=quiet,
        description="rope axes",
        size=_size(kind, shape, stored, form.value),
    )


def _names(form: str, part: str) -> tuple[str, ...]:
    """Tensor names of a .safetensors output."""
    if form == "matrix":
        return ("rotation",)
    return ("cos", "sin") if part == "both" else (part,)


def _output_kind(output: str, fmt: FormatOpt, form: str) -> str:
    kind = formats.resolve_format(output, fmt.value if fmt else None, suffixes=COMPUTE_FORMATS)
    formats.check_output(output, kind)
    if (kind == "csv" and form in ("complex", "matrix")) or (kind, form) == (
        "safetensors",
        "complex",
    ):
        rule = f"cannot hold the {form} form as {kind} (npy can; CSV: --form half)"
        raise ParameterError("output" if fmt is None else "format", rule, output)
    return kind


def _ids(plan: AxisPlan, chosen: object, output: str, *, ids: str | None, **given: Any) -> IdSource:
    """The id source: the --ids file (never the output), a grid or a token layout."""
    from ...core.rope.multiaxis.resolve import resolve_ids

    array = None
    if ids is not None:
        from ...io.paths import check_not_input
        from ...io.reading import read_table

        check_not_input(output, (ids,))
        array = read_table(ids, parameter="ids").astype(np.float64)
    return resolve_ids(plan, chosen, ids=array, **given)  # type: ignore[arg-type]


def _shape(plan: AxisPlan, n: int, form: str, part: str) -> tuple[tuple[int, ...], list[str]]:
    names = ("cos", "sin") if part == "both" else (part,)
    width = plan.rotary_dim if form == "full" else plan.pairs
    if form == "complex":
        return (n, plan.pairs), [f"pair_{j}" for j in range(plan.pairs)]
    if form == "matrix":
        return (n, plan.pairs, 2, 2), []
    return (n, width * len(names)), [f"{name}_{k}" for name in names for k in range(width)]


def _stored(stored: np.dtype, form: str) -> np.dtype:
    if form == "complex":
        return np.dtype(np.complex64 if stored.itemsize == 4 else np.complex128)
    return stored


def _size(kind: str, shape: tuple[int, ...], stored: np.dtype, form: str) -> int | None:
    """Bytes of an npy output (checked against the free room); CSV is not estimated."""
    if kind != "npy":
        return None
    return 128 + int(np.prod(shape, dtype=object)) * _stored(stored, form).itemsize
