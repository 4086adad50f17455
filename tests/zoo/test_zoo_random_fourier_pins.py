"""Random Fourier tensors found by their documented names and shapes (issue 33 survivors)."""

from __future__ import annotations

import numpy as np
import pytest

from pecli.analysis.zoo.random_fourier import (
    FourierReading,
    FourierTensors,
    chosen_fourier_tensors,
    find_fourier_tensors,
)


@pytest.mark.parametrize(
    "module", ["emb_Fourier", "gauss_proj", "map_noise", "time_proj", "timestep_embed"]
)
def test_each_hint_marks_a_gaussian_projection(module):
    """A 1-D ``weight`` or ``freqs`` under a module named by a hint (any case) is gaussian."""
    found = find_fourier_tensors([(f"{module}.weight", (8,)), (f"{module}.freqs", (8,))])
    assert [(f.family, f.freqs) for f in found] == [
        ("gaussian", f"{module}.weight"),
        ("gaussian", f"{module}.freqs"),
    ]
    assert found[0].prefix == module


def test_no_hint_no_w_no_frequencies():
    assert find_fourier_tensors([("emb.weight", (8,)), ("emb.freqs", (8,))]) == []


def test_fourier_features_take_at_most_16_input_columns():
    """k-diffusion's ``FourierFeatures`` matrix: (out, in) with in <= 16."""
    found = find_fourier_tensors([("timestep_embed.weight", (128, 16))])
    assert found == [FourierTensors("fourier-features", "timestep_embed.weight")]
    assert find_fourier_tensors([("timestep_embed.weight", (128, 17))]) == []


def test_mp_fourier_at_the_top_level_pairs_freqs_with_phases():
    """EDM2's ``MPFourier`` saved alone: ``freqs`` and ``phases`` of one shape."""
    found = find_fourier_tensors([("freqs", (8,)), ("phases", (8,))])
    assert found == [FourierTensors("mp-fourier", "freqs", "phases")]
    assert find_fourier_tensors([("freqs", (8,)), ("phases", (4,))]) == []


def test_a_key_picks_its_set_or_is_taken_as_it_is():
    headers = [("emb.freqs", (8,)), ("emb.phases", (8,)), ("x", (4, 2)), ("y", (5,))]
    mp = FourierTensors("mp-fourier", "emb.freqs", "emb.phases")
    assert chosen_fourier_tensors(headers) == [mp]
    assert chosen_fourier_tensors(headers, "emb.phases") == [mp]
    assert chosen_fourier_tensors(headers, "x") == [FourierTensors("fourier-features", "x")]
    assert chosen_fourier_tensors(headers, "y") == [FourierTensors("gaussian", "y")]


def test_a_reading_exactly_at_its_tolerance_is_matched():
    inputs = np.zeros(1)
    assert FourierReading("gaussian", "sin-cos", inputs, 1e-4, 1e-4).matched
    assert not FourierReading("gaussian", "sin-cos", inputs, 2e-4, 1e-4).matched


W0 = [0.0, 0.3, -1.7, 4.1]


def _gaussian_sin_cos(x: list[float], w: list[float]) -> np.ndarray:
    """score-SDE's GaussianFourierProjection by hand: [sin(2π·x·w) | cos(2π·x·w)]."""
    angles = 2 * np.pi * np.outer(x, w)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)


def test_a_zero_frequency_is_not_the_channel_read():
    """w = (0, 0.3, -1.7, 4.1): the input is read from the smallest nonzero one, 0.3."""
    from pecli.analysis.zoo.random_fourier import read_fourier_table

    reading = read_fourier_table(_gaussian_sin_cos([0.5, -2.0], W0), W0)
    assert (reading.family, reading.layout, reading.matched) == ("gaussian", "sin-cos", True)
    assert reading.inputs.tolist() == pytest.approx([0.5, -2.0], abs=1e-9)


def test_table_sizes_are_the_documented_ones():
    """1 to 4096 rows; as many columns as the frequencies make (2 per frequency, sin and cos)."""
    from pecli.analysis.zoo.random_fourier import read_fourier_table
    from pecli.core.errors import ParameterError

    one = read_fourier_table(_gaussian_sin_cos([0.5], W0[1:]), W0[1:])
    assert one.matched and one.inputs.tolist() == pytest.approx([0.5], abs=1e-9)
    with pytest.raises(ParameterError, match="1 to 4096 rows"):
        read_fourier_table(np.zeros((4097, 4)), [0.3, 1.1])
    with pytest.raises(ParameterError, match="must have 4 columns") as error:
        read_fourier_table(np.zeros((1, 3)), [0.3, 1.1])
    assert "3 columns" in str(error.value)


def test_the_largest_table_and_the_worst_row():
    """4096 rows are read; the residual is the worst row's: row 1's first value off by 10^-6."""
    from pecli.analysis.zoo.random_fourier import read_fourier_table

    x = np.linspace(-3.0, 3.0, 4096)
    assert read_fourier_table(_gaussian_sin_cos(list(x), W0[1:]), W0[1:]).matched
    table = _gaussian_sin_cos([0.5, -2.0], W0[1:])
    table[1, 0] += 1e-6
    assert read_fourier_table(table, W0[1:]).residual > 5e-7


def test_an_input_of_exactly_64_is_looked_for():
    """|x| <= 64 is searched: x = 64 and -64 are read back (w = 0.3, √2: no common period)."""
    from pecli.analysis.zoo.random_fourier import read_fourier_table

    w = [0.3, float(np.sqrt(2))]
    reading = read_fourier_table(_gaussian_sin_cos([64.0, -64.0], w), w)
    assert reading.matched
    assert reading.inputs.tolist() == pytest.approx([64.0, -64.0], abs=1e-9)
