"""Layouts: which columns of a row hold the sines and which the cosines; column names.

A layout only says where the values go (docs/conventions.md): interleaved
``[sin ω_0, cos ω_0, sin ω_1, …]``, sin-cos blocks ``[all sines | all cosines]`` or cos-sin
blocks. An odd ``d`` either leaves its last column to neither view (a zero column) or, with
the ``sine`` rules of DistilBERT/XLM, keras-hub, HF Marian and tatp22, gives the sines one
column more than the cosines.

"""

from __future__ import annotations

import numpy as np

from ...rules import check_layout, check_width
from ..knobs import ODD_SINE, resolve_odd_d

__all__ = ["component_names", "layout_views"]


def layout_views(
    table: np.ndarray, layout: str, *, odd_sine: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The views of ``table`` that hold the sines and the cosines in ``layout``.

    Parameters
    ----------
    table : numpy.ndarray
        Shape ``(..., d)``; with an odd ``d`` the last column belongs to neither view, unless
        ``odd_sine``.
    layout : {"interleaved", "sin-cos", "cos-sin"}
        Where the sines and cosines go (docs/conventions.md).
    odd_sine : bool, keyword-only
        An odd ``d`` has ``ceil(d/2)`` sines (DistilBERT/XLM, keras-hub, HF Marian, tatp22).

    Returns
    -------
    (sin_view, cos_view) : tuple of numpy.ndarray
        Views of shape ``(..., d // 2)`` (the sines ``(..., ceil(d/2))`` with ``odd_sine``):
        column ``j`` of each belongs to frequency ``ω_j``.

    Examples
    --------
    >>> sines, cosines = layout_views(np.arange(6), "sin-cos")
    >>> sines, cosines
    (array([0, 1, 2]), array([3, 4, 5]))
    >>> layout_views(np.arange(5), "sin-cos", odd_sine=True)  # HF Marian's sentinel
    (array([0, 1, 2]), array([3, 4]))

    """
    layout = check_layout(layout)
    d = table.shape[-1]
    h = d // 2
    sines = h + (d % 2 if odd_sine else 0)
    body = table[..., : h + sines]
    if layout == "interleaved":
        return body[..., 0::2], body[..., 1::2]
    if layout == "sin-cos":
        return body[..., :sines], body[..., sines:]
    return body[..., h:], body[..., :h]


def component_names(
    d: int, layout: str = "interleaved", *, pad_odd_d: bool = False, odd_d: str | None = None
) -> list[str]:
    """Column names of a table: ``sin_i`` / ``cos_i`` per column (suffix = pair index ``i``).

    Parameters
    ----------
    d : int
        Width of the encoding, even, 2 … 131072 (odd allowed with ``pad_odd_d`` or ``odd_d``).
    layout : {"interleaved", "sin-cos", "cos-sin"}
        Order of the columns.
    pad_odd_d : bool, keyword-only
        An odd ``d`` ends with a zero column, named ``zero`` (``odd_d="zero"``).
    odd_d : {"error", "zero", "sine", "sine-d+1"}, keyword-only, optional
        What an odd ``d`` does (:data:`pecli.core.sinusoidal.knobs.ODD_D`); overrides ``pad_odd_d``.

    Returns
    -------
    list of str
        ``d`` names; the 1-based pair index ``i`` owns ``ω_i``.

    Examples
    --------
    >>> component_names(4)
    ['sin_1', 'cos_1', 'sin_2', 'cos_2']
    >>> component_names(5, "cos-sin", pad_odd_d=True)
    ['cos_1', 'cos_2', 'sin_1', 'sin_2', 'zero']
    >>> component_names(5, "sin-cos", odd_d="sine")
    ['sin_1', 'sin_2', 'sin_3', 'cos_1', 'cos_2']

    """
    rule = resolve_odd_d(odd_d, pad_odd_d)
    d = check_width(d, pad_odd_d=rule != "error")
    names = np.full(d, "zero", dtype=object)
    sines, cosines = layout_views(names, layout, odd_sine=rule in ODD_SINE)
    sines[...] = [f"sin_{i}" for i in range(1, sines.shape[-1] + 1)]
    cosines[...] = [f"cos_{i}" for i in range(1, cosines.shape[-1] + 1)]
    return [str(name) for name in names]
