"""``pecli wavelengths``: ω_i and λ_i of every pair, as a rich table, CSV or JSON."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.rules import check_d
from ...core.sinusoidal.frequencies import DEFAULT_BASE, angular_frequencies, wavelengths
from ...io import text, writing
from ...io.reports import say_written
from .._app import app
from ..json_report import ReportFormatOpt, ReportOutput, table_kind
from ..options import Base, EvenD, Quiet


def _rich_table(columns: dict[str, np.ndarray], *, d: int, base: float) -> Any:
    """The columns as a table."""
    table = text.Columns(title=f"Pairs of the encoding, d = {d}, C = {base:g}")
    for name in ("pair i", "components", "ω_i (rad / position)", "λ_i (positions)"):
        table.add_column(name, justify="right")
    for i, odd, even, omega, lam in zip(*columns.values(), strict=True):
        table.add_row(str(i), f"{odd}, {even}", f"{omega:.10g}", f"{lam:.10g}")
    return table


@app.command("wavelengths")
def wavelengths_command(
    d: EvenD = 512,
    base: Base = DEFAULT_BASE,
    fmt: ReportFormatOpt = None,
    output: ReportOutput = "-",
    quiet: Quiet = False,
) -> None:
    """The angular frequency ω_i and wavelength λ_i = 2π C^(2(i-1)/d) of every pair i.

    Pair i owns components 2i-1 (sine) and 2i (cosine); its wavelength, in positions,
    grows geometrically from 2π to about 2πC.

    Example: pecli wavelengths --d 512 --format csv
    """
    kind = table_kind(output, fmt)
    d = check_d(d)  # before anything is sized by it
    pairs = np.arange(1, d // 2 + 1)
    columns = {
        "pair": pairs,
        "sin_component": 2 * pairs - 1,
        "cos_component": 2 * pairs,
        "omega": angular_frequencies(d, base=base),
        "wavelength": wavelengths(d, base=base),
    }
    if kind != "table":
        writing.write_records(columns, output=output, fmt=kind)
    else:
        text.show(_rich_table(columns, d=d, base=base), output=output)
    say_written(output, quiet=quiet)
