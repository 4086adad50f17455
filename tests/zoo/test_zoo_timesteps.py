"""Timestep / noise-level embeddings against diffusers, BFL, DiT, PixArt, EDM, CM."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from library_fixtures import ids, load

from pecli.core.dtypes import float_dtype, round_once
from pecli.core.errors import ParameterError
from pecli.core.zoo.timesteps import TIMESTEP_MODELS, model_inputs, timestep_table

FIXTURES = load("timesteps")
INPUTS = [f for f in FIXTURES if f.params.get("part") == "t"]
TABLES = [f for f in FIXTURES if f.params.get("part") != "t" and "checkpoint" not in f.params]


def _float32_error(positions: np.ndarray, d: int) -> np.ndarray:
    """What float32 arithmetic may move each row by: its largest angle times a few ulps."""
    return np.abs(positions)[:, None] * 2.0**-21 + 2e-7 * np.ones((1, d))


@pytest.mark.parametrize("fixture", INPUTS, ids=ids(INPUTS))
def test_flux_input_arithmetic_is_diffusers(fixture):
    """What diffusers' FLUX time projection receives: t rounded to the dtype, then ×1000."""
    p = fixture.params
    ours = model_inputs(p["values"], "flux", input_dtype=p["input_dtype"])
    assert ours.tolist() == fixture.table.astype(np.float64).tolist()


def test_golden_inputs():
    bf16 = model_inputs([1 / 49, 0.7, 0.123, 0.999], "flux", input_dtype="bfloat16")
    assert bf16.tolist() == [20.375, 700.0, 123.0, 1000.0]  # rounded twice, not 699.21875
    assert model_inputs([80, 0.002], "consistency").round(4).tolist() == [1095.5067, -1553.652]
    assert model_inputs([80, 0.002], "edm").round(4).tolist() == [1.0955, -1.5537]
    assert model_inputs([2.0, 80.0], "edm-ve").tolist() == [0.0, math.log(40.0)]  # ln(σ/2)
    with mpmath.workdps(30):
        exact = [float(250 * mpmath.log(s)) for s in (80, 0.002)]
    np.testing.assert_allclose(model_inputs([80, 0.002], "consistency"), exact, rtol=1e-15)


@pytest.mark.parametrize("fixture", TABLES, ids=ids(TABLES))
def test_tables_are_the_models_own(fixture):
    p = fixture.params
    ours = timestep_table(
        p["values"], p["model"], d=p["d"], input_dtype=p["input_dtype"], dtype="float64"
    )
    if p.get("output_dtype") == "bfloat16":  # BFL returns the embedding in t's dtype
        ours = round_once(ours, float_dtype("bfloat16")).astype(np.float64)
        assert np.mean(ours == fixture.table) > 0.99
        np.testing.assert_allclose(fixture.table, ours, atol=2.0**-8)
        return
    positions = model_inputs(p["values"], p["model"], input_dtype=p["input_dtype"])
    assert np.all(np.abs(fixture.table - ours) <= _float32_error(positions, p["d"]))


def test_diffusers_dit_is_not_the_original_dit():
    """diffusers' DiT uses downscale_freq_shift 1; DiT, PixArt and diffusers' PixArt use 0."""
    by_name = {f.name: f.table for f in TABLES}
    t = [0.0, 1.0, 10.0, 250.0, 999.0, 500.5]
    original = timestep_table(t, "dit", dtype="float64")
    assert np.abs(by_name["dit_original_float32"] - original).max() < 1e-3
    assert np.abs(by_name["dit_diffusers"] - original).max() > 0.5
    assert np.abs(by_name["pixart_diffusers"] - by_name["pixart_original_float32"]).max() < 1e-6


def test_bfloat16_flux_moves_the_embedding_by_up_to_1_83_on_a_49_step_schedule():
    t = np.linspace(0, 1, 50)
    exact = timestep_table(t, "flux", dtype="float64")
    rounded = timestep_table(t, "flux", input_dtype="bfloat16", dtype="float64")
    assert round(float(np.abs(exact - rounded).max()), 2) == 1.83


def test_flux_exact_is_t_times_1000_to_the_last_bit():
    """t·1000 is folded into the angles exactly: the float32 table is the exact one rounded."""
    t = [1 / 3, 0.123456789, 0.999]
    table = timestep_table(t, "flux", d=8, dtype="float32")
    with mpmath.workdps(40):
        for row, value in zip(table, t, strict=True):
            angles = [
                1000 * mpmath.mpf(value) * mpmath.mpf(10000) ** (-mpmath.mpf(j) / 4)
                for j in range(4)
            ]
            exact = [mpmath.cos(a) for a in angles] + [mpmath.sin(a) for a in angles]
            assert row.tolist() == [float(np.float32(float(x))) for x in exact]


def test_edm_ddpmpp_is_sin_then_cos_with_endpoint_frequencies():
    c = float(model_inputs([2.0], "edm")[0])
    table = timestep_table([2.0], "edm", d=8, dtype="float64")[0]
    freqs = [10000.0 ** (-j / 3) for j in range(4)]  # endpoint=True: j / (h - 1)
    expected = [math.sin(c * f) for f in freqs] + [math.cos(c * f) for f in freqs]
    np.testing.assert_allclose(table, expected, rtol=1e-15, atol=1e-16)


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("model", ["edm", "edm-ve"])
def test_edm_endpoint_frequencies_need_two_pairs(model, d):
    """EDM's PositionalEmbedding(endpoint=True) divides arange(d // 2) by d // 2 - 1: at d = 2
    and 3 that is 0/0, and its table is NaN. pecli gave sin c, cos c (tensor2tensor's guard)."""
    with pytest.raises(ParameterError, match="at least 4 for") as error:
        timestep_table([2.0], model, d=d, dtype="float64")
    assert error.value.parameter == "d"


def test_edm_adm_frequencies_divide_by_the_half_width():
    """DhariwalUNet's PositionalEmbedding(endpoint=False) divides by d // 2: one pair at d = 2,
    ω = 1, the table [cos c, sin c] with c = ln(2)/4."""
    c = math.log(2.0) / 4
    table = timestep_table([2.0], "edm-adm", d=2, dtype="float64")[0]
    np.testing.assert_allclose(table, [math.cos(c), math.sin(c)], rtol=1e-15)


@pytest.mark.parametrize(
    ("values", "model", "kwargs", "parameter"),
    [
        ([0.5], "sdxl", {}, "model"),
        ([0.0], "edm", {}, "x"),
        ([-1.0], "consistency", {}, "x"),
        ([np.nan], "flux", {}, "x"),
        ([], "flux", {}, "x"),
        ([0.5], "flux", {"input_dtype": "int8"}, "input_dtype"),
    ],
)
def test_refusals(values, model, kwargs, parameter):
    with pytest.raises(ParameterError) as error:
        model_inputs(values, model, **kwargs)
    assert error.value.parameter == parameter


def test_a_refused_noise_level_is_named_by_the_smallest_value_not_a_valid_one():
    """σ must be > 0: the value named is one that breaks it, -2 (the least of 1, -2, 3)."""
    for model in ("edm", "consistency"):
        with pytest.raises(ParameterError) as error:
            model_inputs([1.0, -2.0, 3.0], model)
        assert error.value.value == -2.0


def test_every_model_names_its_source():
    assert all(m.source for m in TIMESTEP_MODELS.values())


@pytest.mark.parametrize("model", ["flux", "flux2"])
@pytest.mark.parametrize("which", ["", "guidance_"])
def test_network_table_is_what_diffusers_linear_1_receives(model, which):
    """diffusers 0.42.1's own ``linear_1`` inputs (tests/fixtures/libraries/timestep_dtypes,
    FLUX.1 and FLUX.2, timestep and guidance) from diffusers' own t·1000: bit for bit in
    bfloat16; in float32 within what torch's float32 exp/cos/sin may be off (as
    test_library_fixtures_timestep_dtypes), most values bit for bit."""
    from pecli.core.zoo.timesteps import network_table

    fixtures = {f.name: f for f in load("timestep_dtypes")}
    for dtype in ("bfloat16", "float32"):
        inputs = fixtures[f"{model}_{dtype}_{'guidance' if which else 't'}"].table
        expected = fixtures[f"{model}_{dtype}_{which}linear_1"].table.astype(np.float64)
        table = network_table(inputs.astype(np.float64), "flux", d=256, base=1e4, dtype=dtype)
        if dtype == "bfloat16":
            np.testing.assert_array_equal(table, expected)
            continue
        angles = np.abs(
            inputs.astype(np.float64)[:, None] * np.exp(-np.log(1e4) * np.arange(128) / 128)
        )
        bound = 2.0**-24 * ((np.log(1e4) + 4) * np.tile(angles, 2) + 4)
        assert np.all(np.abs(table - expected) <= bound) and (table == expected).mean() > 0.9


def test_a_value_whose_angles_pass_2_to_the_56_is_refused_by_name_before_any_row():
    """DiT's ω_0 is 1 (exp(0)), so t is its largest angle: 2^56 is computed (cos first, as
    guided-diffusion's [cos | sin]), the next float is refused under the values, before work.
    FLUX folds t·1000 in: 1e17 gives 1e20 radians (it ended in 'undecided at 256 bits')."""
    table = timestep_table([2.0**56], "dit", d=8, dtype="float64")
    assert table[0, 0] == float(mpmath.cos(mpmath.mpf(2) ** 56))
    for values, model in (([1.0, 2.0**56 * (1 + 2.0**-52)], "dit"), ([1e17, -2e17], "flux")):
        with pytest.raises(ParameterError, match=r"at most 2\^56") as caught:
            timestep_table(values, model, d=8)
        assert caught.value.parameter == "x" and caught.value.value == max(values, key=abs)
