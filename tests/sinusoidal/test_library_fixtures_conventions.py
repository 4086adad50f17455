"""Every 1-D preset against the tables its library made (tests/fixtures/libraries/conventions).

The fixtures were written by the libraries' own functions and classes (transformers,
diffusers, openai-whisper, positional-encodings, keras-hub, denoising-diffusion-pytorch, MLX
and LDM's ``timestep_embedding``; tools/library_fixtures/generate_conventions.py).

* pecli's table reproduces each library's within that library's own float32 arithmetic:
  ``|Δ| <= 2^-24 · (2 + |θ| · (3 ln C + 4)) · a`` per value, with θ the exact angle and ``a``
  the amplitude. Why: a float32 library rounds its exponent ``-ln C · k/(h - s)`` (up to three
  roundings of a number of size ln C, so ω is off by ``3 ln C · 2^-24`` relative), then ``exp``
  or ``pow``, the product ``p·ω`` and any angle factor (4 more roundings of θ), and the result
  of sin/cos and of the amplitude (2 ulps of 1). Libraries that work in float64 and cast
  (DistilBERT, Marian) are well inside it.
* pecli is correctly rounded: on sampled rows its float32 table equals the exact value
  (mpmath, 40 digits, from each library's own rule in tests/library_formulas_mp.py) rounded
  once to float32, bit for bit, wherever that value is at least 1e-6 in magnitude; below, the
  fast kernel's bound of 5e-16 absolute applies.
"""

from __future__ import annotations

import math

import library_fixtures
import mpmath
import numpy as np
import pytest
from library_formulas_mp import library_row

from pecli import convention, encoding_table

FIXTURES = library_fixtures.load("conventions")
#: Fixture-name prefixes that must be present: every library this area covers.
LIBRARIES = (
    "distilbert",
    "marian",
    "m2m100",
    "speech2text",
    "musicgen",
    "speecht5",
    "whisper_hf",
    "whisper_openai",
    "diffusers",
    "tatp22",
    "keras_hub",
    "lucidrains",
    "ldm",
    "mlx",
    "fairseq",
    "tensor2tensor",
)


def pecli_table(fixture: library_fixtures.Fixture, dtype: str) -> np.ndarray:
    params = fixture.params
    knobs = dict(params["knobs"])
    base = knobs.pop("base", 10000.0)
    conv = convention(params["preset"], **knobs)
    n, d = fixture.table.shape
    kwargs = conv.table_kwargs() | {"start": params["start"]}
    return encoding_table(d=d, n=n, base=base, dtype=dtype, **kwargs)


def angles_of(fixture: library_fixtures.Fixture) -> np.ndarray:
    """|θ| of every value, from the library's rule (float64 is plenty for a bound)."""
    n = fixture.table.shape[0]
    positions = fixture.params["start"] + np.arange(n, dtype=np.float64)
    return np.abs(positions[:, None] * _column_frequencies(fixture)[None, :])


def _column_frequencies(fixture: library_fixtures.Fixture) -> np.ndarray:
    """The angular frequency (times any angle factor) behind each column, float64."""
    from pecli import component_names
    from pecli.core.sinusoidal.frequencies import frequencies_with_residuals
    from pecli.core.sinusoidal.knobs import check_angle_scale

    knobs = dict(fixture.params["knobs"])
    base = knobs.pop("base", 10000.0)
    conv = convention(fixture.params["preset"], **knobs)
    d = fixture.table.shape[1]
    scale = check_angle_scale(conv.angle_scale, full_turns=conv.full_turns)
    omega, _ = frequencies_with_residuals(d, base, conv.schedule, conv.odd_d, scale)
    names = component_names(d, conv.layout, odd_d=conv.odd_d)
    return np.array([0.0 if s == "zero" else omega[int(s.split("_")[1]) - 1] for s in names])


def bound(fixture: library_fixtures.Fixture) -> np.ndarray:
    knobs = fixture.params["knobs"]
    log_c = math.log(knobs.get("base", 10000.0))
    amplitude = math.sqrt(2 / fixture.table.shape[1]) if fixture.params["preset"] == "mlx" else 1
    amplitude = knobs.get("amplitude", amplitude)
    return 2.0**-24 * (2 + angles_of(fixture) * (3 * log_c + 4)) * amplitude


def test_every_library_has_fixtures():
    names = {f.name for f in FIXTURES}
    for prefix in LIBRARIES:
        assert any(name.startswith(prefix) for name in names), prefix
    assert sum(f.table.nbytes for f in FIXTURES) <= 3_000_000


@pytest.mark.parametrize("fixture", FIXTURES, ids=library_fixtures.ids(FIXTURES))
def test_preset_reproduces_the_library_within_its_float32_error(fixture):
    ours = pecli_table(fixture, "float64")
    theirs = fixture.table.astype(np.float64)
    assert ours.shape == theirs.shape
    difference = np.abs(ours - theirs)
    limit = bound(fixture)
    worst = np.unravel_index(np.argmax(difference / limit), difference.shape)
    assert np.all(difference <= limit), (fixture.name, worst, difference[worst], limit[worst])
    # the zero column of an odd d and the padding row are exact zeros on both sides
    conv = convention(fixture.params["preset"])
    if ours.shape[1] % 2 and conv.odd_d == "zero":
        assert not ours[:, -1].any() and not theirs[:, -1].any()
    if conv.padding_idx is not None:
        assert not ours[conv.padding_idx].any() and not theirs[conv.padding_idx].any()


@pytest.mark.parametrize("fixture", FIXTURES, ids=library_fixtures.ids(FIXTURES))
def test_preset_is_correctly_rounded_against_the_library_rule(fixture):
    n, d = fixture.table.shape
    ours = pecli_table(fixture, "float32")
    params = fixture.params
    for row in sorted({0, 2, n // 3, n - 1}):
        exact = library_row(params["preset"], params["start"] + row, d, params["knobs"])
        if params["preset"] == "fairseq" and row == 1:  # the padding row
            exact = [mpmath.mpf(0)] * d
        exact64 = np.array([float(v) for v in exact], dtype=np.float64)
        large = np.abs(exact64) >= 1e-6  # the kernel is 5e-16 absolute: see the module's note
        expected = exact64.astype(np.float32)
        message = f"{fixture.name} row {row}"
        np.testing.assert_array_equal(ours[row][large], expected[large], err_msg=message)
        assert np.all(np.abs(ours[row][~large] - exact64[~large]) <= 1e-15), message
