"""Options shared by several commands, defined once: ``Annotated`` aliases and option blocks.

An option *block* is a group of options a command declares as one parameter:
:func:`table_options` (``--dtype``, ``-o``, ``--format``, ``--header``, ``--quiet``: where a
table goes) and :func:`plot_options` (``-o``, ``--data``, ``--dpi``, ``--size``, ``--title``,
``--quiet``: a figure and its data). :func:`option_block` is how a block replaces its
parameter; :func:`pecli.cli.sinusoidal.options.convention_options` and the rope options are
blocks too.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Annotated, Any, TypeVar

import typer

from ..core.rules import BASE_RANGE, LAYER_RULE, MAX_D
from ..io.targets import PlotOutputs, TableTarget
from ._types import PositionType

#: ``--layer``'s type: ``--layer 1e3`` or ``2.5`` is told the rule, not click's words.
LAYER_INDEX = PositionType(LAYER_RULE)

#: The base C's range as the help texts write it: 1e-300 to 1e300 (core/rules.py's BASE_RANGE).
BASE_WORDS = " to ".join(f"{bound:g}".replace("e+", "e") for bound in BASE_RANGE)


class Dtype(StrEnum):
    """Output dtypes."""

    float32 = "float32"
    float64 = "float64"


class TableDtype(StrEnum):
    """Dtypes of encoding tables (bfloat16 only in .safetensors)."""

    float32 = "float32"
    float64 = "float64"
    float16 = "float16"
    bfloat16 = "bfloat16"


class TableFormat(StrEnum):
    """Table formats."""

    csv = "csv"
    npy = "npy"


D = Annotated[
    int,
    typer.Option(
        "--d",
        help=f"Width d (d_model); even, 2 to {MAX_D} (odd with presets or --odd-d that accept it).",
    ),
]
EvenD = Annotated[int, typer.Option("--d", help=f"Width d (d_model); even, 2 to {MAX_D}.")]
N = Annotated[int, typer.Option("--n", help="Number of positions (rows), >= 1.")]
Base = Annotated[
    float,
    typer.Option("--base", help=f"Base C of the frequencies ω_i = C^(-2(i-1)/d); {BASE_WORDS}."),
]
#: The rule of a table's first position, said for a number not written as an integer (1e30).
START_RULE = (
    "must be an integer, in digits, with start and start + n - 1 within ±2^53 "
    "(where integer positions are exact)"
)
#: ``--start``'s rule where a position is no negative (``rope precision``, ``diff``).
START_FROM_0_RULE = (
    "must be an integer, in digits, from 0, with start + n - 1 <= 2^53 "
    "(where integer positions are exact)"
)
Start = Annotated[
    int,
    typer.Option(
        "--start",
        click_type=PositionType(START_RULE),
        help="First position (1 as in the article; 0 for frameworks).",
    ),
]
DtypeOpt = Annotated[Dtype, typer.Option("--dtype", help="Output dtype (computed in float64).")]
TableDtypeOpt = Annotated[
    TableDtype,
    typer.Option(
        "--dtype",
        help="Output dtype, computed in float64 and rounded once; bfloat16 only to .safetensors.",
    ),
]
ComputeOutput = Annotated[
    str,
    typer.Option(
        "-o",
        "--output",
        help="Output file (.csv, .npy or .safetensors), or - for stdout.",
        show_default=False,
    ),
]
ComputeKey = Annotated[
    str | None,
    typer.Option(
        "--key",
        help="Tensor name in a .safetensors output. [default: positional_encoding]",
        show_default=False,
    ),
]
IdentifyKey = Annotated[
    str | None,
    typer.Option(
        "--key",
        help="Identify only this tensor of a .safetensors or .npz checkpoint. [default: every "
        "table-shaped tensor]",
        show_default=False,
    ),
]
TableOutput = Annotated[
    str,
    typer.Option(
        "-o", "--output", help="Output file (.csv or .npy), or - for stdout.", show_default=False
    ),
]
FormatOpt = Annotated[
    TableFormat | None,
    typer.Option("--format", help="Table format; overrides the suffix. [default: csv on stdout]"),
]
Header = Annotated[
    bool, typer.Option("--header/--no-header", help="Write a header line in CSV output.")
]
DataOutput = Annotated[
    str | None,
    typer.Option("--data", help="Also write the plotted data to this .csv or .npy file."),
]
Quiet = Annotated[
    bool, typer.Option("--quiet", "-q", help="No progress bar and no messages on stderr.")
]
#: ``--json`` of every certified writer (docs/cli.md#json-reports), declared once.
JsonReport = Annotated[
    bool,
    typer.Option(
        "--json",
        help="Say what was written and its correct-rounding certificate as one JSON object on "
        "stderr, instead of the messages (also with -q).",
    ),
]
Dpi = Annotated[
    float | None,
    typer.Option(
        "--dpi", help="Resolution of the figure, 10 to 1200 dots per inch. [default: 100]"
    ),
]
Size = Annotated[
    tuple[float, float] | None,
    typer.Option(
        "--size",
        metavar="W H",
        help="Width and height of the figure in inches, 1 to 100 each. [default: the figure's]",
        show_default=False,
    ),
]

Title = Annotated[
    str | None,
    typer.Option(
        "--title",
        help='The figure\'s title; "" for none. [default: what the figure shows, in words]',
        show_default=False,
    ),
]


InputFile = Annotated[
    str | None,
    typer.Option(
        "-i", "--input", help="Input .npy or CSV file (format read from the content), - for stdin."
    ),
]
FigureOutput = Annotated[
    str | None,
    typer.Option(
        "-o",
        "--output",
        help="Figure file; the suffix picks the format (png, svg, pdf).",
        show_default=False,
    ),
]

_KEYWORD = inspect.Parameter.KEYWORD_ONLY
Command = TypeVar("Command", bound=Callable[..., Any])
#: One option of a block: its parameter name, its ``Annotated`` type and its default.
Option = tuple[str, Any, Any]


def option_block(
    parameter: str,
    options: Sequence[Option],
    build: Callable[..., Any],
    passed: Sequence[str] = (),
) -> Callable[[Command], Command]:
    """Replace a command's ``parameter`` by ``options``; call it with ``build(**their values)``.

    The options appear in the command's ``--help`` where the parameter was declared; those
    ``passed`` go to the command as parameters of their own. Every parameter becomes
    keyword-only; the annotations the command's module names only for type checking (another
    block's parameter) are left as they are, for that block.
    """

    def decorate(command: Command) -> Command:
        params: list[inspect.Parameter] = []
        for param in inspect.signature(command).parameters.values():
            if param.name in passed:  # declared by the block, where it puts it
                continue
            if param.name == parameter:
                params += [
                    inspect.Parameter(n, _KEYWORD, default=d, annotation=a) for n, a, d in options
                ]
            else:
                annotation = _resolved(param.annotation, command)
                params.append(param.replace(kind=_KEYWORD, annotation=annotation))

        @functools.wraps(command)
        def run(**kwargs: Any) -> Any:
            values = {name: kwargs.pop(name) for name, _, _ in options if name not in passed}
            return command(**{parameter: build(**values)}, **kwargs)

        run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        run.__annotations__ = {param.name: param.annotation for param in params}
        return run  # type: ignore[return-value]

    return decorate


def given(parameter: str) -> bool:
    """Whether the running command's ``parameter`` was given (command line or environment).

    A default, even one equal to what was typed, is not given: ``--n 100`` is, no ``--n`` is
    not. Needs a command being run (a click context).
    """
    try:  # typer >= 0.26 vendors click (a plain pip install has no click of its own)
        from typer._click.globals import get_current_context  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - depends on the installed typer
        from click import get_current_context
    source = get_current_context().get_parameter_source(parameter)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def _resolved(annotation: Any, command: Callable[..., Any]) -> Any:
    """A string annotation evaluated in the command's module, or kept when it cannot be."""
    if not isinstance(annotation, str):
        return annotation
    try:
        return eval(annotation, inspect.unwrap(command).__globals__)
    except NameError:  # a name imported for type checking only: another block's parameter
        return annotation


def table_options(
    *,
    dtype: StrEnum = Dtype.float32,
    output: Any = None,
    extra: Sequence[Option] = (),
    certified: bool = False,
) -> Callable[[Command], Command]:
    """Give a command the options of where its table goes; it receives ``out``, a TableTarget.

    ``--dtype`` (``dtype``: its default; a :class:`TableDtype` default offers bfloat16 and
    float16 too), ``-o`` (``output``: another help text), ``--format``, ``--header``, the
    command's own ``extra`` options (passed to it as parameters), ``--quiet`` and, for a
    ``certified`` writer (docs/exactness.md#what-is-covered), ``--json``.
    """
    table_dtype = isinstance(dtype, TableDtype)
    options: list[Option] = [
        ("dtype", TableDtypeOpt if table_dtype else DtypeOpt, dtype),
        ("output", output or TableOutput, "-"),
        ("fmt", FormatOpt, None),
        ("header", Header, True),
        *extra,
        ("quiet", Quiet, False),
        *([("as_json", JsonReport, False)] if certified else []),
    ]

    def build(
        dtype: StrEnum,
        output: str,
        fmt: StrEnum | None,
        header: bool,
        quiet: bool,
        as_json: bool = False,
    ) -> Any:
        chosen = None if fmt is None else fmt.value
        return TableTarget(
            dtype.value,
            output,
            chosen,
            header=header,
            quiet=quiet,
            as_json=as_json,
            header_given=given("header"),  # --header: CSV only (formats.check_header)
        )

    return option_block("out", options, build, passed=[name for name, _, _ in extra])


def plot_options(
    default_name: str, *, default_size: tuple[float, float] = (9.0, 4.5)
) -> Callable[[Command], Command]:
    """Give a drawing command its figure and data options; it receives ``plot``, PlotOutputs.

    ``-o`` (the figure; ``default_name`` without it), ``--data``, ``--dpi``, ``--size`` (the
    figure's own size is ``default_size``), ``--title`` and ``--quiet``, checked before the
    command runs (:class:`PlotOutputs`).
    """
    options: tuple[Option, ...] = (
        ("output", FigureOutput, None),
        ("data", DataOutput, None),
        ("dpi", Dpi, None),
        ("size", Size, None),
        ("title", Title, None),
        ("quiet", Quiet, False),
    )

    def build(output: Any, data: Any, dpi: Any, size: Any, title: Any, quiet: bool) -> Any:
        return PlotOutputs(
            output,
            default_name,
            data,
            quiet,
            size=size,
            dpi=dpi,
            default_size=default_size,
            title=title,
            retitle=_retitle,
        )

    return option_block("plot", options, build)


def _retitle(figure: Any, title: str) -> None:
    """``--title`` on a built figure (:func:`pecli.figures.style.retitle`)."""
    from ._app import figures

    figures("style").retitle(figure, title)
