"""``pecli rope probe PRE POST``: RoPE read out of q (or k) dumped before and after it."""

from __future__ import annotations

import os
from typing import Annotated, Any

import numpy as np
import typer

from ...core.errors import ParameterError, RuntimeFailure
from ...io import text, writing
from ...io.reports import say_written
from ..json_report import FormatOpt, Output, report_kind
from ..options import Quiet
from .app import rope_app

PreArg = Annotated[
    str,
    typer.Argument(
        help="q (or k) before RoPE: .npy, CSV or .safetensors (- for stdin), e.g. "
        "(tokens, heads, head_dim)."
    ),
]
PostArg = Annotated[
    str,
    typer.Argument(help="The same vectors after RoPE (PRE's axes, unless --axes gives POST's)."),
]
PositionsOpt = Annotated[
    str | None,
    typer.Option(
        "--positions",
        "--ids",
        help="Each token's position: a list (0,1,7,100), a range START:STOP (8186:8194), or a "
        ".npy / CSV file, 1-D or one column per id axis (M-RoPE t, h, w). [default: 0 … T−1]",
    ),
]
AxesOpt = Annotated[
    str | None,
    typer.Option(
        "--axes",
        help="The dump's axes: b batch, t token, h head, d channel, f hidden (heads × "
        "head_dim), e.g. thd, bthd, bhtd, tf; PRE,POST when they differ (btf,bhtd). "
        "[default: tf, thd or bthd by rank]",
    ),
]
HeadsOpt = Annotated[int | None, typer.Option("--heads", min=1, help="Heads in a hidden (f) axis.")]
HeadDimOpt = Annotated[
    int | None, typer.Option("--head-dim", min=2, help="Channels per head in a hidden (f) axis.")
]
TensorPre = Annotated[
    str | None, typer.Option("--tensor-pre", help="PRE's tensor in a .safetensors file.")
]
TensorPost = Annotated[
    str | None, typer.Option("--tensor-post", help="POST's tensor in a .safetensors file.")
]


@rope_app.command("probe")
def probe_command(
    pre: PreArg,
    post: PostArg,
    positions: PositionsOpt = None,
    axes: AxesOpt = None,
    heads: HeadsOpt = None,
    head_dim: HeadDimOpt = None,
    tensor_pre: TensorPre = None,
    tensor_post: TensorPost = None,
    fmt: FormatOpt = None,
    output: Output = "-",
    quiet: Quiet = False,
) -> None:
    """Read RoPE out of q (or k) dumped before and after it: pairing, slice, θ, temperature.

    A rotating pair keeps its norm only under the true pairing (interleaved, half-split,
    over the whole head or a slice at either end); channels that stay put pass through;
    each pair's angle over the positions gives ω, and the ω give θ and the scaling (as
    rope identify reads them) and, with one id column per axis, the M-RoPE sections. No
    change at all is a NoPE layer; a factor on the whole vector that grows with the position
    is a query temperature (Llama 4's or Mistral's form, with β and L). Exit status 1 when
    no rotation explains the change, after the report.

    Example: pecli rope probe q_pre.npy q_post.npy --positions 0:6
    """
    from ...analysis.rope.probe import check_pair, probe_rope
    from ...analysis.rope.probe.verdict import explained, report

    kind = report_kind(output, fmt, {"PRE": pre, "POST": post, "--positions": positions})
    given = _axes(axes)
    x, batch = _dump(pre, tensor_pre, given[0], heads, head_dim, "pre")
    y, _ = _dump(post, tensor_post, given[1], heads, head_dim, "post")
    where = _positions(positions, x.shape[0] // batch, batch)
    _named(check_pair, x, y)
    reading = probe_rope(x, y, where)
    _write(report(reading), kind, output)
    say_written(output, quiet=quiet)
    if not explained(reading):
        raise RuntimeFailure(f"{post}: {_unexplained(reading, pre)} (see the notes)")


def _unexplained(reading: Any, pre: str) -> str:
    """Why POST's change from PRE is not read, in the closing error's words."""
    from ...analysis.rope.probe.reading import UNDETERMINED

    if reading.findings[:1] == [UNDETERMINED]:  # unchanged where RoPE changes nothing
        return f"unchanged from {pre}, as RoPE would leave vectors of zeros or at position 0"
    if reading.rope is None:
        return f"no rotation explains the change from {pre}"
    return f"its pairs turn from {pre} by angles no ω·position explains (--positions?)"


def _axes(text: str | None) -> tuple[str | None, str | None]:
    """PRE's and POST's axis letters: one spec for both, or two separated by a comma."""
    if text is None:
        return None, None
    parts = [part.strip() for part in text.split(",")]
    if len(parts) > 2 or not all(parts):
        raise ParameterError("axes", "must be letters (thd) or two specs PRE,POST (btf,bhtd)", text)
    return parts[0], parts[-1]


def _dump(
    path: str,
    tensor: str | None,
    axes: str | None,
    heads: int | None,
    head_dim: int | None,
    which: str,
) -> tuple[np.ndarray, int]:
    """One dump as (rows, heads, head_dim); a problem names PRE or POST, or --tensor-pre/post."""
    from ...analysis.rope.probe import as_rows
    from ...io.reading.activations import read_activations

    try:
        array = _named(read_activations, path, tensor=tensor, parameter=which)
    except ParameterError as error:
        if error.parameter == "tensor":
            raise ParameterError(f"tensor_{which}", error.rule, error.value) from None
        raise
    rows: tuple[np.ndarray, int] = _named(
        as_rows, array, axes, heads=heads, head_dim=head_dim, parameter=which
    )
    return rows


def _named(call: Any, *args: Any, **kwargs: Any) -> Any:
    """``call(*args, **kwargs)``, its ParameterError of ``pre`` / ``post`` naming PRE or POST."""
    try:
        return call(*args, **kwargs)
    except ParameterError as error:
        if error.parameter not in ("pre", "post"):
            raise
        hint = f"'{error.parameter.upper()}'"
        raise typer.BadParameter(f"{error.rule} (got {error.value})", param_hint=hint) from None


def _positions(given: str | None, tokens: int, batch: int) -> np.ndarray:
    """Each row's position(s): a file, a START:STOP range or a list; default 0 … tokens−1."""
    from ...analysis.rope.probe import token_positions

    if given is None:
        return token_positions(None, tokens, batch)
    if given == "-" or os.path.exists(given):
        from ...io.reading import read_array

        values = read_array(given, parameter="positions")
        if values.ndim > 2:
            raise ParameterError("positions", "must be a 1-D or 2-D table", f"shape {values.shape}")
    elif ":" in given:
        values = _range(given)
    else:
        from .cache import _listed

        values = _listed(given)
    return token_positions(values, tokens, batch)


def _range(given: str) -> np.ndarray:
    """``START:STOP`` as the integers START … STOP−1 (Python's range)."""
    try:
        start, stop = (int(part) for part in given.split(":"))
    except ValueError:
        start = stop = 0
    if stop <= start or stop - start > 1 << 26:
        rule = "must be START:STOP with integers START < STOP (the positions START … STOP−1)"
        raise ParameterError("positions", rule, given)
    return np.arange(start, stop, dtype=np.float64)


def _write(data: dict[str, Any], kind: str, output: str) -> None:
    from ...analysis.rope.probe.verdict import summary

    if kind == "json":
        writing.write_json(data, output=output)
        return
    lines = [f"verdict: {data['verdict']}", *summary(data)]
    tables = [_pairs_table(data)] if data["pairs"] else []
    if data["temperature"]["kind"] != "none" or data["gain_per_head"]:
        tables.append(_gains_table(data))
    notes = [f"note: {finding}" for finding in data["findings"]]
    text.show(*lines, *tables, *notes, output=output)


def _pairs_table(data: dict[str, Any]) -> Any:
    table = text.titled_table("pairs", "pair", "channels", "ω", "± ω", "axis")
    for pair in data["pairs"]:
        a, b = pair["channels_pre"]
        table.add_row(
            str(pair["pair"]),
            f"{a}, {b}"
            + (
                ""
                if pair["channels_post"] == [a, b]
                else " → {}, {}".format(*pair["channels_post"])
            ),
            _g(pair["omega"], 10),
            _g(pair["omega_error"], 2),
            "|".join(pair["axes"]) or ("?" if pair["readings"] > 1 else "none fits"),
        )
    return table


def _gains_table(data: dict[str, Any]) -> Any:
    table = text.titled_table("gain of each vector (post / pre)", "row", "position", "gain")
    for gain in data["gains"]:
        where = ", ".join(f"{p:g}" for p in gain["position"])
        table.add_row(str(gain["row"]), where, f"{gain['gain']:.8g}")
    return table


def _g(value: float | None, digits: int) -> str:
    return "—" if value is None else f"{value:.{digits}g}"
