"""``pecli rope identify-axes``: which multi-axis rotary embedding made a cache, or what differs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from ...io import text as rich_text
from ...io import writing
from ...io.reports import say_written
from ..json_report import FormatOpt, Output
from ..options import Quiet
from ..rope.app import report_kind, rope_app
from .options import (
    AxesConfigOpt,
    FpsOpt,
    GridOpt,
    HeadDimOpt,
    IdsOpt,
    LayoutMergeOpt,
    LayoutReleaseOpt,
    PatchOpt,
    PresetOpt,
    ScaleFactorOpt,
    TextOpt,
    TokensOpt,
    TokensPerSecondOpt,
    grid_of,
    layout_rules,
    preset_or_config,
    read_ids,
)

if TYPE_CHECKING:  # pragma: no cover
    from ...analysis.multiaxis.identify import AxesIdentification

FileArg = Annotated[
    str,
    typer.Argument(
        help="The cache: a .npy or CSV table [cos | sin] (pecli rope axes' default), a complex "
        ".npy freqs_cis (tokens, pairs), or a .safetensors or .npz file with tensors cos and "
        "sin."
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
    release: LayoutReleaseOpt = None,
    tokens_per_second: TokensPerSecondOpt = None,
    spatial_merge_size: LayoutMergeOpt = None,
    fmt: FormatOpt = None,
    output: Output = "-",
    quiet: Quiet = False,
    fps: FpsOpt = None,
    patch: PatchOpt = None,
    config: AxesConfigOpt = None,
    scale_factor: ScaleFactorOpt = None,
) -> None:
    """Which multi-axis rotary embedding made a cache: layout, axis of each pair, θ per axis.

    The tokens' ids come as for pecli rope axes (--config: a VL model's config.json as the
    one preset to try): --grid (and --text; --patch: a latent's
    size), --tokens, or --ids.
    Every preset that fits the cache's width and these ids is tried (only --preset, if
    given); each verdict says it matches, and in which arithmetic (exact, float64 or float32
    steps), or what differs: (a) a shared or per-axis schedule, (b/d) the channel → axis map,
    (c) the layout, θ per axis, (e) the position ids. Exit status 1 when none matches.

    Example: pecli rope identify-axes flux.npy --grid 4x4 --text 3
    """
    from ...analysis.multiaxis.identify import cache_pairs, identify_axes
    from ...io.reading.arrays import ANY_FORMATS, read_arrays

    kind = report_kind(output, fmt, ("json",))
    formats = ANY_FORMATS[:-1]  # a GGUF file holds no cache
    cache = cache_pairs(read_arrays(file, formats=formats, table=True)[0])
    given = {
        "grid": grid,
        "text": text,
        "fps": fps,
        "patch": patch,  # --grid is then a latent size, each preset's own patch with model
        "scale_factor": scale_factor,
        **layout_rules(tokens, release, tokens_per_second, spatial_merge_size),
    }
    found = identify_axes(
        cache,
        preset=preset_or_config(preset, config),
        head_dim=head_dim,
        ids=read_ids(ids, output),
        **grid_of(given),
    )
    _report(found, kind, output)
    say_written(output, quiet=quiet)
    if not found.matches:
        raise typer.Exit(1)


def _report(found: AxesIdentification, kind: str, output: str) -> None:
    """The reading, then one verdict per candidate preset."""
    record = found.record()
    if kind == "json":
        return writing.write_json(record, output=output)
    reading, thetas = found.reading, record["theta"]
    lines = [
        f"layout {reading.layout}, {len(reading.axis)} pairs, {reading.schedule} schedule, "
        f"θ {', '.join(f'{a} {t:.6g}' for a, t in thetas.items()) or 'not fitted'}",
        f"channel → axis: {record['channel_axis']}  (? = not turned by these ids)",
        *[f"note: {n}" for n in reading.notes],
    ]
    for name, v in found.verdicts.items():
        state = f"matches ({v.arithmetic} arithmetic)" if v.matches else "differs"
        lines += [f"{name}: {state}", *[f"  {d}" for d in v.differences]]
    rich_text.show(*lines, output=output)
