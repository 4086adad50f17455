"""``pecli gguf``: a GGUF file's rotary metadata and frequency tensors, shown or checked.

The header is read with bounded reads (:mod:`pecli.io.ports.gguf`); only the F32 frequency tensors
are read, never the (quantised) weights.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from ...core.errors import RuntimeFailure
from ...io import text, writing
from ...io.reports import say_written
from .._app import PecliGroup, app
from ..json_report import FormatOpt, Output, report_kind
from ..options import Quiet

if TYPE_CHECKING:  # pragma: no cover
    from ...analysis.ports.gguf import Finding

gguf_app = typer.Typer(
    cls=PecliGroup,
    name="gguf",
    help="GGUF files (llama.cpp): rope metadata and frequency tensors, checked against a "
    "model's config.json.\n\nExample: pecli gguf check model.gguf --config config.json",
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(gguf_app)


GgufFileArg = Annotated[str, typer.Argument(help="A .gguf file (llama.cpp).")]
ConfigOpt = Annotated[
    str, typer.Option("--config", help="The model's config.json (or its folder).")
]
Ulps = Annotated[
    int,
    typer.Option(
        "--ulps",
        min=0,
        help="Largest difference per tensor element, in float32 ulps, "
        "that agrees (the converter computes rope_freqs in float32).",
    ),
]


@gguf_app.command("check")
def check_command(
    file: GgufFileArg,
    config: ConfigOpt,
    ulps: Ulps = 16,
    fmt: FormatOpt = None,
    output: Output = "-",
    quiet: Quiet = False,
) -> None:
    """Check a GGUF's rope keys and rope_freqs / rope_factors_* against its config.json.

    Each key ({arch}.rope.freq_base, .dimension_count, .scaling.type|factor|attn_factor|
    original_context_length|yarn_*, .dimension_sections, .freq_base_swa) is compared with
    what llama.cpp's convert_hf_to_gguf.py writes for the config (an absent key with
    llama.cpp's default), each tensor element within --ulps float32 ulps. Notes give the rope
    mode the architecture implies, what ggml cannot express (yarn truncate: false) and
    DeepSeek's log-multiplier. Exit status 0 when everything agrees, 1 otherwise.

    Example: pecli gguf check model.gguf --config config.json
    """
    from ...analysis.ports.gguf import check_gguf, summary
    from ...core.ports.gguf_format import FREQUENCY_TENSORS
    from ...io.ports.gguf import read_gguf, read_rope_tensors
    from ...io.reading.json_config import read_json_object

    kind = report_kind(output, fmt, {"FILE": file, "--config": config})
    settings = read_json_object(config, parameter="config")
    gguf = read_gguf(file, parameter="file")
    tensors = read_rope_tensors(gguf, FREQUENCY_TENSORS, parameter="file")
    findings = check_gguf(settings, gguf.arch, gguf.metadata, tensors, ulps=ulps, types=gguf.types)
    _report(findings, kind, output)
    say_written(output, quiet=quiet)
    bad = summary(findings)[1]
    if bad:
        names = ", ".join(f.item for f in findings if f.status in ("differ", "missing"))
        raise RuntimeFailure(f"{file} disagrees with {config} in {bad} item(s): {names}")


def _report(findings: list[Finding], kind: str, output: str) -> None:
    if kind == "json":
        rows = [
            {
                "item": f.item,
                "status": f.status,
                "expected": f.expected,
                "found": f.found,
                "detail": f.detail,
            }
            for f in findings
        ]
        writing.write_json(rows, output=output)
        return
    table = text.titled_table("rope keys and tensors", "item", "status", "expected", "found")
    for f in findings:
        if f.status != "note":
            table.add_row(f.item, f.status, _shown(f.expected), _shown(f.found))
    lines = [f"{f.item}: {f.detail}" for f in findings if f.status != "note" and f.detail]
    text.show(
        table, *lines, *(f"note: {f.detail}" for f in findings if f.status == "note"), output=output
    )


def _shown(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.9g}"
    return str(value) if str(value).isprintable() else repr(value)


@gguf_app.command("show")
def show_command(
    file: GgufFileArg, fmt: FormatOpt = None, output: Output = "-", quiet: Quiet = False
) -> None:
    """A GGUF's architecture, rope keys, rope mode and frequency tensors (never its weights).

    Lists every {arch}.rope.* key, the context length, the rope mode llama.cpp uses for the
    architecture, the F32 frequency tensors' values and how many tensors of each ggml type
    the file holds.

    Example: pecli gguf show model.gguf
    """
    from ...analysis.ports.gguf_show import show_lines, show_report, spelled
    from ...core.ports.gguf_format import FREQUENCY_TENSORS
    from ...io.ports.gguf import read_gguf, read_rope_tensors

    kind = report_kind(output, fmt, {"FILE": file})
    gguf = read_gguf(file, parameter="file")
    tensors = read_rope_tensors(gguf, FREQUENCY_TENSORS, "file")
    types = [tensor.type_name for tensor in gguf.tensors.values()]
    report = show_report(gguf.arch, gguf.version, gguf.metadata, types, tensors)
    if kind == "json":
        stored = {part: spelled(report[part]) for part in ("keys", "tensors")}
        writing.write_json({**report, **stored}, output=output)
    else:
        text.show(*show_lines(report), output=output)
    say_written(output, quiet=quiet)
