"""What every pecli figure shares: its size and resolution, number labels, long legends.

Importing this module imports matplotlib (docs/figures.md#figure-files).
"""

from __future__ import annotations

import math

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..core.figure_rules import check_figure_size

__all__ = [
    "DPI",
    "FIGSIZE",
    "MAX_LEGEND_ROWS",
    "legend_outside",
    "new_figure",
    "number_label",
    "retitle",
]

#: Figure size in inches and resolution of the committed figures.
FIGSIZE = (9.0, 4.5)
DPI = 100.0
#: Entries of one legend column beside an axes of the default height.
MAX_LEGEND_ROWS = 16


def new_figure(
    size: tuple[float, float] | None = None,
    dpi: float | None = None,
    *,
    default_size: tuple[float, float] = FIGSIZE,
) -> Figure:
    """A new constrained-layout :class:`~matplotlib.figure.Figure`, checked.

    Parameters
    ----------
    size : (float, float) or None
        Width and height in inches, 1 … 100 each; None for ``default_size``.
    dpi : float or None
        Dots per inch, 10 … 1200; None for 100. At most 50 million pixels in all.
    default_size : (float, float), keyword-only
        The figure's own size.

    Raises
    ------
    ParameterError
        Naming ``size`` or ``dpi`` (:func:`pecli.core.figure_rules.check_figure_size`).

    Examples
    --------
    >>> new_figure((4, 3), 50).get_size_inches().tolist()
    [4.0, 3.0]

    """
    figsize, dots = check_figure_size(size, dpi, default_size=default_size, default_dpi=DPI)
    return Figure(figsize=figsize, dpi=dots, layout="constrained")


def number_label(value: float) -> str:
    """Four significant digits; from 1000 on as a whole number with thousands separators.

    A whole number (a context length, an offset) is written in full up to 2^53, where every
    integer is exact: 131072 is not 131,100.

    >>> number_label(6.283185), number_label(221.4), number_label(47123.9), number_label(1e-3)
    ('6.283', '221.4', '47,120', '0.001')
    >>> number_label(131072), number_label(32768.0)
    ('131,072', '32,768')
    """
    if not math.isfinite(value) or abs(value) < 1000:
        return f"{value:.4g}"
    if float(value).is_integer() and abs(value) <= 2**53:
        return f"{int(value):,}"
    digits = math.floor(math.log10(abs(value))) + 1
    return f"{round(value, 4 - digits):,.0f}"


def legend_outside(ax: Axes, *, title: str, rows: int = MAX_LEGEND_ROWS) -> None:
    """A legend right of ``ax``, in as many columns of ``rows`` entries as its lines need.

    ``rows`` is scaled with the figure's height (16 at 4.5 inches), so every entry stays
    inside the figure.
    """
    entries = len(ax.get_legend_handles_labels()[1])
    height = float(ax.get_figure(root=True).get_size_inches()[1])  # type: ignore[union-attr]
    fit = max(4, int(rows * height / FIGSIZE[1]))
    columns = max(1, math.ceil(entries / fit))
    ax.legend(
        loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", title=title, ncols=columns
    )


def retitle(fig: Figure, title: str) -> None:
    """Give ``fig`` the title ``title`` (``--title``) where its own stands; ``""`` for none.

    The figure's title (``suptitle``) if it has one, else the title of its first axes (the
    top one of stacked panels).

    >>> fig = new_figure()
    >>> _ = fig.subplots(2, 1)
    >>> retitle(fig, "Mine")
    >>> fig.axes[0].get_title(), fig.axes[1].get_title()
    ('Mine', '')
    """
    if fig.get_suptitle():
        fig.suptitle(title)
    elif fig.axes:
        fig.axes[0].set_title(title)
