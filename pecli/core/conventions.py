"""How other libraries lay out the same encoding: layouts, column names and named presets.

A *layout* only says which columns of a row receive the sines and which the cosines
(docs/conventions.md): interleaved ``[sin ω_0, cos ω_0, sin ω_1, …]``, sin-cos blocks
``[all sines | all cosines]`` or cos-sin blocks. A *convention* adds the frequency schedule,
the first position, an optional all-zero padding row (fairseq) and what happens
to an odd width ``d``.

References
----------
.. [1] A. Vaswani et al., "Attention Is All You Need", NeurIPS 2017, §3.5.
.. [2] A. Vaswani et al., "Tensor2Tensor for Neural Machine Translation", 2018
   (``get_timing_signal_1d``).

"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import ParameterError
from .rules import check_layout, check_position, check_schedule, check_width, schedule_name

__all__ = ["PRESETS", "Convention", "component_names", "convention", "layout_views"]


def layout_views(table: np.ndarray, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """The views of ``table`` that hold the sines and the cosines in ``layout``.

    Parameters
    ----------
    table : numpy.ndarray
        Shape ``(..., d)``; with an odd ``d`` the last column belongs to neither view.
    layout : {"interleaved", "sin-cos", "cos-sin"}
        Where the sines and cosines go (docs/conventions.md).

    Returns
    -------
    (sin_view, cos_view) : tuple of numpy.ndarray
        Two views of shape ``(..., d // 2)``: column ``j`` of each belongs to frequency ``ω_j``.

    Examples
    --------
    >>> sines, cosines = layout_views(np.arange(6), "sin-cos")
    >>> sines, cosines
    (array([0, 1, 2]), array([3, 4, 5]))

    """
    layout = check_layout(layout)
    h = table.shape[-1] // 2
    body = table[..., : 2 * h]
    if layout == "interleaved":
        return body[..., 0::2], body[..., 1::2]
    if layout == "sin-cos":
        return body[..., :h], body[..., h:]
    return body[..., h:], body[..., :h]


def component_names(d: int, layout: str = "interleaved", *, pad_odd_d: bool = False) -> list[str]:
    """Column names of a table: ``sin_i`` / ``cos_i`` per column (suffix = pair index ``i``).

    Parameters
    ----------
    d : int
        Width of the encoding, even, 2 … 131072 (odd allowed with ``pad_odd_d``).
    layout : {"interleaved", "sin-cos", "cos-sin"}
        Order of the columns.
    pad_odd_d : bool, keyword-only
        An odd ``d`` ends with a zero column, named ``zero``.

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

    """
    d = check_width(d, pad_odd_d=pad_odd_d)
    names = np.full(d, "zero", dtype=object)
    sines, cosines = layout_views(names, layout)
    sines[...] = [f"sin_{i}" for i in range(1, d // 2 + 1)]
    cosines[...] = [f"cos_{i}" for i in range(1, d // 2 + 1)]
    return [str(name) for name in names]


@dataclass(frozen=True)
class Convention:
    """One way of building the table: the knobs of :func:`pecli.encoding_table`.

    Attributes
    ----------
    name : str
        The preset's name (``"custom"`` once a knob is changed).
    schedule : str
        ``paper``, ``tensor2tensor`` or ``shift:S``.
    layout : str
        ``interleaved``, ``sin-cos`` or ``cos-sin``.
    start : int
        Position of the first row.
    padding_idx : int or None
        Row that is all zeros (fairseq), or None.
    pad_odd_d : bool
        An odd ``d`` gets a zero column appended (else odd ``d`` is an error).
    users : str
        Who uses it.

    """

    name: str
    schedule: str
    layout: str
    start: int
    padding_idx: int | None = None
    pad_odd_d: bool = False
    users: str = ""

    def table_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for :func:`pecli.encoding_table` / :func:`pecli.table_blocks`."""
        return {
            "schedule": self.schedule,
            "layout": self.layout,
            "start": self.start,
            "padding_idx": self.padding_idx,
            "pad_odd_d": self.pad_odd_d,
        }


def _preset(name: str, schedule: str, layout: str, start: int, users: str, **kw: Any) -> Convention:
    return Convention(name, schedule, layout, start, users=users, **kw)


#: The named conventions of docs/conventions.md, by name.
PRESETS: dict[str, Convention] = {
    c.name: c
    for c in (
        _preset("vaswani", "paper", "interleaved", 1, "the article (Vaswani et al. 2017, §3.5)"),
        _preset(
            "pytorch",
            "paper",
            "interleaved",
            0,
            "PyTorch tutorial, Annotated Transformer, DistilBERT/XLM, keras-hub",
        ),
        _preset(
            "tensor2tensor",
            "tensor2tensor",
            "sin-cos",
            0,
            "tensor2tensor, Marian C++",
            pad_odd_d=True,
        ),
        _preset(
            "fairseq",
            "tensor2tensor",
            "sin-cos",
            0,
            "fairseq, HF M2M100 / Speech2Text",
            padding_idx=1,
            pad_odd_d=True,
        ),
        _preset("hf-marian", "paper", "sin-cos", 0, "HF Marian, the TensorFlow tutorial"),
        _preset(
            "diffusers",
            "tensor2tensor",
            "sin-cos",
            0,
            "diffusers get_timestep_embedding (Stable Diffusion: shift 0, cos first)",
            pad_odd_d=True,
        ),
        _preset("whisper", "tensor2tensor", "sin-cos", 0, "OpenAI Whisper (audio encoder)"),
    )
}


def convention(
    name: str = "vaswani",
    *,
    flip_sin_to_cos: bool | None = None,
    downscale_freq_shift: float | None = None,
    schedule: str | None = None,
    layout: str | None = None,
    start: int | None = None,
    padding_idx: int | None = None,
) -> Convention:
    """A preset, with diffusers' two knobs and any low-level knob overriding it.

    Parameters
    ----------
    name : str
        One of :data:`PRESETS`.
    flip_sin_to_cos, downscale_freq_shift : keyword-only
        diffusers' ``get_timestep_embedding`` arguments (cosines first; the shift ``s``);
        only with ``name="diffusers"``.
    schedule, layout, start, padding_idx : keyword-only
        Override the preset's value when given.

    Returns
    -------
    Convention

    Raises
    ------
    ParameterError
        (a ``ValueError``) for an unknown name, a diffusers knob on another preset, or an
        invalid schedule or layout.

    Examples
    --------
    >>> convention("diffusers", flip_sin_to_cos=True, downscale_freq_shift=0).table_kwargs()
    {'schedule': 'paper', 'layout': 'cos-sin', 'start': 0, 'padding_idx': None, 'pad_odd_d': True}

    """
    if name not in PRESETS:
        raise ParameterError("convention", f"must be one of {', '.join(PRESETS)}", name)
    for knob, value in (
        ("flip_sin_to_cos", flip_sin_to_cos),
        ("downscale_freq_shift", downscale_freq_shift),
    ):
        if value is not None and name != "diffusers":
            raise ParameterError(knob, "applies only to --convention diffusers", value)
    chosen = PRESETS[name]
    if flip_sin_to_cos is not None:
        chosen = dataclasses.replace(chosen, layout="cos-sin" if flip_sin_to_cos else "sin-cos")
    if downscale_freq_shift is not None:
        shift = check_position("downscale_freq_shift", downscale_freq_shift)
        chosen = dataclasses.replace(chosen, schedule=schedule_name(shift))
    changes: dict[str, Any] = {}
    if schedule is not None:
        changes["schedule"] = schedule_name(check_schedule(schedule))
    if layout is not None:
        changes["layout"] = check_layout(layout)
    if start is not None:
        changes["start"] = start
    if padding_idx is not None:
        changes["padding_idx"] = padding_idx
    if any(getattr(chosen, knob) != value for knob, value in changes.items()):
        changes["name"] = "custom"
    return dataclasses.replace(chosen, **changes)
