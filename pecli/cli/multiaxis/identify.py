"""``pecli rope identify-axes``: which multi-axis rotary embedding made a cache, or what differs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from ...core.errors import ParameterError
from ...io import writing
from .. import text as rich_text
from ..json_report import FormatOpt, Output
from ..options import Quiet
from ..progress import say_written
from ..rope.app import report_kind, rope_app
from .axes import FpsOpt, GridOpt, HeadDimOpt, IdsOpt, PresetOpt, TextOpt
from .mrope import Release, ReleaseOpt, TokensOpt, TokensPerSecondOpt

if TYPE_CHECKING:  # pragma: no cover
    from ...analysis.multiaxis.compare import Comparison
    from ...analysis.multiaxis.reading import AxesReading
    from ...core.multiaxis.plan import AxisPlan

#: A cache's cos and sin ``(n, width)``, and whether they are a complex freqs_cis's.
Cache = tuple[np.ndarray, np.ndarray, bool]
#: (preset name, plan, ids) of one candidate.
Candidate = tuple[str, "AxisPlan", np.ndarray]

FileArg = Annotated[
    str,
    typer.Argument(
        help="The cache: a .npy or CSV table [cos | sin] (pecli rope axes' default), a complex "
        ".npy freqs_cis (tokens, pairs), or a .safetensors file with tensors cos and sin."
    ),
]


@rope_app.command("identify-axes")
def identify_axes_command(
    file: FileArg,
    preset: PresetOpt = None,
    head_dim: HeadDimOpt = None,
    grid: GridOpt = None,
    text: TextOpt = 0,
    ids: IdsOpt = None,
    tokens: TokensOpt = None,
    release: ReleaseOpt = Release.v5_24,
    tokens_per_second: TokensPerSecondOpt = 2,
    fmt: FormatOpt = None,
    output: Output = "-",
    quiet: Quiet = False,
    fps: FpsOpt = None,
) -> None:
    """Which multi-axis rotary embedding made a cache: layout, axis of each pair, θ per axis.

    The tokens' ids come as for pecli rope axes: --grid (and --text), --tokens, or --ids.
    Every preset that fits the cache's width and these ids is tried (only --preset, if
    given); each verdict says it matches, and in which arithmetic (exact, float64 or float32
    steps), or what differs: (a) a shared or per-axis schedule, (b/d) the channel → axis map,
    (c) the layout, θ per axis, (e) the position ids. Exit status 1 when none matches.

    Example: pecli rope identify-axes flux.npy --grid 4x4 --text 3
    """
    kind = report_kind(output, fmt, ("json",))
    cache = (*_read_cache(file), _is_complex(file))
    _, c, _ = _pairs(cache, None)  # refuses a table that pairs no channels
    given = {
        "grid": grid,
        "text": text,
        "tokens": tokens,
        "release": release.value,
        "tokens_per_second": tokens_per_second,
        "fps": fps,
    }
    candidates = _candidates(preset, head_dim, c.shape, given, _read_ids(ids, output))
    verdicts = {name: _verdict(cache, plan, i) for name, plan, i in candidates}
    best = next((k for k, (name, *_) in enumerate(candidates) if verdicts[name].matches), 0)
    _, plan, token_ids = candidates[best]
    _report(_reading(cache, plan, token_ids), plan, verdicts, kind, output)
    say_written(output, quiet=quiet)
    if not any(v.matches for v in verdicts.values()):
        raise typer.Exit(1)


def _pairs(cache: Cache, plan: AxisPlan | None) -> tuple[str, np.ndarray, np.ndarray]:
    """The layout and per-pair cos and sin; the plan's layout when both layouts fit."""
    from ...analysis.multiaxis.reading import pair_values

    cos, sin, is_complex = cache
    return (
        ("complex", cos, sin)
        if is_complex
        else pair_values(cos, sin, plan.layout if plan else None)
    )


def _reading(cache: Cache, plan: AxisPlan, ids: np.ndarray) -> AxesReading:
    """The cache read with these ids, in the plan's layout where both fit."""
    from ...analysis.multiaxis.reading import read_axes

    layout, c, s = _pairs(cache, plan)
    return read_axes(c, s, ids, layout=layout)


def _verdict(cache: Cache, plan: AxisPlan, ids: np.ndarray) -> Comparison:
    """The cache against one candidate: it matches, or what differs."""
    from ...analysis.multiaxis.compare import compare_to_plan
    from ...analysis.multiaxis.reading import read_axes

    layout, c, s = _pairs(cache, plan)  # once: it reads the whole cache as float64
    return compare_to_plan(read_axes(c, s, ids, layout=layout), plan, ids, (c, s))


def _read_cache(file: str) -> tuple[np.ndarray, np.ndarray]:
    """Cos and sin ``(n, width)`` from a [cos | sin] table or a .safetensors file."""
    from ...io.reading import check_source
    from ...io.tensors import ARRAY_FORMATS

    check_source(file, parameter="file", formats=ARRAY_FORMATS)
    if file.lower().endswith(".safetensors"):
        from ...io.tensors import read_safetensors

        tensors = read_safetensors(file, parameter="file")[0]
        if not {"cos", "sin"} <= set(tensors):
            raise ParameterError("file", "must hold tensors cos and sin", sorted(tensors))
        return tensors["cos"].astype(np.float64), tensors["sin"].astype(np.float64)
    if _is_complex(file):  # freqs_cis: cos + i·sin per pair, no layout
        z = np.load(file, allow_pickle=False)
        if z.ndim != 2:
            raise ParameterError("file", "must be a 2-D complex freqs_cis (tokens, pairs)", z.shape)
        return z.real.astype(np.float64), z.imag.astype(np.float64)
    from ...io.reading import read_table

    table = read_table(file, parameter="file").astype(np.float64)
    if table.shape[1] % 4:
        raise ParameterError("file", "must be a [cos | sin] table, 4·pairs columns", table.shape)
    return table[:, : table.shape[1] // 2], table[:, table.shape[1] // 2 :]


def _is_complex(file: str) -> bool:
    """A .npy file of complex numbers (Meta's, Llama 4's, Qwen-Image's freqs_cis)."""
    if not file.lower().endswith(".npy"):
        return False
    try:
        with open(file, "rb") as handle:
            version = np.lib.format.read_magic(handle)
            read = {(1, 0): np.lib.format.read_array_header_1_0}.get(
                version, np.lib.format.read_array_header_2_0
            )
            dtype = read(handle)[2]
    except (OSError, ValueError):
        return False
    return np.dtype(dtype).kind == "c"


def _read_ids(ids: str | None, output: str) -> np.ndarray | None:
    if ids is None:
        return None
    from ...io.reading import read_table

    return read_table(ids, parameter="ids").astype(np.float64)


def _candidates(
    preset: str | None,
    head_dim: int | None,
    shape: tuple[int, ...],
    given: dict[str, Any],
    ids: np.ndarray | None,
) -> list[Candidate]:
    """The presets that fit the cache's width and rows with these ids (the named one only)."""
    from ...core.multiaxis import AXIS_PRESETS
    from ...core.multiaxis.mrope_presets import MROPE_PRESETS
    from ...core.multiaxis.resolve import check_id_options, resolve_ids, resolve_plan

    check_id_options(head_dim=head_dim, **given)  # a value no preset takes is named, not "fits"
    names = [preset] if preset else [*AXIS_PRESETS, *MROPE_PRESETS]
    found, last = [], None
    for name in names:
        try:
            plan, chosen = resolve_plan(name, head_dim=head_dim or 2 * shape[1])
            source = resolve_ids(plan, chosen, ids=ids, **given)
        except ParameterError as error:
            last = error
            continue
        if source.n == shape[0] and (plan.pairs == shape[1] or preset):
            found.append((str(getattr(chosen, "name", name)), plan, source.rows(0, source.n)))
    if not found:
        if preset and last is not None:
            raise last
        rule = f"fits no preset of width {2 * shape[1]} with these ids ({shape[0]} rows)"
        raise ParameterError("file", rule, "none")
    return found


def _report(
    reading: AxesReading, plan: AxisPlan, verdicts: dict[str, Comparison], kind: str, output: str
) -> None:
    """The reading, then one verdict per candidate preset."""
    thetas = {plan.axes[int(a)]: round(t, 6) for a, t in reading.theta.items()}
    presets = {
        name: {"matches": v.matches, "arithmetic": v.arithmetic, "differences": v.differences}
        for name, v in verdicts.items()
    }
    record = {
        "layout": reading.layout,
        "pairs": len(reading.axis),
        "schedule": reading.schedule,
        "theta": thetas,
        "channel_axis": reading.strip(plan.axes),
        "notes": reading.notes,
        "presets": presets,
    }
    if kind == "json":
        return writing.write_json(record, output=output)
    lines = [
        f"layout {reading.layout}, {len(reading.axis)} pairs, {reading.schedule} schedule, "
        f"θ {', '.join(f'{a} {t:.6g}' for a, t in thetas.items()) or 'not fitted'}",
        f"channel → axis: {record['channel_axis']}  (? = not turned by these ids)",
        *[f"note: {n}" for n in reading.notes],
    ]
    for name, v in verdicts.items():
        state = f"matches ({v.arithmetic} arithmetic)" if v.matches else "differs"
        lines += [f"{name}: {state}", *[f"  {d}" for d in v.differences]]
    rich_text.show(*lines, output=output)
