"""The article's sine curves (docs/figures.md#sine-curves): one axes, or one panel per pair.

Importing this module imports matplotlib, so the command line imports it only when plotting.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ...core.errors import ParameterError
from ...core.sinusoidal.frequencies import DEFAULT_BASE, angular_frequencies, wavelengths
from ..style import legend_outside, new_figure, number_label

__all__ = [
    "ARTICLE_PAIRS",
    "MAX_WAVE_PAIRS",
    "MAX_WAVE_POINTS",
    "default_pairs",
    "wave_curves",
    "waves_figure",
]

#: Largest number of sample positions of a wave plot.
MAX_WAVE_POINTS = 1_000_000
#: Most pairs in one figure: their legend (two columns) or panels still fit it.
MAX_WAVE_PAIRS = 32
#: The article's pairs i, at d = 512 (its first figure).
ARTICLE_PAIRS = (1, 10, 50, 100)


def default_pairs(d: int) -> list[int]:
    """The article's pairs scaled to ``d``: same wavelengths as at d = 512, all within d/2.

    Pair ``i`` has the wavelength ``2π·C^((i-1)/(d/2))``; at ``d = 512`` the exponent is
    ``(i - 1)/256``, so ``1 + round((i - 1)·(d/2)/256)`` keeps it at any ``d``. Repeats move
    up by one, and pairs beyond ``d/2`` are dropped.

    >>> default_pairs(512), default_pairs(1024), default_pairs(64), default_pairs(4)
    ([1, 10, 50, 100], [1, 19, 99, 199], [1, 2, 7, 13], [1, 2])
    """
    h = d // 2
    pairs: list[int] = []
    for i in ARTICLE_PAIRS:
        scaled = max(1 + round((i - 1) * h / 256), pairs[-1] + 1 if pairs else 1)
        if scaled <= h:
            pairs.append(scaled)
    return pairs


def wave_curves(
    positions: np.ndarray,
    *,
    d: int,
    pairs: list[int],
    base: float = DEFAULT_BASE,
    schedule: str = "paper",
) -> np.ndarray:
    """The sine component of each pair against position (docs/figures.md#sine-curves).

    Parameters
    ----------
    positions : numpy.ndarray
        Real positions, shape ``(m,)``.
    d : int, keyword-only
        Width of the encoding, even and >= 2.
    pairs : list of int, keyword-only
        Pair indices ``i`` (1-based, ``1 <= i <= d/2``).
    base : float, keyword-only
        The base ``C``.
    schedule : str, keyword-only
        Frequency schedule (``paper``, ``tensor2tensor``, ``shift:S``).

    Returns
    -------
    numpy.ndarray
        Shape ``(m, len(pairs))``, float64: column ``k`` is ``pe(pos)[2 i_k - 1]``.

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an invalid ``d``, ``base``, a pair outside ``1 … d/2`` or
        more than :data:`MAX_WAVE_PAIRS` pairs.

    Examples
    --------
    >>> wave_curves(np.array([0.0, 100.0]), d=512, pairs=[1, 100]).round(10)
    array([[ 0.        ,  0.        ],
           [-0.50636564,  0.2982481 ]])

    """
    omega = angular_frequencies(d, base=base, schedule=schedule)
    for i in pairs:
        if not 1 <= i <= d // 2:
            raise ParameterError("pairs", f"must be between 1 and d/2 = {d // 2}", i)
    if not 1 <= len(pairs) <= MAX_WAVE_PAIRS:
        rule = f"must name 1 to {MAX_WAVE_PAIRS} pairs in one figure (their legend must fit)"
        raise ParameterError("pairs", rule, f"{len(pairs)} pairs")
    pos = np.asarray(positions, dtype=np.float64)
    curves: np.ndarray = np.sin(pos[:, None] * omega[[i - 1 for i in pairs]][None, :])
    return curves


def waves_figure(
    positions: np.ndarray,
    curves: np.ndarray,
    *,
    pairs: list[int],
    d: int,
    base: float,
    schedule: str = "paper",
    layout: str = "interleaved",
    panels: bool = False,
    size: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """Line plot of :func:`wave_curves`: one axes with a legend, or one panel per pair.

    Parameters
    ----------
    positions : numpy.ndarray
        Shape ``(m,)``, the x values.
    curves : numpy.ndarray
        Shape ``(m, len(pairs))``, the y values in ``[-1, 1]``.
    pairs, d, base, schedule : keyword-only
        As given to :func:`wave_curves`; for the legend and title.
    layout : str, keyword-only
        The layout, for the y label (the component number of a sine depends on it).
    panels : bool, keyword-only
        One axes per pair, stacked with a shared x axis, each naming its ``i`` and ``λ_i``
        (``plot-waves``' default: in one axes, pairs 1 and 10 at d = 512, 6.3 and 8.7
        positions a period, merge into one band over 250 positions); False, all in one.
    size, dpi : keyword-only
        Inches and dots per inch (:func:`pecli.figures.style.new_figure`); by default
        9 × 4.5 in, or 0.9 in per panel (at least 4.5), at 100 dpi.

    Returns
    -------
    matplotlib.figure.Figure
        ``axes[0]`` holds the lines in order (or ``axes[k]`` the line of pair ``k``).

    """
    tall = (9.0, max(4.5, 0.9 * len(pairs) + 0.6))
    fig = new_figure(size, dpi, default_size=tall if panels else (9.0, 4.5))
    rows = len(pairs) if panels else 1
    axes: list[Axes] = list(fig.subplots(rows, 1, sharex=True, squeeze=False)[:, 0])
    lam = wavelengths(d, base=base, schedule=schedule)
    colours = _colours(len(pairs))
    for column, i in enumerate(pairs):
        ax = axes[column if panels else 0]
        label = f"i = {i} (λ = {number_label(lam[i - 1])})"
        ax.plot(positions, curves[:, column], label=label, linewidth=1.2, color=colours[column])
        ax.set_ylim(-1.1, 1.1)
        ax.grid(alpha=0.3)
        if panels:
            ax.text(
                1.01,
                0.5,
                label.replace(" (", "\n("),
                transform=ax.transAxes,
                va="center",
                fontsize="small",
            )
    _decorate(axes, positions, d=d, base=base, schedule=schedule, layout=layout)
    if not panels:
        legend_outside(axes[0], title="pair")
    return fig


def _colours(count: int) -> list[object]:
    """The ten colours of the default cycle; more lines get distinct colours from viridis."""
    if count <= 10:
        return [f"C{k}" for k in range(count)]
    from matplotlib import colormaps

    return [colormaps["viridis"](k / (count - 1)) for k in range(count)]


def _decorate(
    axes: list[Axes], positions: np.ndarray, *, d: int, base: float, schedule: str, layout: str
) -> None:
    """Limits, labels and title of the waves figure (the title on the top axes)."""
    axes[0].set_xlim(positions[0], positions[-1])
    axes[-1].set_xlabel("position")
    component = {"interleaved": "2i-1", "sin-cos": "i", "cos-sin": "d/2+i"}[layout]
    label = rf"$pe(pos)_{{{component}}} = \sin(pos\,\omega_i)$"
    if len(axes) == 1:
        axes[0].set_ylabel(label)
    else:
        axes[0].figure.supylabel(label)  # type: ignore[union-attr]
    extra = "" if schedule == "paper" else f", {schedule} schedule"
    title = f"Sine components of the positional encoding, d = {d}, C = {base:g}{extra}"
    axes[0].set_title(title)
