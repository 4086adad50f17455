"""What the commands write: tables (streamed, with a progress bar), figures with their data.

:class:`TableTarget` is where a table goes (``@table_options``), :class:`PlotOutputs` a figure
and its data file (``@plot_options``); both check their outputs before any work
(:mod:`pecli.io.formats`) and write through :mod:`pecli.io`.

The rich progress bar goes to stderr and is shown only to a person at a terminal.
Never on stdout, never when stderr is piped or redirected, never when the data itself goes
to the terminal (the bar would be drawn between its lines), never with ``--quiet``: the data
stream is untouched either way. rich is imported only when a bar is actually shown.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..core import certificate
from ..core.errors import ParameterError
from ..core.figure_rules import check_figure_size
from . import formats, guard, paths, writing
from .reports import CERTIFICATE, Written, check_json_output, say_done, say_written

__all__ = ["PlotOutputs", "TableTarget", "track_rows", "write_streamed"]

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure


@dataclass
class TableTarget:
    """Where a command's table goes: ``--dtype``, ``-o``, ``--format``, ``--header``, ``-q``.

    :meth:`check` settles the format and refuses a bad output (and ``--header`` given,
    ``header_given``, for a format other than CSV) before any work;
    :meth:`write` writes the table's blocks and says so. ``as_json``: said as one JSON
    object (:mod:`pecli.io.reports`), with ``notes``.
    """

    dtype: str
    output: str
    fmt: str | None
    header: bool = True
    quiet: bool = False
    kind: str = ""
    as_json: bool = False
    notes: tuple[str, ...] = ()
    header_given: bool = False

    def check(
        self,
        *,
        inputs: tuple[str | None, ...] = (),
        suffixes: tuple[str, ...] | None = None,
    ) -> str:
        """The format (``--format``, else the suffix, else csv), the output checked; kept."""
        self.kind = formats.resolve_format(self.output, self.fmt, suffixes=suffixes)
        formats.check_output(self.output, self.kind, inputs=inputs)
        formats.check_header(self.kind, self.header if self.header_given else None)
        if self.as_json:
            check_json_output(self.output)
        return self.kind

    def say(
        self,
        written: Written,
        said: certificate.Certificate | None,
        *,
        not_certified: str | None = None,
        certificate_quiet: bool | None = None,
    ) -> None:
        """Say what was written and its certificate (:func:`pecli.io.reports.say_done`)."""
        say_done(
            written,
            said,
            quiet=self.quiet,
            as_json=self.as_json,
            certificate_quiet=certificate_quiet,
            not_certified=not_certified,
            notes=self.notes,
        )

    def write_tensor(
        self,
        key: str,
        table: np.ndarray,
        said: certificate.Certificate,
        metadata: dict[str, str] | None = None,
    ) -> None:
        """``table`` as tensor ``key`` of a .safetensors file, then said (:meth:`say`).

        The certificate's line goes in the file's metadata beside ``metadata``; the name is
        said even for a device.
        """
        from . import tensors

        meta = {**(metadata or {}), CERTIFICATE: said.message}
        tensors.write_safetensors({key: table}, output=self.output, metadata=meta)
        shape = tuple(table.shape)
        written = Written(
            self.output, "safetensors", table.dtype, shape, {key: (table.dtype, shape)}
        )
        self.say(written, said, certificate_quiet=self.quiet)

    def write(
        self,
        blocks: Iterable[np.ndarray],
        *,
        shape: tuple[int, ...],
        dtype: np.dtype,
        columns: list[str],
        description: str | None = None,
        size: int | None = None,
        certified: str | None = None,
        said: certificate.Certificate | None = None,
        not_certified: str | None = None,
    ) -> None:
        """Write the blocks in :attr:`kind`, then ``pecli: wrote NAME`` (:meth:`say`).

        The room for ``size`` bytes is checked first (when known); a progress bar named
        ``description`` is shown to a person at a terminal (none without a description).
        ``certified``: the blocks come from kernels under the correct-rounding certificate,
        whose counts are then said too (:func:`pecli.io.reports.say_certified`): ``"counted"``,
        each value was checked once; ``"copied"``, each is a copy of a checked value or an
        exact zero.
        ``said``: the certificate of a table made before (said as ``certified``).
        ``not_certified``: why neither (for ``--json``).
        """
        if size is not None:
            formats.check_room(self.output, size)
        if description is not None:  # not over the data when it goes to the terminal
            quiet = self.quiet or paths.is_terminal(self.output)
            blocks = track_rows(blocks, total_rows=shape[0], description=description, quiet=quiet)
        with certificate.counting() as tally:
            writing.write_table(
                blocks,
                output=self.output,
                fmt=self.kind,
                shape=shape,
                dtype=dtype,
                columns=columns,
                header=self.header,
            )
        if certified and said is None:  # with the file's name: not for stdout or a device
            said = tally.certificate(dtype, math.prod(shape) if certified == "counted" else None)
        written = Written(self.output, self.kind, np.dtype(dtype), tuple(shape))
        self.say(written, said, not_certified=not_certified)


class PlotOutputs:
    """The figure file and the optional data file of a plotting command, checked up front.

    ``title`` (``--title``) is put on the built figure by ``retitle``, which the caller hands
    in (the figures layer's :func:`pecli.figures.style.retitle`: io does not import figures).
    """

    def __init__(
        self,
        output: str | None,
        default_name: str,
        data: str | None,
        quiet: bool,
        *,
        size: tuple[float, float] | None = None,
        dpi: float | None = None,
        default_size: tuple[float, float] = (9.0, 4.5),
        title: str | None = None,
        retitle: Callable[[Figure, str], None] | None = None,
    ) -> None:
        check_figure_size(size, dpi, default_size=default_size)  # before any work
        self.quiet, self.title, self.size, self.dpi = quiet, title, size, dpi
        self.retitle = retitle
        self.figure = default_name if output is None else output
        self.replacing_unnamed = output is None and os.path.lexists(default_name)
        self.figure_format = formats.resolve_format(
            self.figure, None, formats=formats.FIGURE_FORMATS, default="png", format_option=False
        )
        formats.check_output(self.figure, self.figure_format)
        self.data = data
        if data is not None:
            self.data_format = formats.resolve_format(
                data, None, parameter="data", format_option=False
            )
            formats.check_output(data, self.data_format, parameter="data")
            if paths.is_stdout_alias(data) and paths.is_stdout_alias(self.figure):
                rule = "cannot share stdout with the figure: give one of them a file name"
                raise ParameterError("data", rule, data)
            if not paths.is_special(data) and paths.same_file(data, self.figure):
                rule = f"is the figure's file {self.figure} (one would replace the other)"
                raise ParameterError("data", f"{rule}: give it another name", data)

    def write(self, build: Callable[[], Figure], table: np.ndarray, columns: list[str]) -> None:
        """Build the figure, then write it and the data (if asked) together; name them.

        Both go to temporary files that replace the old ones only once both are complete,
        so a failure or an interrupt leaves the previous figure and data file as they were.
        """
        figure = build()
        if self.title is not None and self.retitle is not None:  # --title
            self.retitle(figure, self.title)
        with contextlib.ExitStack() as files:
            figure_file = files.enter_context(guard.atomic_output(self.figure))
            if self.data is not None:
                data_file = files.enter_context(guard.atomic_output(self.data))
                writing.write_table_to(
                    data_file,
                    [table],
                    fmt=self.data_format,
                    shape=table.shape,
                    dtype=table.dtype,
                    columns=columns,
                )
            writing.save_figure_to(figure_file, figure, self.figure_format)
            with guard.signals_held():  # both renames happen, or (on an error) neither
                files.close()
        say_written(self.data, quiet=self.quiet)
        say_written(self.figure, quiet=self.quiet, unnamed=self.replacing_unnamed)


def write_streamed(
    blocks: Iterable[np.ndarray],
    *,
    output: str,
    fmt: str,
    shape: tuple[int, ...],
    dtype: np.dtype,
    columns: list[str],
    header: bool,
    quiet: bool,
    description: str,
    size: int | None,
    certified: str | None = None,
    not_certified: str | None = None,
    as_json: bool = False,
    notes: tuple[str, ...] = (),
) -> None:
    """Check the room for ``size`` bytes (if known), then write the blocks with progress."""
    target = TableTarget(
        "", output, fmt, header=header, quiet=quiet, kind=fmt, as_json=as_json, notes=notes
    )
    target.write(
        blocks,
        shape=shape,
        dtype=dtype,
        columns=columns,
        description=description,
        size=size,
        certified=certified,
        not_certified=not_certified,
    )


def track_rows(
    blocks: Iterable[np.ndarray], *, total_rows: int, description: str, quiet: bool
) -> Iterable[np.ndarray]:
    """Pass row blocks through unchanged, advancing a progress bar by their heights."""
    if quiet or not sys.stderr.isatty():
        return blocks
    return _with_bar(blocks, total_rows, description)


def _with_bar(
    blocks: Iterable[np.ndarray], total_rows: int, description: str
) -> Iterator[np.ndarray]:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = (
        "{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        "rows",
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=total_rows)
        for block in blocks:
            yield block
            bar.advance(task, len(block))
