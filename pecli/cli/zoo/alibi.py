"""``pecli alibi``: slopes, bias tensors and identify for ALiBi (docs/zoo.md#alibi)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import numpy as np
import typer

from ...core.errors import ParameterError
from ...io import formats, writing
from .. import text
from .._app import PecliGroup, app
from ..options import Dtype, DtypeOpt, FormatOpt, Header, Quiet, TableOutput
from ..progress import say_written
from .output import ArrayFormatOpt, output_kind

alibi_app = typer.Typer(
    cls=PecliGroup,
    name="alibi",
    help="ALiBi (attention with linear biases): slopes for any head count, the bias tensors of "
    "BLOOM, Falcon, MPT and the paper, and which ALiBi a tensor is.\n\n"
    "Example: pecli alibi slopes --heads 12",
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(alibi_app)


class Variant(StrEnum):
    """Slope series (docs/zoo.md#alibi)."""

    press = "press"
    next_power_of_two = "next-power-of-two"
    geometric_at_n = "geometric-at-n"
    zero_based = "zero-based"


class BiasConvention(StrEnum):
    """Bias tensors (docs/zoo.md#alibi)."""

    causal = "causal"
    symmetric = "symmetric"
    bloom = "bloom"
    falcon = "falcon"
    mpt = "mpt"


Heads = Annotated[int, typer.Option("--heads", help="Number of attention heads n, 1 to 65536.")]
MaxBias = Annotated[
    float,
    typer.Option("--max-bias", help="b of m_h = 2^(-b·e_h): ggml max_bias, MPT alibi_bias_max."),
]
VariantOpt = Annotated[
    Variant,
    typer.Option(
        "--variant",
        help="press (the paper = MPT = ggml = BLOOM), or a wrong series found in ports: "
        "next-power-of-two, geometric-at-n, zero-based.",
    ),
]

DESCRIPTIONS = {
    "press": "the paper's rule (Press et al. get_slopes = MPT gen_slopes = ggml max_bias = BLOOM)",
    "next-power-of-two": "WRONG: the first n slopes of 2^ceil(log2 n) heads "
    "(get_slopes_power_of_2(next power of two)[:n])",
    "geometric-at-n": "WRONG: the power-of-two formula at a head count that is none "
    "(get_slopes_power_of_2(n))",
    "zero-based": "WRONG: the + 1 dropped, head 0 has slope 1",
    "causal": "causal -m·(i-j), -inf above the diagonal (the paper's figure)",
    "symmetric": "symmetric -m·|i-j| (encoders; MPT with full=True)",
    "bloom": "key-only m·j (transformers BLOOM build_alibi_tensor)",
    "falcon": "key-only m·j in bfloat16 (transformers Falcon build_alibi_tensor)",
    "mpt": "key-only m·(j-(k-1)), 0 on the last key (MPT build_mpt_alibi_tensor)",
}


@alibi_app.command("slopes")
def slopes_command(
    heads: Heads,
    max_bias: MaxBias = 8.0,
    variant: VariantOpt = Variant.press,
    dtype: DtypeOpt = Dtype.float32,
    output: TableOutput = "-",
    fmt: ArrayFormatOpt = None,
    quiet: Quiet = False,
) -> None:
    """The ALiBi slope m_h of each head h (0-based), for any head count.

    m_h = 2^(-b·(h+1)/P) for the P = 2^floor(log2 n) first heads, then every other slope of
    the doubled series, 2^(-b·(2(h-P)+1)/(2P)). Computed in float64 (correctly rounded),
    rounded once to --dtype. npy holds the (n,) vector; CSV and JSON head, slope, log2_slope.

    Example: pecli alibi slopes --heads 12 --format csv
    """
    from ...core.zoo.alibi import alibi_exponents, alibi_slopes

    kind = output_kind(output, fmt)
    slopes = alibi_slopes(heads, max_bias=max_bias, variant=variant.value).astype(dtype.value)
    log2 = -max_bias * alibi_exponents(heads, variant.value)
    if kind == "npy":
        writing.write_array(slopes, output=output)
    elif kind in ("csv", "json"):
        columns = {"head": np.arange(heads), "slope": slopes, "log2_slope": log2}
        writing.write_records(columns, output=output, fmt=kind)
    else:
        text.show(*_slopes_report(slopes, log2, max_bias, variant.value), output=output)
    say_written(output, quiet=quiet)


def _slopes_report(slopes: np.ndarray, log2: np.ndarray, b: float, variant: str) -> list[object]:
    n = slopes.size
    p = 1 << (n.bit_length() - 1)
    split = f"{p} heads" + (f", then {n - p} from the {2 * p}-head series" if p != n else "")
    table = text.titled_table("slopes", "head", "slope", "log2")
    for h in range(n):
        table.add_row(str(h), str(slopes[h]), f"{float(log2[h]):.10g}")
    summary = f"{n} heads, max_bias {b:g} ({split}); series {variant}: {DESCRIPTIONS[variant]}"
    return [summary, table]


@alibi_app.command("bias")
def bias_command(
    heads: Heads,
    n: Annotated[int, typer.Option("--n", help="Number of key positions k, >= 1.")] = 16,
    queries: Annotated[
        int | None,
        typer.Option(
            "--queries",
            help="causal/symmetric: the last q positions as queries. [default: --n]",
            show_default=False,
        ),
    ] = None,
    convention: Annotated[
        BiasConvention,
        typer.Option("--convention", help="causal, symmetric, bloom, falcon or mpt."),
    ] = BiasConvention.causal,
    max_bias: MaxBias = 8.0,
    variant: VariantOpt = Variant.press,
    left_padding: Annotated[
        int, typer.Option("--left-padding", help="bloom/falcon: padded keys before the text.")
    ] = 0,
    head: Annotated[
        int | None,
        typer.Option(
            "--head", help="Write only this head (0-based): a 2-D table.", show_default=False
        ),
    ] = None,
    dtype: DtypeOpt = Dtype.float32,
    output: TableOutput = "-",
    fmt: FormatOpt = None,
    header: Header = True,
    quiet: Quiet = False,
) -> None:
    """The ALiBi bias tensor of a convention: (heads, queries, keys), or (heads, 1, keys).

    causal and symmetric are (h, q, k) matrices; bloom, falcon and mpt the key-only rows the
    libraries broadcast over queries (equal after softmax, different as tensors). npy holds the
    whole tensor; CSV one 2-D table: --head's matrix, or the key-only rows, one per head.

    Example: pecli alibi bias --heads 8 --n 6 --head 0
    """
    from ...core.zoo.alibi import alibi_bias, alibi_slopes

    kind = formats.resolve_format(output, fmt.value if fmt else None)
    formats.check_output(output, kind)
    mask = _padding(left_padding, n, convention.value)
    pick = _select(heads, head, kind, convention.value)
    slopes = alibi_slopes(heads, max_bias=max_bias, variant=variant.value)
    slopes = slopes if head is None else slopes[head : head + 1]  # one head: built alone
    bias = alibi_bias(slopes, n, n_query=queries, convention=convention.value, attention_mask=mask)
    bias = pick(bias).astype(dtype.value)
    formats.check_room(output, bias.nbytes)
    writing.write_table(
        [bias],
        output=output,
        fmt=kind,
        shape=bias.shape,  # type: ignore[arg-type]
        dtype=bias.dtype,
        columns=[f"key_{j}" for j in range(n)],
        header=header,
    )
    say_written(output, quiet=quiet)


def _select(heads: int, head: int | None, kind: str, convention: str):  # type: ignore[no-untyped-def]
    """What is written of the (h, q, k) tensor; refuses a CSV that cannot hold it."""
    if head is not None and not 0 <= head < heads:
        raise ParameterError("head", f"must be a head index from 0 to {heads - 1}", head)
    key_only = convention in ("bloom", "falcon", "mpt")
    if kind == "csv" and head is None and not key_only:
        raise ParameterError(
            "head",
            "is needed for CSV: a causal or symmetric bias is 3-D "
            "(give --head H, or -o NAME.npy for every head)",
            "none",
        )
    if head is not None:
        return lambda b: b[0]
    return (lambda b: b[:, 0, :]) if kind == "csv" else (lambda b: b)


def _padding(left_padding: int, n: int, convention: str) -> list[int] | None:
    if left_padding == 0:
        return None
    if convention not in ("bloom", "falcon"):
        raise ParameterError(
            "left_padding", "applies to --convention bloom or falcon", left_padding
        )
    if not 0 < left_padding < n:
        raise ParameterError("left_padding", f"must be from 0 to --n - 1 ({n - 1})", left_padding)
    return [0] * left_padding + [1] * (n - left_padding)
