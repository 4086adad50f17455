"""A stored table's pecli metadata that cannot describe it is said so, in the metadata's words.

:func:`pecli.analysis.checkpoints.metadata.check_metadata` reads the ``pecli_*`` fields a
table was saved with and rebuilds the table from them. These cases never reach the rebuild:
the metadata names another shape, another dtype, or knobs no pecli table has. The expected
words are the rule each case states (the stored shape is what NumPy reports).
"""

from __future__ import annotations

import numpy as np

from pecli.analysis.checkpoints.metadata import check_metadata, table_metadata
from pecli.core.sinusoidal.conventions import convention


def _meta(**changed: str) -> dict[str, str]:
    meta = table_metadata(
        key="pe",
        d=8,
        n=4,
        base=1e4,
        dtype="float32",
        convention=convention("pytorch"),
        version="0.1.0",
    )
    return {**meta, **changed}


def test_a_shape_other_than_the_metadata_names_is_a_disagreement():
    table = np.zeros((4, 6), dtype=np.float32)  # n = 4 rows of d = 6, against d = 8
    said = check_metadata(table, _meta())
    assert said == "disagrees: metadata says d = 8, n = 4; stored 4 × 6"
    said = check_metadata(np.zeros((5, 8), dtype=np.float32), _meta())
    assert said == "disagrees: metadata says d = 8, n = 4; stored 5 × 8"


def test_another_dtype_is_a_disagreement_before_any_rebuild():
    said = check_metadata(np.zeros((4, 8), dtype=np.float64), _meta())
    assert said == "disagrees: metadata says dtype float32, stored float64"


def test_knobs_no_table_has_are_named_as_such():
    said = check_metadata(np.zeros((4, 8), dtype=np.float32), _meta(base="-2.0"))
    assert said.startswith("disagrees: the metadata is no table pecli makes (")
    assert "base" in said


def test_a_field_that_is_no_number_makes_the_metadata_unreadable():
    said = check_metadata(np.zeros((4, 8), dtype=np.float32), _meta(d="eight"))
    assert said.startswith("unreadable: pecli_version=0.1.0, key=pe, convention=pytorch, d=eight")


def test_the_largest_difference_is_reported_with_its_cell():
    """Position 0 of any sinusoidal table is sin 0 = 0 and cos 0 = 1, alternating (exact)."""
    table = np.array([[0.0, 1.0] * 4], dtype=np.float32)
    meta = _meta(n="1")
    assert check_metadata(table, meta) == "agrees (bit for bit)"
    table[0, 5] = 0.75  # cos 0 = 1 stored as 0.75: off by 0.25
    table[0, 2] = 0.125  # sin 0 = 0 stored as 0.125: off by less
    said = check_metadata(table, meta)
    assert said == "disagrees: values differ by up to 0.25 (row 0, column 5)"


def _scan_with(metadata: dict[str, str]):
    from types import SimpleNamespace

    from pecli.analysis.checkpoints.scan import scan_tensors

    table = np.array([[0.0, 1.0] * 4], dtype=np.float32)  # position 0: sin 0, cos 0 (exact)
    table = np.repeat(table, 4, axis=0)  # a table whose rows all say position 0: no match
    head = SimpleNamespace(key="pe", shape=table.shape, dtype="float32")
    tensors = {"pe": table}
    found = scan_tensors(
        [head], part=lambda k, i: tensors[k][i], load=tensors.get, metadata=metadata
    )
    return found[0]


def test_metadata_is_checked_only_when_pecli_wrote_it_for_that_tensor():
    """Only pecli's own metadata (``pecli_version``) naming this tensor (``key``) is checked.

    A checkpoint's metadata written by someone else, or by pecli about another tensor, says
    nothing about this one: no metadata verdict is given at all.
    """
    assert _scan_with(_meta()).metadata.startswith("disagrees")  # pecli's, for "pe": checked
    others = {k: v for k, v in _meta().items() if k != "pecli_version"}
    assert _scan_with(others).metadata == ""  # the same words, not pecli's: not checked
    assert _scan_with(_meta(key="bias")).metadata == ""  # pecli's, for another tensor
