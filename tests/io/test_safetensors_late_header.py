"""Metadata known only after the data (``late``) fits in the header's 256 spare bytes, or not.

:func:`pecli.io.tensors.write_safetensors_parts` writes the first header with 256 more
spaces and rewrites it in place with the late metadata when the new header is no longer;
else the first header stays. Either way the file must read back through the safetensors
library (``safe_open``), which is the oracle here. Header lengths are counted by hand.
"""

from __future__ import annotations

import numpy as np
import pytest
from safetensors import safe_open

from pecli.io.tensors import write_safetensors_parts

#: The first header's JSON: 79 bytes, padded to 80, then 256 spaces of room: 336 bytes.
FIRST = '{"__metadata__":{"a":"b"},"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'


@pytest.mark.parametrize(("length", "fits"), [(250, True), (251, False)])
def test_late_metadata_as_long_as_the_room_is_written_and_longer_is_not(tmp_path, length, fits):
    """``,"c":"…"`` adds 7 + length bytes: 79 + 7 + 250 = 336, the first header's length."""
    assert len(FIRST) == 79
    path = tmp_path / "t.safetensors"
    late = {"c": "x" * length}
    parts = [("t", np.dtype(np.float32), (1,), [np.array([2.5], np.float32)])]
    write_safetensors_parts(parts, output=path, metadata={"a": "b"}, late=lambda: late)
    assert int.from_bytes(path.read_bytes()[:8], "little") == 336
    with safe_open(str(path), "np") as f:
        assert f.metadata() == ({"a": "b", **late} if fits else {"a": "b"})
        assert f.get_tensor("t").tolist() == [2.5]
    assert path.stat().st_size == 8 + 336 + 4


def test_without_late_metadata_the_header_has_no_room_and_an_empty_tensor_no_bytes(tmp_path):
    """The format pads the JSON to a multiple of 8 with spaces (134 bytes + 2); then the data:
    4 bytes of "t", none of the (0, 3) tensor "u" (``data_offsets`` [4, 4])."""
    path = tmp_path / "t.safetensors"
    parts = [
        ("t", np.dtype(np.float32), (1,), [np.array([2.5], np.float32)]),
        ("u", np.dtype(np.float32), (0, 3), [np.zeros((0, 3), np.float32)]),
    ]
    write_safetensors_parts(parts, output=path, metadata={"a": "b"})
    text = FIRST[:-1] + ',"u":{"dtype":"F32","shape":[0,3],"data_offsets":[4,4]}}'
    assert len(text) == 134  # padded to 136
    data = path.read_bytes()
    assert data[:8] == (136).to_bytes(8, "little") and data[8:144] == text.encode() + b"  "
    assert len(data) == 8 + 136 + 4
    with safe_open(str(path), "np") as f:
        assert f.metadata() == {"a": "b"}
        assert f.get_tensor("u").shape == (0, 3)
