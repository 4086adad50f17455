"""xPos scales in float16 and bfloat16: rounded once, certified, ties included.

Expected values are mpmath's (``planted.rounded``: its own rounding to the dtype's significand,
ties to even) or worked by hand, never pecli's. Half dtypes have midpoints of 12 and 9 bits,
so exact scales land on them often: ``ζ_0 = 2/7`` at every ``d``, and at ``γ = 1``
``(7/2)^4 = 2401/16`` is halfway between the float16 numbers 150 and 150.125,
``(7/2)^3 = 343/8`` between the bfloat16 numbers 42.75 and 43.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from planted import odd_tie, rounded

from pecli.core import certificate
from pecli.core.zoo import xpos
from pecli.core.zoo.xpos import xpos_positions, xpos_scales


def _power(a: int, b: int, p: int, gamma: int) -> mpmath.mpf:
    """``(a/b)^(p/γ)``, 300 bits: from the integers when ``γ`` divides ``p`` (an exact
    midpoint must be exact here too: ``mpf(2)/7`` cubed is not ``8/343``)."""
    with mpmath.workprec(300):
        if p % gamma == 0:
            q = Fraction(a, b) ** (p // gamma)
            return mpmath.mpf(q.numerator) / q.denominator  # one rounding, none when dyadic
        return (mpmath.mpf(a) / b) ** (mpmath.mpf(p) / gamma)


def _exact(n: int, d: int, gamma: int, keys: bool = False) -> list[list[mpmath.mpf]]:
    """``((10i + 2d)/(7d))^(±p/γ)`` of each row and pair."""
    sign = -1 if keys else 1
    return [
        [_power(10 * i + 2 * d, 7 * d, sign * int(p), gamma) for i in range(d // 2)]
        for p in xpos_positions(n)
    ]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("keys", [False, True])
def test_half_scales_match_mpmath(dtype, keys):
    """γ = 1 at d = 8 (positions −4 … 3): exact midpoints among them, every value to mpmath."""
    with certificate.counting() as tally:
        table = xpos_scales(8, 8, scale_base=1.0, keys=keys, dtype=dtype)
    assert table.dtype.name == dtype and tally.checked == 8 * 4
    got = table[:, ::2].astype(np.float64).tolist()
    assert got == [[rounded(x, dtype) for x in row] for row in _exact(8, 8, 1, keys)]


def test_half_midpoints_by_hand():
    f16 = xpos_scales(8, 8, scale_base=1.0, dtype="float16")  # row 0: p = −4
    assert float(f16[0, 0]) == 150.0  # 2401/16 = 1200.5 eighths: to 1200, even
    bf16 = xpos_scales(8, 8, scale_base=1.0, dtype="bfloat16")  # row 1: p = −3
    assert float(bf16[1, 0]) == 43.0  # 343/8 = 171.5 quarters: to 172, even


class _PlantedExp:
    """numpy for xpos, but ``exp`` of the table returns ``tie`` at ``where``: the float64 value
    on a tie (the two end rows xpos reads first, to refuse a table of zeros, are left as they
    are)."""

    def __init__(self, where: tuple[int, int], tie: float) -> None:
        self._at, self._tie = where, tie

    def __getattr__(self, name):
        return getattr(np, name)

    def exp(self, x):
        y = np.exp(x)
        if y.shape[0] > self._at[0]:
            y[self._at] = self._tie
        return y


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_a_value_planted_on_a_tie_is_recomputed(monkeypatch, dtype):
    """A scale whose rounding is odd, its float64 value replaced by the tie next to it:
    rounding it alone writes the even neighbour; the certificate recomputes it exactly."""
    n, d, gamma = 16, 16, 64
    exact = _exact(n, d, gamma)
    planted = [
        ((r, i), tie)
        for r in range(n)
        for i in range(d // 2)
        if (tie := odd_tie(exact[r][i], dtype)) is not None and exact[r][i] != 1
    ]
    (r, i), tie = planted[len(planted) // 2]
    monkeypatch.setattr(xpos, "np", _PlantedExp((r, i), tie))
    with certificate.counting() as tally:
        table = xpos_scales(n, d, scale_base=float(gamma), dtype=dtype)
    assert tally.recomputed >= 1
    import ml_dtypes

    half = np.float16 if dtype == "float16" else ml_dtypes.bfloat16
    alone = float(np.float32(tie).astype(half))  # the tie is a float32: one rounding, to even
    assert float(table[r, 2 * i]) == rounded(exact[r][i], dtype) != alone
    assert table[:, ::2].astype(np.float64).tolist() == [
        [rounded(x, dtype) for x in row] for row in exact
    ]


def test_cli_half_dtypes(run_cli, tmp_path):
    from safetensors.numpy import load_file

    out16, out_bf = tmp_path / "h.npy", tmp_path / "b.safetensors"
    done = run_cli("xpos", "--head-dim", "8", "--n", "8", "--scale-base", "1", "--dtype",
                   "float16", "-o", str(out16))  # fmt: skip
    assert done.exit_code == 0, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "pecli: every value correctly rounded to float16: 1 recomputed"  # the midpoint 2401/16
    )
    assert np.load(out16)[0].tolist() == [150.0, 150.0] + [
        rounded(x, "float16") for x in _exact(8, 8, 1)[0][1:] for _ in (0, 1)
    ]
    args = ("xpos", "--head-dim", "8", "--n", "8", "--scale-base", "1", "--dtype", "bfloat16")
    refused = run_cli(*args, "-o", str(tmp_path / "b.npy"))
    assert refused.exit_code == 2 and "safetensors" in refused.stderr
    assert not (tmp_path / "b.npy").exists()
    done = run_cli(*args, "-o", str(out_bf))
    assert done.exit_code == 0, done.stderr
    table = load_file(out_bf)["xpos_scales"]
    assert table[1, 0] == 43.0
    with open(out_bf, "rb") as f:
        assert b"every value correctly rounded to bfloat16" in f.read(200)


def test_float16_overflow_names_the_option(run_cli, tmp_path):
    out = tmp_path / "h.npy"
    done = run_cli("xpos", "--n", "65536", "--dtype", "float16", "-o", str(out))
    assert done.exit_code == 2
    assert "--scale-base" in done.stderr and "float16's range" in done.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("dtype", "scale_base", "offered"),
    [  # d 8, n 100: positions −50 … 49, ζ_0 = 2/7; the largest scale is (7/2)^(50/γ)
        ("float32", "0.5", ", or --dtype float64)"),  # 3.5^100 ≈ 2.6e54: past float32's 3.4e38
        ("float16", "2", ", or --dtype float32/float64)"),  # 3.5^25 ≈ 4.0e13: past 65504 only
        ("float16", "0.5", ", or --dtype float64)"),
        ("float32", "0.01", ", a smaller --n or --offset)"),  # 3.5^5000 ≈ e^6264: past float64
    ],
)
def test_an_overflow_offers_only_a_wider_dtype_that_holds_the_scales(
    run_cli, tmp_path, dtype, scale_base, offered
):
    """The float32 refusal offered "float32/float64": the dtype that had just overflowed."""
    out = tmp_path / "x.npy"
    args = ["--head-dim", "8", "--n", "100", "--scale-base", scale_base, "--dtype", dtype]
    done = run_cli("xpos", *args, "-o", str(out))
    assert done.exit_code == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"beyond {dtype}'s range" in done.stderr and offered in done.stderr
    assert not out.exists()
