"""What a writer says once its output is complete, for a person or (``--json``) a script.

For a person: ``pecli: wrote NAME`` and the certificate's line (``pecli: every value correctly
rounded to float32: 0 undecided``) on stderr, neither with ``-q``. For a script: exactly one
JSON object on stderr instead, also with ``-q`` (it was asked for), holding what was written
and its certificate (docs/cli.md#json-reports lists the fields). The command line declares the
option; this module builds the object and refuses an output that is stderr itself.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..core.errors import ParameterError
from . import paths

if TYPE_CHECKING:  # pragma: no cover
    from ..core.certificate import Certificate

__all__ = [
    "CERTIFICATE",
    "Written",
    "check_json_output",
    "json_report",
    "say_certified",
    "say_done",
    "say_written",
]

#: The safetensors metadata key of the certificate's report.
CERTIFICATE = "pecli_certificate"


@dataclass(frozen=True)
class Written:
    """What a writer wrote: the output's name, its format, dtype and shape.

    ``shape``: the array written (None for a file of several tensors); ``tensors``: a
    ``.safetensors`` file's tensors, name → (dtype, shape), in the file's order.

    Examples
    --------
    >>> Written("pe.npy", "npy", np.dtype("float32"), (2, 4)).values
    8

    """

    output: str
    fmt: str
    dtype: np.dtype
    shape: tuple[int, ...] | None
    tensors: dict[str, tuple[np.dtype, tuple[int, ...]]] | None = field(default=None)

    @property
    def values(self) -> int:
        """How many values were written (all tensors together)."""
        if self.tensors:
            return sum(math.prod(shape) for _, shape in self.tensors.values())
        return math.prod(self.shape or ())


def json_report(
    written: Written,
    certificate: Certificate | None,
    *,
    not_certified: str | None = None,
    notes: Sequence[str] = (),
) -> dict[str, object]:
    """The ``--json`` object of a written output and its certificate.

    Keys: ``output`` (``"-"`` for stdout), ``format``, ``dtype``, ``shape`` (a list; None for a
    file of several tensors), ``tensors`` (a ``.safetensors`` file's name → {dtype, shape},
    else None), ``certificate`` ({claim, checked, recomputed, values, message}, or None when
    the values are not certified), ``not_certified`` (why not, else None) and ``notes``.
    ``values`` is the values the claim is about: those written when each is a copy of a
    checked one (grids, rotary caches).

    Examples
    --------
    >>> from pecli.core.certificate import Tally
    >>> tally = Tally()
    >>> tally.add(checked=8, recomputed=1)
    >>> written = Written("-", "csv", np.dtype("float32"), (2, 4))
    >>> report = json_report(written, tally.certificate("float32", 8))
    >>> report["shape"], report["certificate"]["recomputed"]
    ([2, 4], 1)

    """
    report: dict[str, object] = {
        "output": "-" if paths.is_stdout(written.output) else str(written.output),
        "format": written.fmt,
        "dtype": np.dtype(written.dtype).name,
        "shape": None if written.shape is None else [int(k) for k in written.shape],
        "tensors": None,
        "certificate": None,
        "not_certified": None,
        "notes": list(notes),
    }
    if written.tensors is not None:
        report["tensors"] = {
            name: {"dtype": np.dtype(dtype).name, "shape": [int(k) for k in shape]}
            for name, (dtype, shape) in written.tensors.items()
        }
    if certificate is not None and certificate.certified:
        report["certificate"] = {
            "claim": certificate.claim,
            "checked": certificate.checked,
            "recomputed": certificate.recomputed,
            "values": written.values if certificate.values is None else certificate.values,
            "message": certificate.message,
        }
    elif certificate is not None:  # a path the certificate does not cover
        report["not_certified"] = certificate.message
    else:
        report["not_certified"] = not_certified or "not certified (docs/exactness.md)"
    return report


def say_done(
    written: Written,
    certificate: Certificate | None = None,
    *,
    quiet: bool,
    as_json: bool = False,
    certificate_quiet: bool | None = None,
    not_certified: str | None = None,
    notes: Sequence[str] = (),
) -> None:
    """Say that ``written`` is complete, and its certificate: two lines, or one JSON object.

    Without ``as_json``: :func:`say_written`, then (for a ``certificate``)
    :func:`say_certified`, silenced by ``quiet`` or ``certificate_quiet`` (default: quiet,
    stdout or a device, as the name is); ``notes`` were said before the work. With it: the
    object of :func:`json_report` on one line of stderr, whatever ``quiet``.
    """
    if as_json:
        report = json_report(written, certificate, not_certified=not_certified, notes=notes)
        sys.stderr.write(json.dumps(report) + "\n")
        sys.stderr.flush()
        return
    say_written(written.output, quiet=quiet)
    if certificate is not None:
        if certificate_quiet is None:
            output = written.output
            certificate_quiet = quiet or paths.is_stdout(output) or paths.is_special(output)
        say_certified(certificate.message, quiet=certificate_quiet)


def check_json_output(output: str | os.PathLike[str] | None) -> None:
    """Refuse an output that is stderr, where the JSON report goes (before any work).

    Raises
    ------
    ParameterError
        If ``output`` names descriptor 2 (``/dev/stderr``, ``/dev/fd/2``) or the very file
        stderr writes to, or is stdout (``-``) while stdout and stderr are the same file or
        pipe (``2>&1``): the report would land in the data. A terminal is let through (what
        is shown is not kept), and so is /dev/null.

    """
    if _is_stderr(output):
        rule = "cannot be stderr with `json` (the report goes there): give another output"
        if paths.is_stdout(output):
            rule = (
                "is stdout, which goes where stderr does (2>&1), with `json`: the report would"
                " be mixed into the data; send stderr elsewhere or give a file"
            )
        raise ParameterError("output", rule, str(output))


def _is_stderr(output: str | os.PathLike[str] | None) -> bool:
    if paths.is_stdout(output):
        return _stdout_is_stderr()
    if paths.descriptor(output) == 2:
        return True
    try:
        named, stderr = os.stat(str(output)), os.fstat(2)
    except (OSError, ValueError):
        return False
    if os.path.realpath(str(output)) == os.devnull:  # both may be /dev/null: no mixing
        return False
    return (named.st_dev, named.st_ino) == (stderr.st_dev, stderr.st_ino)


def _stdout_is_stderr() -> bool:
    """Whether descriptors 1 and 2 are one file or pipe (not a terminal, not /dev/null)."""
    try:
        out, err = os.fstat(1), os.fstat(2)
        shown = os.isatty(1)
        null = os.stat(os.devnull)
    except (OSError, ValueError):
        return False
    same = (out.st_dev, out.st_ino) == (err.st_dev, err.st_ino)
    return same and not shown and (out.st_dev, out.st_ino) != (null.st_dev, null.st_ino)


def say_written(output: str | None, *, quiet: bool, unnamed: bool = False) -> None:
    """``pecli: wrote NAME`` on stderr once a file is complete; nothing for stdout or a device.

    ``unnamed``: the name is a command's default (no ``-o``) and a file of that name was
    there before, which the message then says was replaced.
    """
    if quiet or paths.is_stdout(output) or paths.is_special(output):
        return
    note = " (no -o given: replaced the file of that name)" if unnamed else ""
    sys.stderr.write(f"pecli: wrote {output}{note}\n")


def say_certified(message: str, *, quiet: bool) -> None:
    """``pecli: every value correctly rounded to float32: 0 undecided`` on stderr (not ``-q``)."""
    if not quiet:
        sys.stderr.write(f"pecli: {message}\n")
