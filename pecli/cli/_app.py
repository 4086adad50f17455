"""The Typer application and the one place where errors become exit statuses (docs/cli.md).

* usage errors (bad option values, :class:`~pecli.core.errors.ParameterError` from the library)
  print one line on stderr and exit with status 2;
* runtime failures (``OSError`` while writing, …) print one line and exit with status 1,
  and so does a bug (an unexpected exception), whose traceback ``PECLI_TRACEBACK=1`` shows;
* runtime failures raised as :class:`~pecli.core.errors.RuntimeFailure` print their message;
* Ctrl-C exits with 130, SIGTERM with 143 and a closed stdout pipe (``pecli … | head``)
  with 141, quietly; partial output files are removed in each case.
"""

from __future__ import annotations

import errno
import os
import re
import sys
import warnings
from typing import Any

import typer

try:  # typer >= 0.26 vendors click; earlier releases use click itself
    from typer._click import exceptions as click_exceptions  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the installed typer
    from click import exceptions as click_exceptions  # type: ignore[no-redef]
from typer.core import TyperGroup

from .. import __version__
from ..core.errors import ParameterError, RuntimeFailure
from ..io import guard, paths, streams

EXIT_USAGE = 2
EXIT_RUNTIME = 1
EXIT_INTERRUPTED = 130


def _fail(prog: str, message: str, status: int) -> None:
    sys.stderr.write(f"{prog}: error: {message}\n")
    sys.stderr.flush()
    sys.exit(status)


#: Library argument names that are positional arguments, not options, on the command line.
_ARGUMENTS = {"x": "VALUES...", "file": "FILE", "shape": "SHAPE..."}
#: How a message names an option it mentions, where that is not ``--name``.
_MENTIONED = {"output": "-o"}
#: A parameter named in a rule or a library's text: ```n``` (core/errors.py).
_NAMED = re.compile(r"`([a-z][a-z0-9_]*)`")


def option_name(parameter: str) -> str:
    """The command line's name of a library parameter: ``padding_idx`` → ``--padding-idx``.

    >>> option_name("padding_idx"), option_name("x")
    ('--padding-idx', 'VALUES...')
    """
    return _ARGUMENTS.get(parameter) or "--" + parameter.replace("_", "-")


def option_words(text: str) -> str:
    """``text`` with each parameter it names in backticks written as its option.

    Below the command line, a rule names the other parameters it involves in backticks
    (``"must be an integer from 1 to `n` (6)"``); here they become options.

    >>> option_words("applies only to `preset` mae; bfloat16 goes only to `output` NAME")
    'applies only to --preset mae; bfloat16 goes only to -o NAME'
    """
    return _NAMED.sub(lambda m: _MENTIONED.get(m[1]) or option_name(m[1]), text)


def parameter_message(error: ParameterError, typed: str | None = None) -> str:
    """``Invalid value for '--d': must be an even integer from 2 to 131072 (got 3)``.

    ``typed``: the option's name as the user typed it, for an option with several names.
    """
    option = typed or option_name(error.parameter)
    from . import _hints  # difflib: only when there is an error to explain

    rule = option_words(error.rule)
    guess = _hints.rule_with_guess(rule, error.value)  # a name one letter off: the closest
    if guess is not None:
        return f"Invalid value for '{option}': {error.value!r} {guess}"
    value = option_words(error.value) if isinstance(error.value, str) else error.value
    return f"Invalid value for '{option}': {rule} (got {value})"


def _is_bug(error: Exception) -> bool:
    return not isinstance(
        error, click_exceptions.ClickException | ParameterError | RuntimeFailure | OSError
    )


def _explain(error: Exception, typed: str | None = None) -> tuple[str, int]:
    """The one-line message and the exit status of a failure (docs/cli.md).

    ``typed``: how the user spelled the option a :class:`ParameterError` names.
    """
    if isinstance(error, click_exceptions.ClickException):
        return error.format_message(), error.exit_code
    if isinstance(error, ParameterError):
        return parameter_message(error, typed), EXIT_USAGE
    mapping = isinstance(error, ImportError) and "failed to map segment" in str(error)
    if isinstance(error, MemoryError) or mapping or getattr(error, "errno", None) == errno.ENOMEM:
        return f"out of memory: {str(error) or 'a memory limit was reached'}", EXIT_RUNTIME
    if isinstance(error, RuntimeError) and "can't start new thread" in str(error):
        return "cannot start threads: a limit on processes or memory was reached", EXIT_RUNTIME
    if isinstance(error, RuntimeFailure):
        return str(error), EXIT_RUNTIME
    if isinstance(error, typer.Abort):
        return "interrupted", EXIT_INTERRUPTED
    if isinstance(error, OSError):
        return f"{error.strerror or error}: {error.filename or ''}".rstrip(": "), EXIT_RUNTIME
    where = "PECLI_TRACEBACK=1 shows where"  # a bug: still one line; the traceback on request
    return f"internal error: {type(error).__name__}: {error} ({where})", EXIT_RUNTIME


def _names_file(value: object, filename: str) -> bool:
    """Whether the option value ``value`` names ``filename`` (a folder names its config.json)."""
    if not isinstance(value, str) or not value:
        return False
    if value == filename:
        return True
    try:
        same = os.path.samefile(value, filename)
        return same or os.path.samefile(value, os.path.dirname(filename) or ".")
    except (OSError, ValueError):
        return False


class PecliGroup(TyperGroup):
    """Runs a command and turns every failure into one line and an exit status."""

    running = ""  # the subcommand being run, for the error prefix ("pecli compute: error:")
    chosen: Any = None  # its command: a sub-group (``pecli rope``) names its own subcommand
    words: tuple[str, ...] = ()  # the arguments given to that command, for its errors' hints

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name, command, rest = super().resolve_command(ctx, args)
        self.running, self.chosen, self.words = name or "", command, tuple(rest)
        if isinstance(command, PecliGroup):  # a group run again (in-process) starts afresh
            command.running, command.chosen, command.words = "", None, ()
        from ._types import house_type  # refusals in pecli's words: once a command is chosen

        for param in getattr(command, "params", []):
            param.type = house_type(param.type)
        return name, command, rest

    def running_path(self) -> str:
        """The subcommands being run, sub-groups included: ``compute``, ``rope cache``."""
        inner = self.chosen.running_path() if isinstance(self.chosen, PecliGroup) else ""
        return f"{self.running} {inner}".strip()

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """``pecli`` alone prints the help on stdout and succeeds, as most tools do."""
        if not args and not ctx.resilient_parsing:
            typer.echo(ctx.get_help())
            ctx.exit(0)
        try:
            return super().parse_args(ctx, args)  # type: ignore[no-any-return]
        except click_exceptions.NoSuchOption as error:  # pecli --d 512 compute
            from . import _hints

            hint = _hints.options_first_hint(error.option_name, self, args, ctx.command_path)
            if hint:  # not "Did you mean '--help'?": the option exists, in the wrong place
                error.message, error.possibilities = error.message + hint, None
            raise

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The commands, each with its first sentence whole (click cuts it at ~45 characters).

        The sentence wraps in the right column, so the listing reads in 80 or 100 columns.
        """
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=1 << 20)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def add_hint(self, error: Exception) -> None:
        """Add to a usage error of the command being run what was probably meant."""
        inner = self
        while isinstance(inner.chosen, PecliGroup):
            inner = inner.chosen
        if not isinstance(error, click_exceptions.UsageError) or error.ctx is None:
            return
        from . import _hints

        command = error.ctx.command
        typed = error.option_name if isinstance(error, click_exceptions.NoSuchOption) else None
        word = _hints.one_dash_long(command, inner.words, typed)
        if word is not None:  # -dtype: click read -d -t …; said of the word and its --dtype
            hint = f"Did you mean '-{word}'? Long options take two dashes."
            if isinstance(error, click_exceptions.NoSuchOption):
                error.message, error.possibilities = f"No such option '{word}'. {hint}", None
            else:  # -output 3: -o took "utput" as its value, and 3 was left over
                error.message += f"{_hints.one_dash_reading(command, word)}. {hint}"
        elif isinstance(error, click_exceptions.NoSuchOption):
            error.message += _hints.one_dash_hint(error.option_name, command)
        elif hint := _hints.one_dash_value(command, inner.words, error.message):
            error.message += hint  # timestep -d 8: '-d' was read as a value
        elif "unexpected extra argument" in error.message:
            error.message += _hints.comma_hint(command, inner.words)

    def unreadable_input(self, error: Exception) -> tuple[str, int] | None:
        """An input the user named that cannot be opened: a usage error naming its option.

        ``Permission denied`` on a file given to an option or argument is the input's fault,
        as a missing one is (status 2); on any other file (a cache, a temporary) it stays a
        runtime failure.
        """
        if not isinstance(error, PermissionError) or not error.filename:
            return None
        inner = self
        while isinstance(inner.chosen, PecliGroup):
            inner = inner.chosen
        command = inner.chosen
        try:  # the values the command was given, as it parsed them (errors left aside)
            ctx = command.make_context(inner.running, list(inner.words), resilient_parsing=True)
        except Exception:  # a command line that does not parse names nothing
            return None
        for param in command.params:
            value = ctx.params.get(param.name or "")
            given = value if isinstance(value, list | tuple) else [value]
            if any(_names_file(v, os.fsdecode(error.filename)) for v in given):
                name = param.human_readable_name  # FILE, A: an argument's metavar
                if param.param_type_name == "option":
                    name = max(param.opts, key=len)  # --input, not -i
                rule = f"cannot be read ({error.strerror})"
                return f"Invalid value for '{name}': {rule} (got {error.filename})", EXIT_USAGE
        return None

    def typed_option(self, error: Exception) -> str | None:
        """The long name the user typed for the option a ParameterError names, if it has two.

        ``rope identify --key ""`` is about --key, not its other name --tensor; ``rope cache
        --no-truncate`` about --no-truncate. None for an option of one long name (``-o`` is
        still said ``--output``) or one not typed.
        """
        if not isinstance(error, ParameterError):
            return None
        inner = self
        while isinstance(inner.chosen, PecliGroup):
            inner = inner.chosen
        typed = [word.split("=", 1)[0] for word in inner.words]
        for param in getattr(inner.chosen, "params", []):
            flags = (*param.opts, *getattr(param, "secondary_opts", ()))  # --no-x too
            names = [o for o in flags if o.startswith("--")]
            if param.name == error.parameter and len(names) > 1:
                return next((word for word in reversed(typed) if word in names), None)
        return None

    def invoke(self, ctx: Any) -> Any:
        """Run the command; an ``EOFError`` is a failure, not the interrupt click makes of it."""
        try:
            return super().invoke(ctx)
        except EOFError as error:  # click: Abort, reported as "interrupted" with status 130
            raise RuntimeFailure(f"unexpected end of input ({error or 'no data left'})") from None

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        self.running, self.chosen, self.words = "", None, ()  # nothing of an earlier run
        guard.begin_run()
        try:
            with paths.reading_inputs():  # no output may replace a file the command reads
                status = super().main(*args, **kwargs)
            if guard.signal_status():  # also when a handler's KeyboardInterrupt was swallowed
                sys.exit(guard.signal_status())
        except guard.OutputClosed:
            self._pipe_closed(kwargs)
        except SystemExit as done:
            # typer (help) and rich (tables) handle a closed pipe themselves: they silence
            # stdout and exit with 1; the status should still say "pipe closed"
            if done.code == 1 and guard.pipe_was_closed():
                self._pipe_closed(kwargs)
            raise
        except Exception as error:
            if guard.signal_status():  # a failure that followed a signal: the signal is the news
                sys.exit(guard.signal_status())
            if os.environ.get("PECLI_TRACEBACK") and _is_bug(error):
                raise
            self.add_hint(error)
            from ._types import in_option_rule  # --start's range in the option's words

            error = in_option_rule(error, self)
            message, code = self.unreadable_input(error) or _explain(
                error, self.typed_option(error)
            )
            _fail(self._prog(kwargs), message, code)
        sys.exit(status if isinstance(status, int) else 0)

    def _pipe_closed(self, kwargs: dict[str, Any]) -> None:
        """A reader that went away is quiet (141); a stdout closed from the start is named."""
        if streams.closed(1):
            message = "stdout is closed (>&-): give -o FILE or open it"
            _fail(self._prog(kwargs), message, EXIT_RUNTIME)
        sys.exit(guard.EXIT_BROKEN_PIPE)

    def _prog(self, kwargs: dict[str, Any]) -> str:
        prog = kwargs.get("prog_name") or "pecli"
        return f"{prog} {self.running_path()}".strip()


app = typer.Typer(
    cls=PecliGroup,
    name="pecli",
    help="Position encodings, exact: sinusoidal tables, rotary embeddings (RoPE, multi-axis), "
    "ALiBi, T5 buckets and their kin. Compute, export and draw them; identify the convention "
    "of a table, a cache, a checkpoint or a GGUF file; diff two of them.\n\n"
    "Example: pecli compute --d 4 --n 2 --format csv  (pecli COMMAND --help for each command)",
    no_args_is_help=True,
    add_completion=True,
    suggest_commands=False,  # click suggests already: "Did you mean …?" once
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"pecli {__version__}")
        typer.echo(f"certificate: {_certificate_pass()}")
        raise typer.Exit()


def _certificate_pass() -> str:
    """Which pass rounds under the certificate: the C extension if built, else NumPy's.

    The extension is looked up as a file beside its source, without importing NumPy (start-up).
    """
    from importlib.machinery import EXTENSION_SUFFIXES

    folder = os.path.join(os.path.dirname(os.path.dirname(__file__)), "core", "certificate")
    if any(os.path.exists(os.path.join(folder, "_fused" + s)) for s in EXTENSION_SUFFIXES):
        return "compiled pass"
    return "NumPy pass (no C compiler when pecli was installed; docs/exactness.md)"


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", help="Print the version and exit.", callback=_version, is_eager=True
    ),
) -> None:
    """pecli: the sinusoidal positional encoding (Vaswani et al. 2017, §3.5) as a tool.

    Tables start at position 1 with interleaved sin/cos components, as in the article;
    use --start 0 for the 0-based tables of PyTorch and most frameworks.
    """


def figures(name: str) -> Any:
    """The module ``pecli.figures.<name>``, for a command that draws.

    matplotlib logs its cache troubles (a read-only ``MPLCONFIGDIR``) as warnings on stderr;
    they are not the user's errors. ``logging`` is imported here, not at start-up.
    """
    import importlib
    import logging

    logging.getLogger("matplotlib").addHandler(logging.NullHandler())
    return importlib.import_module(f"pecli.figures.{name}")


def main(application: typer.Typer = app) -> None:
    """Run ``application``: signals unwind (:mod:`pecli.io.guard`), then the group runs.

    The console script passes ``app`` trimmed to the command it names (:func:`pecli.cli.main`).
    """
    # matplotlib's layout hints (a legend too large to fit, …) are not the user's errors
    warnings.filterwarnings("ignore", category=UserWarning, module="matplotlib")
    # … also when matplotlib attributes them to the caller (a legend too wide for its figure)
    warnings.filterwarnings(
        "ignore", message=".*(constrained_layout|tight_layout)", category=UserWarning
    )
    # NumPy's overflow notes: every result is checked for finiteness and reported as one line
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    guard.unwind_on_signal()
    for stream in (sys.stdout, sys.stderr):  # LC_ALL=C: "?" for "…", not UnicodeEncodeError
        if stream is not None and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    try:
        application(prog_name="pecli")
    except KeyboardInterrupt:  # a signal while typer builds the commands, before the group runs
        guard.exit_now(guard.signal_status(EXIT_INTERRUPTED))
    except SystemExit as done:  # after a signal or a failure, leave without the shutdown:
        if guard.signal_status() or done.code:  # a library's worker threads (polars) may still
            guard.exit_now(int(done.code or 0))  # be winding down, and it would abort them
        raise
