"""Random Fourier features read from checkpoints: EDM2, EDM, score-SDE, diffusers, k-diffusion."""

from __future__ import annotations

import math

import numpy as np
import pytest
from library_fixtures import ROOT, ids, load

from pecli.analysis.zoo.random_fourier import find_fourier_tensors
from pecli.core.errors import ParameterError
from pecli.core.zoo.random_fourier import random_fourier_table
from pecli.io.checkpoints import open_checkpoint

RFF = [f for f in load("timesteps") if "checkpoint" in f.params]
EXPECTED_KEYS = {
    "rff_diffusers_gaussian": "time_proj.weight",
    "rff_diffusers_gaussian_flip": "time_proj.weight",
    "rff_fourierembedding_nvlabs": "model.map_noise.freqs",
    "rff_fourierfeatures_crowsonkb": "inner_model.timestep_embed.weight",
    "rff_gaussianfourierprojection_yang-song": "module.all_modules.0.W",
    "rff_mpfourier_nvlabs": "unet.emb_fourier.freqs",
}


def _read(fixture):
    with open_checkpoint(str(ROOT / "timesteps" / fixture.params["checkpoint"])) as checkpoint:
        (found,) = find_fourier_tensors([(t.key, t.shape) for t in checkpoint.tensors])
        freqs = checkpoint.load(found.freqs)
        phases = checkpoint.load(found.phases) if found.phases else None
    return found, freqs, phases


@pytest.mark.parametrize("fixture", RFF, ids=ids(RFF))
def test_the_networks_own_output_from_its_checkpoint(fixture):
    p = fixture.params
    found, freqs, phases = _read(fixture)
    assert (found.freqs, found.family) == (EXPECTED_KEYS[fixture.name], p["family"])
    x = np.asarray(p["values"], dtype=np.float64)
    if p["log"]:  # diffusers takes torch.log of the float32 σ
        x = np.log(x.astype(np.float32)).astype(np.float64)
    ours = random_fourier_table(
        x, found.family, freqs=freqs, phases=phases, cos_first=p["cos_first"]
    )
    # the libraries compute the angles in float32: |angle|·2^-23 (and √2 for MPFourier)
    angle = np.abs(np.outer(x.reshape(-1), np.asarray(freqs, np.float64).reshape(-1)))
    bound = 4 * (2 * math.pi * angle.max() + 10) * 2.0**-24
    assert np.abs(ours - fixture.table).max() <= bound


def test_a_wrong_layout_or_missing_log_is_caught():
    (fixture,) = [f for f in RFF if f.name == "rff_diffusers_gaussian"]
    _, freqs, _ = _read(fixture)
    x = np.log(np.asarray(fixture.params["values"], dtype=np.float32)).astype(np.float64)
    flipped = random_fourier_table(x, "gaussian", freqs=freqs, cos_first=True)
    assert np.abs(flipped - fixture.table).max() > 0.5
    unlogged = random_fourier_table(np.exp(x), "gaussian", freqs=freqs)
    assert np.abs(unlogged - fixture.table).max() > 0.5


def test_formulas_by_hand():
    assert random_fourier_table([0.25], "gaussian", freqs=[1.0, 2.0]).round(12).tolist() == [
        [1.0, 0.0, 0.0, -1.0]
    ]
    mp = random_fourier_table([0.5], "mp-fourier", freqs=[np.pi], phases=[np.pi / 2])
    assert mp.round(12).tolist() == [[round(-math.sqrt(2), 12)]]
    ff = random_fourier_table([[1.0, 2.0]], "fourier-features", freqs=[[0.125, 0.0625]])
    np.testing.assert_allclose(ff, [[0.0, 1.0]], atol=1e-15)  # 2π·(0.125 + 0.125) = π/2


def test_finder_ignores_ordinary_weights():
    headers = [
        ("norm.weight", (8,)),
        ("emb_norm.weight", (8,)),
        ("proj.weight", (8, 8)),
        ("time_embedding.linear_1.weight", (32, 8)),
    ]
    assert find_fourier_tensors(headers) == []


@pytest.mark.parametrize(
    ("kwargs", "parameter"),
    [
        ({"family": "sinusoid", "freqs": [1.0]}, "family"),
        ({"family": "gaussian", "freqs": [[1.0]]}, "freqs"),
        ({"family": "mp-fourier", "freqs": [1.0], "phases": [1.0, 2.0]}, "phases"),
        ({"family": "gaussian", "freqs": [np.inf]}, "freqs"),
        ({"family": "fourier-features", "freqs": [[1.0, 2.0]]}, "x"),
    ],
)
def test_refusals(kwargs, parameter):
    with pytest.raises(ParameterError) as error:
        random_fourier_table([0.5], **kwargs)
    assert error.value.parameter == parameter


def test_command_reproduces_diffusers_from_its_file(run_cli, tmp_path):
    (fixture,) = [f for f in RFF if f.name == "rff_diffusers_gaussian"]
    out = tmp_path / "f.npy"
    path = str(ROOT / "timesteps" / fixture.params["checkpoint"])
    values = [str(v) for v in fixture.params["values"]]
    result = run_cli("random-fourier", path, "--log", "--dtype", "float64", "-o", str(out), *values)
    assert result.exit_code == 0, result.output
    np.testing.assert_allclose(np.load(out), fixture.table, atol=1e-4)


def test_command_refusals(run_cli, tmp_path):
    (fixture,) = [f for f in RFF if f.name == "rff_mpfourier_nvlabs"]
    path = str(ROOT / "timesteps" / fixture.params["checkpoint"])
    out = tmp_path / "x.csv"
    for args, needle in (
        ([path, "--key", "nope", "1"], "--key"),
        ([path, "--log", "--", "-1"], "--log"),
        ([path, "--log", "0"], "--log"),  # ln 0 = −inf: refused like a negative value
        ([str(tmp_path / "missing.safetensors"), "1"], "FILE"),
        ([path], "give exactly one source"),
    ):
        result = run_cli("random-fourier", "-o", str(out), *args)
        assert result.exit_code == 2 and needle in result.stderr and not out.exists(), args


def test_float32_features_are_the_exact_ones_rounded():
    """Angles in float64 from the stored frequencies: float32 values are the exact ones rounded
    (away from zeros of sin and cos, where float64 angles leave ~1e-15 absolute)."""
    import mpmath

    w = np.array([0.37, -1.9, 5.3, 16.3], dtype=np.float32)  # no angle near a zero of sin, cos
    x = [-2.5, 0.3, 1.0955067]
    table = random_fourier_table(x, "gaussian", freqs=w).astype(np.float32)
    with mpmath.workdps(40):
        for row, value in zip(table, x, strict=True):
            angles = [2 * mpmath.pi * mpmath.mpf(value) * mpmath.mpf(float(f)) for f in w]
            exact = [mpmath.sin(a) for a in angles] + [mpmath.cos(a) for a in angles]
            assert row.tolist() == [float(np.float32(float(e))) for e in exact]


@pytest.mark.parametrize("fixture", RFF, ids=ids(RFF))
def test_a_library_table_is_read_back_with_its_frequencies(fixture):
    from pecli.analysis.zoo.random_fourier import read_fourier_table

    p = fixture.params
    _, freqs, phases = _read(fixture)
    reading = read_fourier_table(fixture.table, freqs, phases)
    x = np.asarray(p["values"], dtype=np.float64).reshape(-1)
    if p["log"]:
        x = np.log(x)
    layout = (
        "cos"
        if p["family"] == "mp-fourier"
        else "cos-sin"
        if (p["cos_first"] or p["family"] == "fourier-features")
        else "sin-cos"
    )
    assert reading.matched and reading.layout == layout
    np.testing.assert_allclose(reading.inputs, x, rtol=1e-5, atol=1e-6)


def test_a_table_of_other_frequencies_is_not_read():
    from pecli.analysis.zoo.random_fourier import read_fourier_table

    rng = np.random.default_rng(0)
    w = rng.normal(size=8)
    angles = 2 * np.pi * np.outer([0.5, 1.5], w)  # GaussianFourierProjection: [sin | cos]
    table = np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
    assert read_fourier_table(table, w).matched  # the control: its own frequencies
    assert not read_fourier_table(table, rng.normal(size=8)).matched


def test_command_reads_a_table_back(run_cli, tmp_path):
    (fixture,) = [f for f in RFF if f.name == "rff_mpfourier_nvlabs"]
    path = str(ROOT / "timesteps" / fixture.params["checkpoint"])
    table, inputs = tmp_path / "t.npy", tmp_path / "x.csv"
    np.save(table, fixture.table)
    result = run_cli("random-fourier", path, "--read", str(table), "-o", str(inputs))
    assert result.exit_code == 0, result.output
    assert "mp-fourier features, cos: read" in result.stdout
    got = np.genfromtxt(inputs, delimiter=",", names=True)["input"]
    np.testing.assert_allclose(got, fixture.params["values"], atol=1e-5)
    np.save(table, np.random.default_rng(0).uniform(-1.4, 1.4, size=fixture.table.shape))
    result = run_cli("random-fourier", path, "--read", str(table))
    assert result.exit_code == 1 and "NOT read" in result.stdout
    np.save(table, np.zeros((3, 5)))
    result = run_cli("random-fourier", path, "--read", str(table))
    assert result.exit_code == 2 and "--read" in result.stderr


def test_repeating_frequencies_read_the_smallest_input():
    from pecli.analysis.zoo.random_fourier import read_fourier_table

    freqs, phases = np.array([2.0, 1.0]), np.array([0.0, 0.5])  # both repeat every 2π in x
    x = np.array([0.25, -1.5, 3.0])
    table = np.sqrt(2) * np.cos(np.outer(x, freqs) + phases)  # EDM2's MPFourier
    reading = read_fourier_table(table, freqs, phases)
    np.testing.assert_allclose(reading.inputs, [0.25, -1.5, 3.0], atol=1e-12)  # not 3 ± 2πk


def test_inputs_many_periods_out_are_read_when_the_smallest_frequency_is_high():
    """Smallest frequency 3 (a period of 1/3 in x): x = 40 is 120 periods from its angle's guess.

    Every whole period with ``|x| <= 64`` is tried, 193 each side; √29, the other frequency,
    is irrational against 3, so only the true input rebuilds the row.
    """
    from pecli.analysis.zoo.random_fourier import read_fourier_table

    w = np.array([3.0, math.sqrt(29.0)])
    x = np.array([40.0, -55.5, 0.25])
    angles = 2 * np.pi * np.outer(x, w)  # GaussianFourierProjection: [sin | cos]
    reading = read_fourier_table(np.concatenate([np.sin(angles), np.cos(angles)], axis=1), w)
    assert reading.matched and reading.layout == "sin-cos"
    np.testing.assert_allclose(reading.inputs, x, atol=1e-9)


def test_a_table_of_no_rows_is_refused_naming_the_table():
    from pecli.analysis.zoo.random_fourier import read_fourier_table

    with pytest.raises(ParameterError) as error:
        read_fourier_table(np.zeros((0, 4)), np.array([0.5, 1.5]))
    assert error.value.parameter == "table" and "1 to 4096 rows" in str(error.value)


def test_inputs_are_looked_for_up_to_64_and_no_further():
    """The documented search bound, ``|x| <= 64``: with 3 and √29 (irrational against each
    other, so no smaller input rebuilds the row) x = ±63.9 is read, x = 64.2 is not."""
    from pecli.analysis.zoo.random_fourier import read_fourier_table

    w = np.array([3.0, math.sqrt(29.0)])

    def table(x):
        angles = 2 * np.pi * np.outer(x, w)  # GaussianFourierProjection: [sin | cos]
        return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)

    inside = read_fourier_table(table([63.9, -63.9]), w)
    assert inside.matched
    np.testing.assert_allclose(inside.inputs, [63.9, -63.9], atol=1e-9)
    outside = read_fourier_table(table([64.2]), w)
    assert not outside.matched  # its best is another input, off by more than 1e-4


def test_fourier_features_weights_have_at_most_16_columns():
    """k-diffusion's FourierFeatures weight is ``(out, in)``: the module docstring's bound is on
    its columns (input features), whatever its rows."""
    headers = [
        ("timestep_embed.weight", (128, 16)),  # 16 inputs, 128 rows: found
        ("inner.timestep_embed.weight", (8, 17)),  # 17 inputs: not
    ]
    found = find_fourier_tensors(headers)
    assert [(f.family, f.freqs) for f in found] == [("fourier-features", "timestep_embed.weight")]


def test_fourier_features_of_a_column_of_inputs_by_hand():
    """k-diffusion's FourierFeatures with one input feature takes x as a column (n, 1):
    x = 0, 1/4, 1/2 against weight rows 1 and 1/2 gives angles 2π·x·w = 0, 0; π/2, π/4;
    π, π/2, so [cos | sin] is exact by hand."""
    h = math.sqrt(0.5)
    table = random_fourier_table([0.0, 0.25, 0.5], "fourier-features", freqs=[[1.0], [0.5]])
    expected = [[1, 1, 0, 0], [0, h, 1, h], [-1, 0, 0, 1]]
    np.testing.assert_allclose(table, expected, atol=1e-15)


@pytest.mark.parametrize(("off", "matched"), [(1e-4, True), (np.nextafter(1e-4, 1), False)])
def test_a_table_off_by_exactly_the_tolerance_is_still_read(off, matched):
    """Read "within" the tolerance 1e-4, the bound included: x = 0 is sin 0 = 0, cos 0 = 1
    exactly; one sine of the other frequency moved by 1e-4 leaves the reading matched (its
    residual exactly 1e-4), moved by the next float up it does not."""
    from pecli.analysis.zoo.random_fourier import read_fourier_table

    w = np.array([1.0, math.sqrt(2.0)])
    table = np.array([[0.0, off, 1.0, 1.0]])  # [sin | cos] of 2π·0·w, sin of √2 moved
    reading = read_fourier_table(table, w)
    assert (reading.matched, reading.tolerance) == (matched, 1e-4)
    assert reading.residual >= off and (reading.residual == off or not matched)


def test_log_refusal_names_the_smallest_value_not_the_largest(run_cli, tmp_path):
    """ln needs x > 0: of 2, −3, 5 the value to show is the offending −3 (the smallest), never
    5, which ln takes fine."""
    (fixture,) = [f for f in RFF if f.name == "rff_diffusers_gaussian"]
    path = str(ROOT / "timesteps" / fixture.params["checkpoint"])
    out = tmp_path / "x.csv"
    result = run_cli("random-fourier", path, "--log", "-o", str(out), "--", "2", "-3", "5")
    assert result.exit_code == 2 and "'--log'" in result.stderr, result.stderr
    assert "(got -3.0)" in result.stderr and "5.0" not in result.stderr
    assert not out.exists()
