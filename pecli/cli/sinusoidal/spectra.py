"""``pecli plot-similarity`` and ``pecli plot-spectrum``: the encoding's offsets and wavelengths.

Both draw one curve per (convention or schedule) × base (docs/figures.md); with the RoPE
options, ``plot-spectrum`` draws a rotary embedding's wavelengths before and after its scaling,
with the bands the scaling left unchanged, smoothed or interpolated. matplotlib is imported
inside the commands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import numpy as np
import typer

from ...core.errors import ParameterError
from ...core.rules import check_d
from ...io.targets import PlotOutputs
from .._app import app
from .._app import figures as load_figures
from ..options import EvenD, plot_options
from ..rope.options import rope_spec_options
from .options import Bases, Conventions, Schedules

if TYPE_CHECKING:  # pragma: no cover
    from ...core.rope import RopeSpec

#: Most cosines per figure (offsets × pairs, a few seconds).
MAX_WORK = 1 << 28


@app.command("plot-similarity")
@plot_options("similarity.png")
def plot_similarity(
    d: EvenD = 512,
    convention: Conventions = None,
    schedule: Schedules = None,
    base: Bases = None,
    max_offset: Annotated[
        int, typer.Option("--max-offset", help="Largest offset k drawn (from 0), 1 to 1000000.")
    ] = 200,
    threshold: Annotated[
        float, typer.Option("--threshold", help="Similarity marked, with each curve's first k.")
    ] = 0.5,
    *,
    plot: PlotOutputs,
) -> None:
    """Draw the similarity pe(p)·pe(p+k) / (|pe(p)| |pe(p+k)|) against the offset k.

    It does not depend on p (nor on the layout or first position): (2/d)·Σ cos(k ω_i).
    One curve per --convention or --schedule and --base (each repeatable); the legend
    names each curve's first k below --threshold. Writes similarity.png without -o.

    Example: pecli plot-similarity --d 512 --base 100 --base 10000 -o similarity.svg
    """
    from ...core.sinusoidal.similarity import offset_similarity

    d = check_d(d)  # even: every pair is a sine and a cosine (no --odd-d here)
    if not -1 <= threshold <= 1:  # NaN fails too
        raise ParameterError("threshold", "must be a similarity from -1 to 1", threshold)
    curves = load_figures("sinusoidal.curves")
    wanted = curves.curves_asked(convention, schedule, base)
    if not 1 <= max_offset <= 1_000_000 or max_offset * (d // 2) > MAX_WORK:
        rule = f"must be an integer from 1 to 1000000, and --max-offset × d/2 at most {MAX_WORK}"
        raise ParameterError("max_offset", rule, max_offset)
    k = np.arange(max_offset + 1, dtype=np.float64)
    values = {label: offset_similarity(k, d, base=c, schedule=s) for label, s, c in wanted}
    figure = load_figures("sinusoidal.similarity")
    look = {"d": d, "threshold": threshold, "size": plot.size, "dpi": plot.dpi}
    plot.write(
        lambda: figure.similarity_figure(k, values, **look),
        np.column_stack([k, *values.values()]),
        ["offset", *map(curves.column_name, values)],
    )


Context = Annotated[
    float | None,
    typer.Option(
        "--context",
        help="Context length L drawn as a line (positions, > 0). "
        "[default: none; with RoPE options, --original-max-position-embeddings]",
        show_default=False,
    ),
]


@app.command("plot-spectrum")
@rope_spec_options(optional=True)
@plot_options("spectrum.png")
def plot_spectrum(
    d: EvenD = 512,
    convention: Conventions = None,
    schedule: Schedules = None,
    base: Bases = None,
    context: Context = None,
    *,
    plot: PlotOutputs,
    rope: tuple[RopeSpec, list[str]] | None,
) -> None:
    """Draw the wavelength λ_i = 2π/ω_i of every pair i on a log scale.

    One curve per --convention or --schedule and --base (each repeatable); --context draws
    a context length and counts the pairs whose wavelength exceeds it. Writes spectrum.png
    without -o; --data also exports pair and one wavelength column per curve. With the RoPE
    options (--rope-type, --theta, --head-dim, --factor, …, or --rope-config) it draws a rotary
    embedding's wavelengths after its scaling beside the unscaled ones, and shades the pairs
    the scaling left unchanged, smoothed or interpolated.

    Example: pecli plot-spectrum --d 128 --base 10000 --base 500000 --context 4096;
    pecli plot-spectrum --rope-type llama3 --theta 500000 --factor 8 --low-freq-factor 1
    --high-freq-factor 4 --original-max-position-embeddings 8192
    """
    from ...core.sinusoidal.frequencies import wavelengths

    if context is not None and not 0 < context < float("inf"):
        raise ParameterError("context", "must be a finite number of positions > 0", context)
    if rope is not None:
        _not_with_rope(d, convention, schedule, base)
        return _rope_spectrum(rope[0], plot, context)
    curves = load_figures("sinusoidal.curves")
    wanted = curves.curves_asked(convention, schedule, base)
    lams = {label: wavelengths(d, base=c, schedule=s) for label, s, c in wanted}
    figure = load_figures("sinusoidal.spectrum")
    look = {"d": d, "context": context, "size": plot.size, "dpi": plot.dpi}
    plot.write(
        lambda: figure.spectrum_figure(lams, **look),
        np.column_stack([np.arange(1, d // 2 + 1), *lams.values()]),
        ["pair", *map(curves.column_name, lams)],
    )


def _not_with_rope(d: int, *given: Sequence[object] | None) -> None:
    """The encoding's options have no meaning beside the RoPE ones."""
    if any(given):
        rule = "does not apply with the RoPE options (--theta is the base, --head-dim the width)"
        raise ParameterError("convention", rule, "--convention/--schedule/--base")
    if d != 512:
        raise ParameterError("d", "is not used with the RoPE options: give --head-dim", d)


def _rope_spectrum(spec: RopeSpec, plot: PlotOutputs, context: float | None) -> None:
    """RoPE wavelengths before and after the scaling, the scaling's bands shaded (pairs from 0)."""
    from ...core.rope import rope_frequencies

    freqs = rope_frequencies(spec)
    curves, table, columns = load_figures("sinusoidal.curves").rope_wavelengths(freqs)
    context = context or spec.original_max_position_embeddings
    title = f"RoPE wavelengths, {spec.rope_type} scaling, rotated width {spec.rotary_dim}"
    look = {"context": context, "size": plot.size, "dpi": plot.dpi, "title": title, "first_pair": 0}
    figure = load_figures("sinusoidal.spectrum")
    plot.write(
        lambda: figure.spectrum_figure(
            curves, d=spec.rotary_dim, bands=list(freqs.scaling), **look
        ),
        table,
        columns,
    )
