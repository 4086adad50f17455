"""The convention options (``--convention``, ``--layout``, …), declared once for every command.

:func:`convention_options` adds them to a command and hands it one resolved
:class:`~pecli.core.sinusoidal.conventions.Convention`; the multi-valued forms (``Conventions``,
``Schedules``, ``Bases``) are for the commands that compare several conventions.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer

from ...core.errors import ParameterError
from ...core.rules import LAYOUTS, number_text
from ...core.sinusoidal.conventions.presets import ALIASES, PRESETS
from ...core.sinusoidal.knobs import ODD_D
from .._types import PositionType
from ..options import BASE_WORDS, START_RULE, Command, Option, given, option_block

if TYPE_CHECKING:  # pragma: no cover
    from ...core.sinusoidal.conventions import Convention


#: Named conventions (docs/conventions.md): every preset, then every alias, in the order of
#: :data:`~pecli.core.sinusoidal.conventions.PRESETS` and ``ALIASES`` (``pecli conventions``).
ConventionName = StrEnum(  # type: ignore[misc]
    "ConventionName", {name: name for name in (*PRESETS, *ALIASES)}
)


#: What an odd d does (:data:`pecli.core.sinusoidal.knobs.ODD_D`).
OddD = StrEnum("OddD", {name: name for name in ODD_D})  # type: ignore[misc]
#: Where the sines and cosines go in a row (:data:`pecli.core.rules.LAYOUTS`).
Layout = StrEnum("Layout", {name: name for name in LAYOUTS})  # type: ignore[misc]


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
        help=f"Base C, {BASE_WORDS}; repeat for several curves. [default: 10000]",
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
    typer.Option(
        "--start",
        click_type=PositionType(START_RULE),
        help="First position. [default: 1 for vaswani, 0 for the others]",
    ),
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


#: The convention options, in the order ``--help`` lists them: (parameter, option, default).
_CONVENTION_OPTIONS: tuple[Option, ...] = (
    ("convention", ConventionOpt, ConventionName("vaswani")),
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


def convention_options(
    *, positions: bool = True, plain: str | None = None
) -> Callable[[Command], Command]:
    """Give a command the convention options, declared once here; it receives ``conv``.

    The decorated function declares a parameter ``conv``; the command line shows the
    options ``--convention``, ``--layout``, ``--schedule``, ``--flip-sin-to-cos`` and
    ``--downscale-freq-shift`` in its place (and ``--start`` and ``--padding-idx`` when
    ``positions`` is true), and the function is called with the resulting
    :class:`~pecli.core.sinusoidal.conventions.Convention` as ``conv``. ``plain``: the
    command (named so) models ``sin(p·ω)`` alone and refuses a factor on it
    (:meth:`~pecli.core.sinusoidal.conventions.Convention.check_plain`).
    """
    wanted = [o for o in _CONVENTION_OPTIONS if positions or o[0] not in ("start", "padding_idx")]

    def build(**knobs: Any) -> Convention:
        conv = resolve_convention(**knobs)
        if plain is not None:
            conv.check_plain(plain)
        return conv

    def decorate(command: Command) -> Command:
        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return command(*args, **kwargs)
            except ParameterError as error:
                named = _shift_named(error)
                if named is error:
                    raise
                raise named from None

        return option_block("conv", wanted, build)(cast(Command, run))

    return decorate


def _shift_named(error: ParameterError) -> ParameterError:
    """A ``d`` too narrow for --downscale-freq-shift's S, said of the shift the user set.

    The core names ``d`` (the rule is d // 2 - S > 0, the width being what a schedule
    usually leaves free); diffusers' knob is a number typed beside a default ``--d``.
    """
    from ...core.sinusoidal.frequencies import WidthBelowShift  # (on an error path only)

    if not isinstance(error, WidthBelowShift) or given("schedule"):
        return error
    if not given("downscale_freq_shift"):  # diffusers' default shift, 1: said under --d
        least = 2 * (math.floor(error.shift) + 1)
        rule = (
            f"must be at least {least} with `convention` diffusers: its `downscale_freq_shift`, "
            f"{number_text(error.shift)} by default, needs d // 2 - S > 0 "
            "(ω_j = C^(-j/(d/2 - S)))"
        )
        return ParameterError("d", rule, error.value)
    half = number_text(error.half)
    down = ", rounded down" if isinstance(error.value, int) and error.value % 2 else ""  # odd d
    rule = f"must be less than {half}, half of `d` ({error.value}){down}: ω_j = C^(-j/(d/2 - S))"
    return ParameterError("downscale_freq_shift", rule, number_text(error.shift))


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
    """The one place where the convention options of a command become a :class:`Convention`.

    diffusers' ``--downscale-freq-shift`` left out is its default, 1, as if typed: diffusers
    divides by ``d // 2 - S`` with no guard, so the default and a typed 1 give one table.
    """
    from ...core.sinusoidal.conventions import convention as make  # the core, once a command runs

    if ALIASES.get(convention.value, convention.value) == "diffusers" and schedule is None:
        downscale_freq_shift = 1.0 if downscale_freq_shift is None else downscale_freq_shift
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
