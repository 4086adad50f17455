"""The periodicity figure: Fourier features γ(x) and a random network applied to them.

The top panel draws the features of γ over several periods; the bottom panel draws
``f(γ(x))`` for a small fixed random network ``f`` (seeded, so every build is identical),
with the period ``2π / scale`` marked: the network's output repeats because its input does.
Importing this module imports matplotlib, so the command line imports it only when plotting.

References
----------
.. [1] B. Mildenhall et al., "NeRF", ECCV 2020, §5.1.

"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ...core.errors import ParameterError
from ...core.rules import check_n
from ..style import new_figure

__all__ = ["Periodicity", "TanhNetwork", "periodicity", "periodicity_figure", "random_network"]

#: The figure's default size in inches (at 100 dpi).
FIGSIZE = (9.0, 6.0)


@dataclass(frozen=True)
class TanhNetwork:
    """A fully connected network ``R^p → R``: tanh hidden layers, a linear output.

    Attributes
    ----------
    weights, biases : tuple of numpy.ndarray
        Layer ``j`` maps ``h ↦ h @ weights[j] + biases[j]``; tanh after every layer but
        the last.

    """

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]

    def __call__(self, inputs: np.ndarray) -> np.ndarray:
        """Shape ``(N, p)`` in, ``(N,)`` float64 out."""
        h = np.asarray(inputs, dtype=np.float64)
        for j, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = h @ w + b
            if j < len(self.weights) - 1:
                h = np.tanh(h)
        out: np.ndarray = h[:, 0]
        return out


def random_network(inputs: int, *, hidden: int = 32, layers: int = 2, seed: int = 0) -> TanhNetwork:
    """A random :class:`TanhNetwork` with Gaussian weights of variance ``1 / fan_in``.

    Parameters
    ----------
    inputs : int, positional
        Input width ``p`` (``2k`` for γ with ``k`` frequencies).
    hidden, layers, seed : int, keyword-only
        Hidden width, number of hidden layers, and the seed of ``numpy.random.default_rng``.

    Examples
    --------
    >>> random_network(4, seed=1)(np.zeros((3, 4))).shape
    (3,)

    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ParameterError("seed", "must be an integer >= 0", seed)
    rng = np.random.default_rng(seed)
    widths = [check_n(inputs, "inputs"), *[check_n(hidden, "hidden")] * check_n(layers), 1]
    weights = tuple(
        rng.standard_normal((a, b)) / math.sqrt(a) for a, b in itertools.pairwise(widths)
    )
    biases = tuple(0.5 * rng.standard_normal(b) for b in widths[1:])
    return TanhNetwork(weights, biases)


def _times(frequency: float) -> str:
    """``2`` for 2, ``π`` for π, ``2π`` for 2π, ``0.5`` for 0.5: the factor before x."""
    multiple = frequency / math.pi
    if frequency != 1 and abs(multiple - round(multiple, 3)) < 1e-12:
        return "π" if math.isclose(multiple, 1) else f"{round(multiple, 3):g}π"
    return "" if frequency == 1 else f"{frequency:g}"


def _period_ticks(ax: Axes, x: np.ndarray, period: float) -> None:
    """Dotted lines at every multiple of the period inside the x range, on the given axes."""
    first, last = math.ceil(x[0] / period - 1e-9), math.floor(x[-1] / period + 1e-9)
    for j in range(first, last + 1):
        ax.axvline(j * period, color="0.4", linestyle=":", linewidth=0.9)


@dataclass(frozen=True)
class Periodicity:
    """What the figure draws: the points ``x``, γ(x), ``f(γ(x))``, the frequencies, the period."""

    x: np.ndarray
    features: np.ndarray
    output: np.ndarray
    frequencies: np.ndarray
    period: float
    columns: list[str]

    @property
    def table(self) -> np.ndarray:
        """The data of the figure: ``x``, the features and ``f``, one row per point."""
        return np.column_stack([self.x, self.features, self.output])


#: The figure's bounds: (name, least, most); points × hidden is the network's hidden layer.
PLOT_BOUNDS = (("periods", 2, 1000), ("points", 2, 100_000), ("hidden", 1, 256), ("k", 1, 64))


def periodicity(
    *,
    k: int,
    frequencies: str = "harmonic",
    scale: str = "1",
    periods: int = 3,
    points: int = 1501,
    hidden: int = 32,
    seed: int = 0,
) -> Periodicity:
    """γ(x) with ``k`` frequencies over ``periods`` periods ``2π/scale``, and ``f(γ(x))``.

    ``f`` is :func:`random_network` with ``hidden`` units a layer, seeded with ``seed``.
    Raises :class:`ParameterError` for a bound of :data:`PLOT_BOUNDS` or a scale whose
    periods are not finite.
    """
    from ...core.sinusoidal.fourier import (
        feature_names,
        fourier_features,
        fourier_frequencies,
        parse_scale,
    )

    factor, freqs = parse_scale(scale), fourier_frequencies(k, frequencies=frequencies)
    values = {"periods": periods, "points": points, "hidden": hidden, "k": k}
    for name, low, high in PLOT_BOUNDS:
        if not low <= values[name] <= high:
            rule = f"must be an integer from {low} to {high} in a figure"
            raise ParameterError(name, rule, values[name])
    network = random_network(2 * k, hidden=hidden, seed=seed)
    period = 2 * math.pi / factor
    if not math.isfinite(periods * period):
        raise ParameterError("scale", "must leave `periods` periods 2π/scale finite", scale)
    x = np.linspace(0.0, periods * period, points)
    features = fourier_features(x, k=k, frequencies=frequencies, scale=scale)
    columns = ["x", *feature_names(1, k, frequencies=frequencies), "f"]
    return Periodicity(x, features, network(features), freqs * factor, period, columns)


def periodicity_figure(
    x: np.ndarray,
    features: np.ndarray,
    output: np.ndarray,
    *,
    frequencies: np.ndarray,
    period: float,
    size: tuple[float, float] | None = None,
    dpi: float | None = None,
) -> Figure:
    """Features of γ above, the network's output ``f(γ(x))`` below, the period marked.

    Parameters
    ----------
    x : numpy.ndarray
        Shape ``(N,)``, increasing sample points.
    features : numpy.ndarray
        Shape ``(N, 2k)``, γ(x).
    output : numpy.ndarray
        Shape ``(N,)``, ``f(γ(x))``.
    frequencies : numpy.ndarray, keyword-only
        Shape ``(k,)``, the angular frequencies of γ (scale included), for the legend
        (``sin(2x)``, ``cos(2x)``, ``sin(πx)``, …).
    period : float, keyword-only
        The period of γ, ``2π / scale``; dotted lines mark its multiples and an arrow one
        full period on the lower panel.
    size, dpi : keyword-only
        Inches and dots per inch; by default 9 × 6 in at 100 dpi.

    Returns
    -------
    matplotlib.figure.Figure
        Two axes sharing x: ``axes[0]`` the features (one line per column, in order) and
        ``axes[1]`` the network output (its first line).

    """
    fig = new_figure(size, dpi, default_size=FIGSIZE)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(3, 2))
    names = [f"{kind}({_times(f)}x)" for f in frequencies for kind in ("sin", "cos")]
    for column, name in enumerate(names):
        top.plot(x, features[:, column], label=name, linewidth=1.0)
    top.set_ylim(-1.1, 1.1)
    top.set_ylabel("feature value")
    top.set_title(f"Fourier features γ(x), k = {len(names) // 2}, and a random network f(γ(x))")
    top.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", title="γ")
    _draw_output(bottom, x, output, period)
    for ax in (top, bottom):
        _period_ticks(ax, x, period)
        ax.grid(alpha=0.3)
    if math.isclose(period, 2 * math.pi):
        halves = range(math.ceil(x[0] / math.pi - 1e-9), math.floor(x[-1] / math.pi + 1e-9) + 1)
        bottom.set_xticks([j * math.pi for j in halves], [_pi_label(j) for j in halves])
    bottom.set_xlim(x[0], x[-1])
    return fig


def _draw_output(ax: Axes, x: np.ndarray, output: np.ndarray, period: float) -> None:
    """The network's output, with an arrow spanning one period above it."""
    ax.plot(x, output, color="black", linewidth=1.4, label="f(γ(x))")
    ax.set_xlabel("x")
    ax.set_ylabel("f(γ(x))")
    low, high = float(np.min(output)), float(np.max(output))
    pad = 0.25 * (high - low) + 1e-3
    ax.set_ylim(low - pad, high + 1.5 * pad)
    start = math.ceil(x[0] / period - 1e-9) * period
    arrow = {"arrowstyle": "<->", "color": "tab:red"}
    ax.annotate("", xy=(start + period, high + pad), xytext=(start, high + pad), arrowprops=arrow)
    label = "period 2π" if math.isclose(period, 2 * math.pi) else f"period {period:.4g}"
    ax.text(start + period / 2, high + 1.1 * pad, label, ha="center", color="tab:red")


def _pi_label(j: int) -> str:
    return {0: "0", 1: "π", -1: "-π"}.get(j, f"{j}π")
