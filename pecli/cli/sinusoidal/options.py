"""The convention options (``--convention``, ``--layout``, …), declared once for every command.

:func:`convention_options` adds them to a command and hands it one resolved
:class:`~pecli.core.sinusoidal.conventions.Convention`; the multi-valued forms (``Conventions``,
``Schedules``, ``Bases``) are for the commands that compare several conventions.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

if TYPE_CHECKING:  # pragma: no cover
    from ...core.sinusoidal.conventions import Convention


class ConventionName(StrEnum):
    """Named conventions (docs/conventions.md); ``pecli conventions`` lists them."""

    vaswani = "vaswani"
    pytorch = "pytorch"
    tensor2tensor = "tensor2tensor"
    fairseq = "fairseq"
    hf_marian = "hf-marian"
    diffusers = "diffusers"
    whisper = "whisper"
    distilbert = "distilbert"
    positional_encodings = "positional-encodings"
    ldm = "ldm"
    musicgen = "musicgen"
    lucidrains = "lucidrains"
    mlx = "mlx"
    # aliases (pecli.ALIASES): the same table under the name a user looks for
    annotated_transformer = "annotated-transformer"
    speecht5 = "speecht5"
    espnet = "espnet"
    xlm = "xlm"
    keras_hub = "keras-hub"
    tatp22 = "tatp22"
    m2m100 = "m2m100"
    speech2text = "speech2text"
    stable_diffusion = "stable-diffusion"
    sgm = "sgm"
    denoising_diffusion_pytorch = "denoising-diffusion-pytorch"


class OddD(StrEnum):
    """What an odd d does (pecli.core.sinusoidal.knobs.ODD_D)."""

    error = "error"
    zero = "zero"
    sine = "sine"
    sine_d1 = "sine-d+1"


class Layout(StrEnum):
    """Where the sines and cosines go in a row."""

    interleaved = "interleaved"
    sin_cos = "sin-cos"
    cos_sin = "cos-sin"


Conventions = Annotated[
    list[ConventionName] | None,
    typer.Option(
        "--convention",
        help="A preset's frequency schedule; repeat for several curves. [default: vaswani]",
        show_default=False,
    ),
]
Schedules = Annotated[
    list[str] | None,
    typer.Option(
        "--schedule",
        help="A frequency schedule (paper, tensor2tensor, shift:S); repeat for several curves.",
        show_default=False,
    ),
]
Bases = Annotated[
    list[float] | None,
    typer.Option(
        "--base",
        help="Base C, 1e-300 to 1e300; repeat for several curves. [default: 10000]",
        show_default=False,
    ),
]
ConventionOpt = Annotated[
    ConventionName,
    typer.Option(
        "--convention",
        help="Preset of another library (or an alias); an explicit option applies over it "
        "and names the result custom.",
    ),
]
LayoutOpt = Annotated[
    Layout | None,
    typer.Option("--layout", help="Columns of sines and cosines. [default: the convention's]"),
]
ScheduleOpt = Annotated[
    str | None,
    typer.Option(
        "--schedule",
        help="Frequencies: paper, tensor2tensor or shift:S (ω_j = C^(-j/(d/2-S))). "
        "[default: the convention's]",
    ),
]
ConventionStart = Annotated[
    int | None,
    typer.Option("--start", help="First position. [default: 1 for vaswani, 0 for the others]"),
]
PaddingIdx = Annotated[
    int | None,
    typer.Option("--padding-idx", help="Row index made all zeros (fairseq; 1 with its preset)."),
]
FlipSinToCos = Annotated[
    bool | None,
    typer.Option(
        "--flip-sin-to-cos/--no-flip-sin-to-cos",
        help="diffusers only: cosines first.",
        show_default=False,
    ),
]
DownscaleFreqShift = Annotated[
    float | None,
    typer.Option("--downscale-freq-shift", help="diffusers only: the shift s (default 1)."),
]
OddDOpt = Annotated[
    OddD | None,
    typer.Option(
        "--odd-d",
        help="Odd d: error, zero (last column 0: tensor2tensor), sine (ceil(d/2) sines, "
        "C^(-2j/d): DistilBERT, keras-hub, Marian) or sine-d+1 (tatp22). "
        "[default: the convention's]",
    ),
]
AngleScale = Annotated[
    float | None,
    typer.Option(
        "--angle-scale",
        help="Factor k on every angle, k times p ω (diffusers' scale, MLX's max_freq).",
    ),
]
FullTurns = Annotated[
    bool | None,
    typer.Option(
        "--full-turns/--no-full-turns",
        help="Angles times 2π (MLX's full_turns).",
        show_default=False,
    ),
]
Amplitude = Annotated[
    str | None,
    typer.Option(
        "--amplitude", help="Factor of every value: a number or sqrt(2/d) (MLX's default)."
    ),
]


_KEYWORD = inspect.Parameter.KEYWORD_ONLY
Command = TypeVar("Command", bound=Callable[..., Any])

#: The convention options, in the order ``--help`` lists them: (parameter, option, default).
_CONVENTION_OPTIONS: tuple[tuple[str, Any, Any], ...] = (
    ("convention", ConventionOpt, ConventionName.vaswani),
    ("layout", LayoutOpt, None),
    ("schedule", ScheduleOpt, None),
    ("start", ConventionStart, None),
    ("padding_idx", PaddingIdx, None),
    ("flip_sin_to_cos", FlipSinToCos, None),
    ("downscale_freq_shift", DownscaleFreqShift, None),
    ("odd_d", OddDOpt, None),
    ("angle_scale", AngleScale, None),
    ("full_turns", FullTurns, None),
    ("amplitude", Amplitude, None),
)


def convention_options(*, positions: bool = True) -> Callable[[Command], Command]:
    """Give a command the convention options, declared once here; it receives ``conv``.

    The decorated function declares a parameter ``conv``; the command line shows the
    options ``--convention``, ``--layout``, ``--schedule``, ``--flip-sin-to-cos`` and
    ``--downscale-freq-shift`` in its place (and ``--start`` and ``--padding-idx`` when
    ``positions`` is true), and the function is called with the resulting
    :class:`~pecli.core.sinusoidal.conventions.Convention` as ``conv``.
    """
    wanted = [o for o in _CONVENTION_OPTIONS if positions or o[0] not in ("start", "padding_idx")]

    def decorate(command: Command) -> Command:
        hints = typing.get_type_hints(command, localns={"Convention": object}, include_extras=True)
        params: list[inspect.Parameter] = []
        for param in inspect.signature(command).parameters.values():
            if param.name == "conv":
                params += [
                    inspect.Parameter(name, _KEYWORD, default=default, annotation=alias)
                    for name, alias, default in wanted
                ]
            else:
                params.append(param.replace(kind=_KEYWORD, annotation=hints[param.name]))

        @functools.wraps(command)
        def run(**kwargs: Any) -> Any:
            knobs = {name: kwargs.pop(name) for name, _, _ in wanted}
            return command(conv=resolve_convention(**knobs), **kwargs)

        run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        run.__annotations__ = {param.name: param.annotation for param in params}
        return run  # type: ignore[return-value]

    return decorate


def resolve_convention(
    convention: ConventionName,
    *,
    flip_sin_to_cos: bool | None = None,
    downscale_freq_shift: float | None = None,
    schedule: str | None = None,
    layout: Layout | None = None,
    start: int | None = None,
    padding_idx: int | None = None,
    odd_d: OddD | None = None,
    angle_scale: float | None = None,
    full_turns: bool | None = None,
    amplitude: str | None = None,
) -> Convention:
    """The one place where the convention options of a command become a :class:`Convention`."""
    from ...core.sinusoidal.conventions import convention as make  # the core, once a command runs

    return make(
        convention.value,
        flip_sin_to_cos=flip_sin_to_cos,
        downscale_freq_shift=downscale_freq_shift,
        schedule=schedule,
        layout=None if layout is None else layout.value,
        start=start,
        padding_idx=padding_idx,
        odd_d=None if odd_d is None else odd_d.value,
        angle_scale=angle_scale,
        full_turns=full_turns,
        amplitude=amplitude,
    )
