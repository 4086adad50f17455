"""``pecli alibi``: slopes, bias tensors and identify for ALiBi (docs/zoo.md#alibi)."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Annotated

import numpy as np
import typer

from ...core.errors import ParameterError
from ...core.zoo.alibi import (
    ALIBI_CONVENTIONS,
    ALIBI_SERIES,
    CONVENTIONS,
    MAX_BIAS_VALUES,
    VARIANTS,
    AlibiConvention,
    names,
)
from ...io import text, writing
from ...io.reports import Written, check_json_output, say_done
from ...io.targets import TableTarget
from .._app import PecliGroup, app
from ..json_report import ArrayFormatOpt, array_kind
from ..options import Dtype, DtypeOpt, JsonReport, Quiet, TableOutput, table_options

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


#: Slope series (docs/zoo.md#alibi): ALIBI_SERIES's names.
Variant = StrEnum("Variant", {name: name for name in VARIANTS})  # type: ignore[misc]
#: Bias tensors (docs/zoo.md#alibi): ALIBI_CONVENTIONS's names.
BiasConvention = StrEnum("BiasConvention", {name: name for name in CONVENTIONS})  # type: ignore[misc]

_MATRICES = [c for c in ALIBI_CONVENTIONS.values() if not c.key_only]
_MASKED = [c for c in ALIBI_CONVENTIONS.values() if c.takes_mask]
_RIGHT = [s for s in ALIBI_SERIES.values() if s.right]
_WRONG = [s for s in ALIBI_SERIES.values() if not s.right]
#: The defaults: the right series, and the first bias tensor (the paper's causal one).
RIGHT = Variant(_RIGHT[0].name)
FIRST = BiasConvention(CONVENTIONS[0])

Heads = Annotated[int, typer.Option("--heads", help="Number of attention heads n, 1 to 65536.")]
MaxBias = Annotated[
    float,
    typer.Option("--max-bias", help="b of m_h = 2^(-b·e_h): ggml max_bias, MPT alibi_bias_max."),
]
VariantOpt = Annotated[
    Variant,
    typer.Option(
        "--variant",
        help=f"{names(_RIGHT, 'or')} ({_RIGHT[0].aka}), or a wrong series found in ports: "
        f"{', '.join(s.name for s in _WRONG)}.",
    ),
]
ConventionOpt = Annotated[
    BiasConvention,
    typer.Option("--convention", help=f"{names(ALIBI_CONVENTIONS.values(), 'or')}."),
]
#: What each series and each bias tensor is, in the reports' words.
DESCRIPTIONS = {
    **{s.name: s.summary for s in ALIBI_SERIES.values()},
    **{c.name: c.summary for c in ALIBI_CONVENTIONS.values()},
}


@alibi_app.command("slopes")
def slopes_command(
    heads: Heads,
    max_bias: MaxBias = 8.0,
    variant: VariantOpt = RIGHT,
    dtype: DtypeOpt = Dtype.float32,
    output: TableOutput = "-",
    fmt: ArrayFormatOpt = None,
    quiet: Quiet = False,
    as_json: JsonReport = False,
) -> None:
    """The ALiBi slope m_h of each head h (0-based), for any head count.

    m_h = 2^(-b·(h+1)/P) for the P = 2^floor(log2 n) first heads, then every other slope of
    the doubled series, 2^(-b·(2(h-P)+1)/(2P)). Each exact slope rounded once to --dtype
    (by an error bound); a slope below its normal range is refused. npy holds the (n,)
    vector; CSV and JSON head, slope, log2_slope.

    Example: pecli alibi slopes --heads 12 --format csv
    """
    from ...core.certificate import Certificate
    from ...core.zoo.alibi import alibi_exponents, alibi_slopes

    kind = array_kind(output, fmt)
    if as_json:
        check_json_output(output)
    slopes = alibi_slopes(heads, max_bias=max_bias, variant=variant.value, dtype=dtype.value)
    log2 = -max_bias * alibi_exponents(heads, variant.value)
    if kind == "npy":
        writing.write_array(slopes, output=output)
    elif kind in ("csv", "json"):
        columns = {"head": np.arange(heads), "slope": slopes, "log2_slope": log2}
        writing.write_records(columns, output=output, fmt=kind)
    else:
        text.show(*_slopes_report(slopes, log2, max_bias, variant.value), output=output)
    written = Written(output, kind, slopes.dtype, slopes.shape)
    said = Certificate.proven(slopes.dtype, slopes.size)  # each under a proof (alibi/powers.py)
    say_done(
        written,
        said,
        quiet=quiet,
        as_json=as_json,
    )


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
@table_options(certified=True)
def bias_command(
    heads: Heads,
    n: Annotated[int, typer.Option("--n", help="Number of key positions k, >= 1.")] = 16,
    queries: Annotated[
        int | None,
        typer.Option(
            "--queries",
            help=f"{'/'.join(c.name for c in _MATRICES)}: the last q positions as queries. "
            "[default: --n]",
            show_default=False,
        ),
    ] = None,
    convention: ConventionOpt = FIRST,
    max_bias: MaxBias = 8.0,
    variant: VariantOpt = RIGHT,
    left_padding: Annotated[
        str,
        typer.Option(
            "--left-padding",
            help=f"{'/'.join(c.name for c in _MASKED)}: padded keys before the text; one per "
            "sequence (3,0) for a batch: (batch·heads, 1, keys) as BLOOM builds it.",
        ),
    ] = "0",
    head: Annotated[
        int | None,
        typer.Option(
            "--head", help="Write only this head (0-based): a 2-D table.", show_default=False
        ),
    ] = None,
    *,
    out: TableTarget,
) -> None:
    """The ALiBi bias tensor of a convention: (heads, queries, keys), or (heads, 1, keys).

    causal and symmetric are (h, q, k) matrices; bloom, falcon and mpt the key-only rows the
    libraries broadcast over queries (equal after softmax, different as tensors). npy holds the
    whole tensor; CSV one 2-D table: --head's matrix, or the key-only rows, one per head.

    Example: pecli alibi bias --heads 8 --n 6 --head 0
    """
    from ...core.zoo.alibi import exact_slopes
    from ...core.zoo.alibi.blocks import alibi_bias_blocks

    record = ALIBI_CONVENTIONS[convention.value]
    kind = out.check()
    slopes = exact_slopes(heads, max_bias=max_bias, variant=variant.value)
    slopes.rounded(out.dtype)  # refuses a slope of 0 or a subnormal in --dtype
    masks = _masks(left_padding, n, record, heads if head is None else 1, queries)
    pick = _select(heads, head, kind, record, batch=len(masks))
    slopes = slopes if head is None else slopes.pick(head, head + 1)  # one head: built alone
    dtype = np.dtype(out.dtype)
    parts = [  # a batch: each sequence's heads in turn, as BLOOM's reshape
        alibi_bias_blocks(
            slopes, n, n_query=queries, convention=record.name, attention_mask=m, dtype=dtype
        )
        for m in masks
    ]
    whole = (sum(w[0] for w, _ in parts), *parts[0][0][1:])
    shape = pick(np.broadcast_to(np.False_, whole)).shape  # written a block of heads at a time
    out.write(
        (pick(b) for _, blocks in parts for b in blocks),
        shape=shape,
        dtype=dtype,
        columns=[f"key_{j}" for j in range(n)],
        size=math.prod(shape) * dtype.itemsize,
        certified=None if record.bfloat16 else "copied",  # Falcon's: bfloat16 on purpose
        not_certified=f"--convention {record.name}: its bfloat16 arithmetic, on purpose",
    )


def _select(heads: int, head: int | None, kind: str, record: AlibiConvention, batch: int = 1):  # type: ignore[no-untyped-def]
    """What is written of the (h, q, k) tensor; refuses a CSV that cannot hold it."""
    if head is not None and not 0 <= head < heads:
        raise ParameterError("head", f"must be a head index from 0 to {heads - 1}", head)
    if kind == "csv" and head is None and not record.key_only:
        matrices = names(_MATRICES, "or")
        raise ParameterError(
            "head",
            f"is needed for CSV: a {matrices} bias is 3-D "
            "(give --head H, or -o NAME.npy for every head)",
            "none",
        )
    if head is not None:  # a batch: the head's row of each sequence
        return (lambda b: b[:, 0, :]) if batch > 1 else (lambda b: b[0])
    return (lambda b: b[:, 0, :]) if kind == "csv" else (lambda b: b)


def _masks(
    text: str, n: int, record: AlibiConvention, rows: int, queries: int | None
) -> list[list[int] | None]:
    """``"3,0"``: each sequence's attention mask (None: no padding), at most 4096 sequences.

    ``rows`` heads of ``n`` keys (and ``queries``) are built per sequence: one sequence's
    sizes are checked first (a bad ``--n`` is named, not what CSV needs), and the batch keeps
    the tensor within 2^26 values, as one sequence's is (refused before any is built).
    """
    from ...core.zoo.alibi.rules import check_bias

    check_bias(rows, n, queries, record.name, None)
    words = str(text).replace(" ", "").split(",")
    if not all(w.isascii() and w.isdigit() for w in words) or len(words) > 4096:
        rule = "must be whole numbers of padded keys, one per sequence, comma-separated (3,0)"
        raise ParameterError("left_padding", rule, text)
    if len(words) > 1 and not record.takes_mask:  # a batch is BLOOM's and Falcon's tensor
        masked = names(_MASKED, "or")
        raise ParameterError("left_padding", f"applies to --convention {masked}", text)
    if len(words) > 1 and len(words) * rows * n > MAX_BIAS_VALUES:
        rule = f"with {rows} heads and --n {n} must keep the batch's tensor within 2^26 values"
        raise ParameterError("left_padding", f"{rule} ({len(words)} sequences)", text)
    return [_padding(int(w), n, record) for w in words]


def _padding(left_padding: int, n: int, record: AlibiConvention) -> list[int] | None:
    if left_padding == 0:
        return None
    if not record.takes_mask:
        masked = names(_MASKED, "or")
        raise ParameterError("left_padding", f"applies to --convention {masked}", left_padding)
    if not 0 < left_padding < n:
        raise ParameterError("left_padding", f"must be from 0 to --n - 1 ({n - 1})", left_padding)
    return [0] * left_padding + [1] * (n - left_padding)
