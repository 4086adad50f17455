"""What FLUX.1's and FLUX.2's timestep MLPs receive in bfloat16 (area timestep_dtypes).

No pecli code is under test: these checks pin the dtype steps diffusers 0.42.1 takes
(tools/library_fixtures/generate_timestep_dtypes.py), recomputed here with ml_dtypes and
float64: t (and the guidance) rounded to the model dtype, times 1000 rounded again; a float32
``[cos | sin]`` table of that input at ``exp(−ln 10000 · k / 128)``; the table rounded to the
model dtype before ``linear_1``.
"""

from __future__ import annotations

import math

import library_fixtures
import ml_dtypes
import numpy as np
import pytest

FIXTURES = {f.name: f for f in library_fixtures.load("timestep_dtypes")}
CASES = [(m, d) for m in ("flux", "flux2") for d in ("bfloat16", "float32")]
PARTS = ("t", "table", "linear_1", "guidance", "guidance_table", "guidance_linear_1")
EPS = 2.0**-24
INPUT = {"": "t", "guidance_": "guidance"}  # the input each table was made from


def model_dtype(name: str) -> type:
    return ml_dtypes.bfloat16 if name == "bfloat16" else np.float32


def test_index_complete_with_provenance():
    assert set(FIXTURES) == {f"{m}_{d}_{p}" for m, d in CASES for p in PARTS}
    for f in FIXTURES.values():
        assert (f.library, f.version, f.params["d"]) == ("diffusers", "0.42.1", 256) and f.call


@pytest.mark.parametrize(("model", "dtype"), CASES)
@pytest.mark.parametrize("which", ["", "guidance_"])
def test_input_rounded_twice(model, dtype, which):
    """``x.to(dtype) * 1000``: the value, then the product, rounded to the model dtype."""
    fixture = FIXTURES[f"{model}_{dtype}_{INPUT[which]}"]
    kind = model_dtype(dtype)
    x = np.array(fixture.params["values"], dtype=np.float32).astype(kind)
    expected = (x.astype(np.float64) * 1000).astype(kind).astype(np.float32)
    np.testing.assert_array_equal(fixture.table, expected)


def test_bfloat16_golden_inputs():
    assert FIXTURES["flux_bfloat16_t"].table[:4].tolist() == [20.375, 700.0, 123.0, 1000.0]
    assert FIXTURES["flux_bfloat16_guidance"].table[:4].tolist() == [3504.0, 1000.0, 4000.0, 7488.0]


@pytest.mark.parametrize(("model", "dtype"), CASES)
@pytest.mark.parametrize("which", ["", "guidance_"])
def test_float32_table_then_cast(model, dtype, which):
    inputs = FIXTURES[f"{model}_{dtype}_{INPUT[which]}"].table
    table = FIXTURES[f"{model}_{dtype}_{which}table"].table
    freqs = np.exp(-math.log(10000) * np.arange(128) / 128)
    angles = inputs.astype(np.float64)[:, None] * freqs[None, :]
    expected = np.concatenate([np.cos(angles), np.sin(angles)], axis=1)
    bound = EPS * ((math.log(1e4) + 4) * np.tile(np.abs(angles), 2) + 4)
    assert table.dtype == np.float32 and np.all(np.abs(table - expected) <= bound)
    cast = table.astype(model_dtype(dtype)).astype(np.float32)
    np.testing.assert_array_equal(FIXTURES[f"{model}_{dtype}_{which}linear_1"].table, cast)
    assert FIXTURES[f"{model}_{dtype}_{which}linear_1"].params["dtype"] == dtype
