"""The rules of a figure's ``--dpi`` and ``--size``, checked before any work is done.

Pure Python (no matplotlib): the command line checks them before it loads the figures.
"""

from __future__ import annotations

from .errors import ParameterError

__all__ = ["DPI_RANGE", "MAX_PIXELS", "SIZE_RANGE", "check_figure_size"]

#: Figure resolution and size: dots per inch, inches per side, and pixels in all.
DPI_RANGE = (10, 1200)
SIZE_RANGE = (1.0, 100.0)
MAX_PIXELS = 50_000_000


def check_figure_size(
    size: tuple[float, float] | None,
    dpi: float | None,
    *,
    default_size: tuple[float, float] = (9.0, 4.5),
    default_dpi: float = 100.0,
) -> tuple[tuple[float, float], float]:
    """Return the figure's ``(size, dpi)``, None meaning the figure's default; raise if too big.

    Each side is 1 … 100 inches, ``dpi`` 10 … 1200, and the image at most 50 million pixels.
    """
    if dpi is not None and not DPI_RANGE[0] <= dpi <= DPI_RANGE[1]:  # NaN fails too
        raise ParameterError("dpi", "must be a number from 10 to 1200 (dots per inch)", f"{dpi:g}")
    if size is not None and not all(SIZE_RANGE[0] <= side <= SIZE_RANGE[1] for side in size):
        rule = "must be two numbers W H from 1 to 100 (inches)"
        raise ParameterError("size", rule, " ".join(f"{side:g}" for side in size))
    width, height = default_size if size is None else size
    dots = default_dpi if dpi is None else dpi
    if width * height * dots**2 > MAX_PIXELS:
        rule = f"gives {width:g} × {height:g} inches at {dots:g} dpi: at most 50 million pixels"
        if size is None:
            raise ParameterError("dpi", rule, f"{dots:g}")
        raise ParameterError("size", rule, f"{width:g} {height:g}")
    return (float(width), float(height)), float(dots)
