"""identify on windows of tables made by the libraries themselves (fixtures area "identify").

Each fixture is a slice of a table that transformers, openai-whisper or diffusers built from
position 0 (``tools/library_fixtures/generate_identify.py`` records the call); identify must
find where the slice starts, a preset that builds it, its padding rows, zero columns, storage
and orientation.
"""

from __future__ import annotations

import library_fixtures
import pytest

from pecli.analysis.identify import identify_table

FIXTURES = library_fixtures.load("identify")


@pytest.mark.parametrize("fixture", FIXTURES, ids=library_fixtures.ids(FIXTURES))
def test_identify_places_each_library_window(fixture):
    expected = fixture.params
    found = identify_table(fixture.table)
    assert found.matched, found.candidates[:3]
    assert (found.start, found.starts, found.note) == (expected["start"], [expected["start"]], "")
    own = expected["preset"] if found.start == 0 else f"{expected['preset']} --start"
    assert any(p.startswith(own) for p in found.presets), found.presets
    assert found.padding_rows == expected["padding_rows"]
    assert found.zero_components == expected["zero_components"]
    assert (found.storage, found.transposed) == (expected["storage"], expected["transposed"])
