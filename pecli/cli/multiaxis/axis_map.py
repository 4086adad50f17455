"""``pecli rope axis-map``: which axis drives each rotary pair, with ω and λ, or the presets."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...io import text, writing
from ...io.reports import say_written
from ...io.targets import PlotOutputs
from ..json_report import ReportFormatOpt, ReportOutput
from ..options import Quiet, plot_options
from ..rope.app import report_kind, rope_app
from .options import AxisLayoutOpt, HeadDimOpt, PresetOpt, ThetaOpt, WidthsOpt, plan_of

if TYPE_CHECKING:  # pragma: no cover
    from ...core.multiaxis.plan import AxisPlan
    from ...core.multiaxis.resolve import Preset


@rope_app.command("axis-map")
def axis_map_command(
    preset: PresetOpt = None,
    head_dim: HeadDimOpt = None,
    widths: WidthsOpt = None,
    theta: ThetaOpt = None,
    layout: AxisLayoutOpt = None,
    fmt: ReportFormatOpt = None,
    output: ReportOutput = "-",
    quiet: Quiet = False,
) -> None:
    """The channel → axis map of a multi-axis rotary embedding, one row per rotary pair.

    Per pair: its two channels, the axis, k and D of ω = θ^(-2k/D), θ, ω and the wavelength
    λ = 2π/ω. Without --preset or --widths: the presets, each with its source and compute dtype.

    Example: pecli rope axis-map --preset wan --format csv
    """
    from ...core.multiaxis.resolve import plan_columns, preset_columns

    kind = report_kind(output, fmt)
    if preset is None and widths is None:
        columns, lines = preset_columns(), []
    else:
        plan, chosen = plan_of(preset, head_dim, widths, theta, layout)
        _check_table_size(plan.pairs, kind, "head_dim" if widths is None else "widths")
        columns, lines = plan_columns(plan), _summary(plan, chosen)
    if kind != "table":
        writing.write_records(columns, output=output, fmt=kind)
    else:
        text.show(*lines, _table(columns), output=output)
    say_written(output, quiet=quiet)


#: Most pairs drawn as a table (about 3 s); CSV and JSON take any number.
MAX_TABLE_PAIRS = 4096


def _check_table_size(pairs: int, kind: str, parameter: str) -> None:
    """A table of more pairs than :data:`MAX_TABLE_PAIRS` takes minutes: ask for CSV."""
    if kind == "table" and pairs > MAX_TABLE_PAIRS:
        from ...core.errors import ParameterError

        rule = f"gives at most {MAX_TABLE_PAIRS} pairs as a table: give --format csv or -o NAME.csv"
        raise ParameterError(parameter, rule, f"{pairs} pairs")


def _counts(plan: AxisPlan) -> str:
    """``t 8, h 12, w 12``: the pairs of each axis; padding pairs (``D = 0``, LTX) apart."""
    turned = [a for a, d in zip(plan.axis, plan.denominator, strict=True) if d]
    padding = plan.pairs - len(turned)
    counts = [f"{a} {turned.count(i)}" for i, a in enumerate(plan.axes)]
    return ", ".join(counts + ([f"padding {padding}"] if padding else []))


def _summary(plan: AxisPlan, chosen: Preset | None) -> list[str]:
    lines = [f"{plan.pairs} pairs ({_counts(plan)}), layout {plan.layout}: {plan.strip()}"]
    if chosen is not None:
        lines.insert(0, f"{chosen.title}; computed in {chosen.dtype}. Source: {chosen.source}")
    return lines


def _table(columns: dict[str, np.ndarray]) -> Any:
    table = text.Columns()
    for name in columns:
        table.add_column(name, justify="right" if columns[name].dtype.kind in "iuf" else "left")
    for row in zip(*columns.values(), strict=True):
        table.add_row(*(f"{v:.10g}" if isinstance(v, np.floating) else str(v) for v in row))
    return table


@rope_app.command("plot-axes")
@plot_options("axes.png")
def plot_axes_command(
    preset: PresetOpt = None,
    head_dim: HeadDimOpt = None,
    widths: WidthsOpt = None,
    theta: ThetaOpt = None,
    layout: AxisLayoutOpt = None,
    *,
    plot: PlotOutputs,
) -> None:
    """Draw the channel → axis map: which axis turns each rotary pair, and its wavelength.

    The strip colours each pair by its position axis; below, each pair's λ = 2π/ω on a log
    scale (a schedule per axis restarts at 2π on each axis). Writes axes.png without -o;
    --data also writes the pairs' table (pair, k, D, ω, λ; axis as its index).

    Example: pecli rope plot-axes --preset qwen3-vl -o qwen3-vl.png
    """
    from ...core.multiaxis.resolve import plan_columns, plan_data
    from .._app import figures

    default = "wan" if widths is None else None
    plan, chosen = plan_of(preset or default, head_dim, widths, theta, layout)
    columns = plan_columns(plan)
    thetas = "/".join(f"{t:g}" for t in dict.fromkeys(plan.theta))
    name = chosen.name if chosen else f"widths {widths}"
    title = f"{name}: pairs {_counts(plan)}; θ {thetas}; {plan.layout}"
    build = figures("axes").axis_map_figure
    plot.write(lambda: build(columns, title=title, size=plot.size, dpi=plot.dpi), *plan_data(plan))
