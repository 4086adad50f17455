"""``pecli rope``: the group, and its ``freqs`` and ``config`` commands (the others beside it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from ...core.errors import ParameterError
from ...io import text, writing
from ...io.reports import Written, check_json_output, say_done, say_written
from .._app import PecliGroup, app
from .._types import PositionType
from ..json_report import ArrayFormatOpt, FormatOpt, Output, table_kind
from ..options import LAYER_INDEX, Dtype, JsonReport, Quiet
from .options import rope_spec_options

if TYPE_CHECKING:  # pragma: no cover
    from ...core.rope import RopeFrequencies, RopeSpec

rope_app = typer.Typer(
    cls=PecliGroup,  # `pecli rope` alone prints its help and succeeds, as `pecli` does
    name="rope",
    help="Rotary position embeddings (RoPE): frequencies, caches, configs, permutation.\n\n"
    "Example: pecli rope freqs --rope-type llama3 --theta 500000 --factor 8 --low-freq-factor 1 "
    "--high-freq-factor 4 --original-max-position-embeddings 8192",
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(rope_app)


report_kind = table_kind  # the rope reports' --format and -o, checked (json_report)
RopeStart = Annotated[
    int,
    typer.Option(
        "--start",
        click_type=PositionType("must be an integer, in digits, with |start| + n <= 2^53"),
        help="First position (transformers: 0).",
    ),
]
RopeLayout = Annotated[
    str,
    typer.Option(
        "--layout",
        help="half-split (rotate_half, hf, llama, neox, qwen, gemma, llama.cpp-neox, vllm-neox, "
        "mlx, flash-attn) or interleaved (gptj, meta, rotate_every_two, llama.cpp-norm, "
        "vllm-gptj, mlx-traditional, flash-attn-interleaved, deepseek).",
    ),
]


FreqsOutput = Annotated[
    str,
    typer.Option(
        "-o", "--output", help="Output file (.csv, .json; .npy: the inv_freq vector), or -."
    ),
]
FreqsDtype = Annotated[
    Dtype | None,
    typer.Option("--dtype", help="dtype of the .npy vector. [default: float32, as a buffer]"),
]


@rope_app.command("freqs")
@rope_spec_options()
def freqs_command(
    fmt: ArrayFormatOpt = None,
    output: FreqsOutput = "-",
    dtype: FreqsDtype = None,
    quiet: Quiet = False,
    as_json: JsonReport = False,
    *,
    rope: tuple[RopeSpec, list[str]],
) -> None:
    """inv_freq ω_i, wavelength λ_i = 2π/ω_i and what the scaling did, per rotary pair i.

    The attention factor (which multiplies cos and sin) heads the table and is a column of
    the CSV and JSON. Values come from the exact formula of each rope_type, rounded once.
    As .npy, the inv_freq vector alone (shape (rotary_dim/2,)), as a model's buffer holds it.

    Example: pecli rope freqs --rope-type llama3 --theta 500000 --factor 8 --low-freq-factor 1
    --high-freq-factor 4 --original-max-position-embeddings 8192
    """
    from ...core.rope import rope_frequencies
    from ...core.rope.frequencies import frequency_columns

    kind = report_kind(output, fmt, ("csv", "json", "npy"))
    if dtype is not None and kind != "npy":
        raise ParameterError(
            "dtype", "applies only to .npy output (CSV and JSON keep float64)", dtype.value
        )
    if as_json:
        check_json_output(output)
    if as_json and kind != "npy":
        rule = "applies only to .npy output (the inv_freq vector, rounded under the certificate)"
        raise ParameterError("json", rule, kind)
    freqs = rope_frequencies(rope[0])
    columns = frequency_columns(freqs)
    if kind == "npy":
        chosen = np.dtype(dtype or "float32")
        return _write_freqs(freqs, output, chosen, quiet=quiet, as_json=as_json)
    if kind != "table":
        writing.write_records(columns, output=output, fmt=kind)
    else:
        text.show(*_summary(freqs, rope[1]), _freq_table(columns), output=output)
    say_written(output, quiet=quiet)


def _write_freqs(
    freqs: RopeFrequencies, output: str, dtype: np.dtype, *, quiet: bool, as_json: bool
) -> None:
    """inv_freq as .npy, rounded from its exact double-double under the certificate."""
    from ...core import certificate

    stored = np.empty(freqs.inv_freq.shape, dtype=dtype)
    recomputed = certificate.rounded_sum(freqs.inv_freq, freqs.residual, stored)
    writing.write_vector(stored, output=output, dtype=dtype)
    tally = certificate.Tally()
    tally.add(checked=stored.size, recomputed=recomputed)
    said = tally.certificate(dtype, stored.size)
    say_done(Written(output, "npy", dtype, stored.shape), said, quiet=quiet, as_json=as_json)


def _summary(freqs: RopeFrequencies, findings: list[str]) -> list[str]:
    spec = freqs.spec
    counts = ", ".join(f"{k} {v}" for k, v in freqs.counts().items())
    lines = [
        f"rope_type {spec.rope_type}, θ = {_round_trip(spec.theta)}, head_dim {spec.head_dim}, "
        f"rotated width {spec.rotary_dim} ({freqs.inv_freq.size} pairs)",
        f"attention factor {freqs.attention_factor!r}; pairs: {counts}",
    ]
    lines += [f"{k} = {v!r}" for k, v in freqs.notes.items()]
    return lines + [f"note: {finding}" for finding in findings]


def _round_trip(value: float) -> str:
    """``value`` with the digits that read back to it (500000, 1.0000000001, 1e+20)."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def _freq_table(columns: dict[str, np.ndarray]) -> Any:
    table = text.Columns()
    for name in ("pair i", "ω_i (rad / position)", "λ_i (positions)", "ω_i / unscaled", "scaling"):
        table.add_column(name, justify="left" if name == "scaling" else "right")
    for i, omega, lam, ratio, kind in zip(
        *(columns[k] for k in ("pair", "inv_freq", "wavelength", "ratio", "scaling")), strict=True
    ):
        table.add_row(str(i), f"{omega:.10g}", f"{lam:.10g}", f"{ratio:.6g}", str(kind))
    return table


ConfigFile = Annotated[str, typer.Argument(help="A model's config.json, or its folder.")]
SeqLen = Annotated[
    int | None, typer.Option("--seq-len", help="Sequence length (dynamic, longrope).")
]


# The reports that have no CSV form (config, permute, identify): the options of gguf and diff.
JsonFormatOpt = FormatOpt
JsonOutput = Output


ConfigLayer = Annotated[
    int | None,
    typer.Option(
        "--layer",
        click_type=LAYER_INDEX,
        help="The layer (0-based) to read, for models whose layers differ.",
    ),
]


@rope_app.command("config")
def config_command(
    file: ConfigFile,
    layer: ConfigLayer = None,
    seq_len: SeqLen = None,
    fmt: JsonFormatOpt = None,
    output: JsonOutput = "-",
    quiet: Quiet = False,
) -> None:
    """What a model's config.json says about its rotary embedding, read as transformers 5 does.

    Both generations of configs are read (transformers 4: rope_theta + rope_scaling, 'type'
    for rope_type; transformers 5: rope_parameters). Findings name the fields an older or
    careless parser gets wrong; a field the rope type needs and the config lacks is an error.

    Example: pecli rope config path/to/config.json
    """
    from ...core.rope import rope_frequencies
    from ...io.reading.json_config import config_path, read_json_object
    from .options import config_spec

    kind = report_kind(output, fmt, ("json",), inputs=(config_path(file),))
    config = read_json_object(file, parameter="file")
    spec, findings = config_spec(config, layer, seq_len, parameter="file")
    freqs = rope_frequencies(spec)
    derived = {"rotary_dim": spec.rotary_dim, "attention_factor": freqs.attention_factor}
    report = {**_plain(spec.given()), **derived, "pairs": freqs.counts(), **freqs.notes}
    if kind == "json":
        writing.write_json({**report, "findings": findings}, output=output)
    else:
        text.show(*_summary(freqs, findings), output=output)
    say_written(output, quiet=quiet)


def _plain(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in fields.items()}
