"""identify on windows of tables made by the libraries themselves (fixtures area "identify").

Each fixture is a slice of a table that transformers, openai-whisper or diffusers built from
position 0 (``tools/library_fixtures/generate_identify.py`` records the call); identify must
find where the slice starts, a preset that builds it, its padding rows, zero columns, storage
and orientation.
"""

from __future__ import annotations

import library_fixtures
import pytest

from pecli import PRESETS
from pecli.analysis.sinusoidal.identify import identify_table
from pecli.cli._app import option_words
from pecli.cli.text import command_line

FIXTURES = library_fixtures.load("identify")


@pytest.mark.parametrize("fixture", FIXTURES, ids=library_fixtures.ids(FIXTURES))
def test_identify_places_each_library_window(fixture):
    expected = fixture.params
    found = identify_table(fixture.table)
    assert found.matched, found.candidates[:3]
    assert (found.start, found.starts, found.note) == (expected["start"], [expected["start"]], "")
    own = expected["preset"] if found.start == 0 else f"{expected['preset']} --start"
    assert any(option_words(p).startswith(own) for p in found.presets), found.presets
    assert found.padding_rows == expected["padding_rows"]
    assert found.zero_components == expected["zero_components"]
    assert (found.storage, found.transposed) == (expected["storage"], expected["transposed"])


#: Tables the libraries made for the conventions (tests/fixtures/libraries/conventions/) with
#: no knob beyond the preset's own: DistilBERT, HF Marian, keras-hub and tatp22 at d = 9 (an
#: odd d ending in a sine), MLX with its amplitude sqrt(2/d), and the rest.
PLAIN = [f for f in library_fixtures.load("conventions") if not f.params["knobs"]]


@pytest.mark.parametrize("fixture", PLAIN, ids=library_fixtures.ids(PLAIN))
def test_identify_names_each_library_table(fixture):
    expected, d = fixture.params, fixture.table.shape[1]
    found = identify_table(fixture.table)
    assert found.matched, found.candidates[:3]
    assert (found.start, found.starts) == (expected["start"], [expected["start"]])
    named = {p.split()[0] for p in found.presets}
    assert expected["preset"] in named, found.presets
    zero_column = d % 2 == 1 and PRESETS[expected["preset"]].odd_d == "zero"
    assert found.zero_components == ([d] if zero_column else [])


@pytest.mark.parametrize(
    ("name", "preset"),
    [
        ("distilbert_d9", "distilbert"),
        ("keras_hub_d9_start0", "distilbert"),
        ("marian_d9", "hf-marian"),
        ("tatp22_d9", "positional-encodings"),
        ("mlx_d8", "mlx"),
    ],
)
def test_odd_sine_and_amplitude_tables_name_their_own_preset(name, preset):
    # odd d = 9 ending in a sine: only the preset with that rule makes it; MLX's sqrt(2/d)
    (fixture,) = [f for f in PLAIN if f.name == name]
    found = identify_table(fixture.table)
    assert found.presets == [preset] and found.convention == preset
    assert command_line(found.command).startswith(f"pecli compute --convention {preset} --d ")


#: Tables with a factor on the angles (diffusers' scale = 1000, MLX's full_turns).
SCALED = [
    f
    for f in library_fixtures.load("conventions")
    if {"angle_scale", "full_turns"} & set(f.params["knobs"])
]


@pytest.mark.parametrize("fixture", SCALED, ids=library_fixtures.ids(SCALED))
def test_an_angle_factor_is_not_claimed(fixture):
    # ω_0 = 1000 or 2π: identify fits angles that grow with ω_0 = 1 only, and must not
    # name a preset or print a command that gives other numbers
    found = identify_table(fixture.table)
    assert not found.matched and (found.presets, command_line(found.command)) == ([], "")
