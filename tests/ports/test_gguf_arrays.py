"""GGUF metadata arrays read by hand-written files (the GGUF v3 layout of ggml's GGUF spec).

A key/value is the key (uint64 length + UTF-8), a uint32 value type and the value; an array
(type 9) holds its item type (uint32), its length (uint64) and the items; a string (type 8)
is a uint64 length and its bytes. pecli keeps arrays of up to KEEP_ARRAY (4096) items and
stores a longer one as ``("array", n)``; arrays of arrays are not GGUF metadata.
"""

from __future__ import annotations

import struct

import pytest

from pecli.core.errors import ParameterError
from pecli.io.ports.gguf import KEEP_ARRAY, MAX_F32_VALUES, read_f32, read_gguf


def _text(text: str) -> bytes:
    return struct.pack("<Q", len(text.encode())) + text.encode()


def _gguf(tmp_path, key: str, value: bytes) -> str:
    """A GGUF v3 file, no tensor, one key whose type and value bytes are ``value``."""
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + _text(key) + value
    path = tmp_path / "one.gguf"
    path.write_bytes(head + b"\0" * (-len(head) % 32))
    return str(path)


def _int32s(n: int) -> bytes:
    return struct.pack("<IIQ", 9, 5, n) + struct.pack(f"<{n}i", *range(n))


def _strings(words: list[str]) -> bytes:
    return struct.pack("<IIQ", 9, 8, len(words)) + b"".join(_text(w) for w in words)


def test_an_int32_array_of_4096_is_kept_and_one_of_4097_only_counted(tmp_path):
    assert KEEP_ARRAY == 4096
    kept = read_gguf(_gguf(tmp_path, "a.ids", _int32s(4096))).metadata["a.ids"]
    assert kept == list(range(4096))
    counted = read_gguf(_gguf(tmp_path, "a.ids", _int32s(4097))).metadata["a.ids"]
    assert counted == ("array", 4097)


def test_a_string_array_of_up_to_4096_is_kept_in_order(tmp_path):
    small = read_gguf(_gguf(tmp_path, "a.words", _strings(["rope", "θ", ""])))
    assert small.metadata["a.words"] == ["rope", "θ", ""]
    words = [str(k) for k in range(4096)]
    assert read_gguf(_gguf(tmp_path, "a.words", _strings(words))).metadata["a.words"] == words
    more = read_gguf(_gguf(tmp_path, "a.words", _strings([*words, "x"])))
    assert more.metadata["a.words"] == ("array", 4097)


def test_an_array_of_arrays_is_refused_as_nested(tmp_path):
    """An array (type 9) whose items are arrays of 2 int32: not GGUF metadata."""
    inner = struct.pack("<IQ", 5, 2) + struct.pack("<2i", 1, 2)
    value = struct.pack("<IIQ", 9, 9, 2) + inner + inner
    with pytest.raises(ParameterError) as caught:
        read_gguf(_gguf(tmp_path, "a.nested", value))
    assert caught.value.rule == "is not a valid GGUF file: nested arrays"


def test_an_unknown_value_type_is_named(tmp_path):
    """Value types run 0 … 12 (uint8 … float64); 13 is none of them."""
    with pytest.raises(ParameterError) as caught:
        read_gguf(_gguf(tmp_path, "a.odd", struct.pack("<II", 13, 0)))
    assert caught.value.rule == "is not a valid GGUF file: value type 13 is unknown"


def test_forty_empty_strings_fit_in_their_eight_length_bytes_each(tmp_path):
    """An empty string is its uint64 length alone (8 bytes): 40 of them take 320 bytes, and
    the file holds no more than that and its padding (< 32 bytes): they are read, all ''."""
    assert (
        read_gguf(_gguf(tmp_path, "a.words", _strings([""] * 40))).metadata["a.words"] == [""] * 40
    )


def test_a_long_array_of_arrays_is_refused_as_nested_too(tmp_path):
    """4097 items (past KEEP_ARRAY), each an empty array of int32: still nested arrays, not a
    vocabulary of strings to walk."""
    inner = struct.pack("<IQ", 5, 0)
    value = struct.pack("<IIQ", 9, 9, 4097) + inner * 4097
    with pytest.raises(ParameterError) as caught:
        read_gguf(_gguf(tmp_path, "a.nested", value))
    assert caught.value.rule == "is not a valid GGUF file: nested arrays"


def test_a_string_longer_than_the_read_window_is_read_whole_to_the_file_s_last_byte(tmp_path):
    """A string of 2^20 + 3 bytes (more than the 1 MiB read at once), the file's last bytes
    (no padding after it): its bytes come back as written, not "changed while it was read"."""
    text = "rope" * (1 << 18) + "end"
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + _text("general.name")
    path = tmp_path / "long.gguf"
    path.write_bytes(head + struct.pack("<I", 8) + _text(text))
    assert read_gguf(str(path)).metadata == {"general.name": text}


def test_a_file_cut_after_its_version_names_the_byte_its_header_needs(tmp_path):
    """GGUF v3 starts with the magic (4 bytes), the version (uint32) and the tensor count
    (uint64): a file of only the first 8 bytes ends at byte 8 and needs 16."""
    path = tmp_path / "cut.gguf"
    path.write_bytes(b"GGUF" + struct.pack("<I", 3))
    with pytest.raises(ParameterError, match="it ends at byte 8, its header needs 16"):
        read_gguf(str(path))


def test_a_vocabulary_after_a_string_longer_than_the_window_is_walked(tmp_path):
    """A string of 2^20 + 3 bytes, then 4097 strings (past KEEP_ARRAY: walked, counted), then
    a uint32: the walk starts inside the window read after the long string, not at byte 0."""
    kvs = [
        _text("general.name") + struct.pack("<I", 8) + _text("rope" * (1 << 18) + "end"),
        _text("a.words") + _strings([str(k) for k in range(4097)]),
        _text("a.count") + struct.pack("<II", 4, 7),
    ]
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 3) + b"".join(kvs)
    path = tmp_path / "vocab.gguf"
    path.write_bytes(head + b"\0" * (-len(head) % 32))
    metadata = read_gguf(str(path)).metadata
    assert (metadata["a.words"], metadata["a.count"]) == (("array", 4097), 7)


@pytest.mark.parametrize("dims", [4, 5])
def test_a_tensor_of_more_than_ggml_s_four_dimensions_is_refused(tmp_path, dims):
    """ggml's GGML_MAX_DIMS is 4: a tensor info (name, n_dims, n_dims uint64 sizes, type,
    offset) of 4 sizes of 1 is read; one of 5 is refused by name."""
    info = _text("x") + struct.pack(f"<I{dims}QIQ", dims, *[1] * dims, 0, 0)
    head = b"GGUF" + struct.pack("<IQQ", 3, 1, 0) + info
    path = tmp_path / "dims.gguf"
    path.write_bytes(head + b"\0" * (-len(head) % 32) + struct.pack("<f", 1.0) + b"\0" * 28)
    if dims == 4:
        assert read_gguf(str(path)).tensors["x"].shape == (1, 1, 1, 1)
    else:
        with pytest.raises(ParameterError, match="tensor 'x' has 5 dimensions"):
            read_gguf(str(path))


def test_a_string_value_of_bad_utf8_is_read_with_a_replacement_character(tmp_path):
    """A metadata string value (not a key or tensor name) of bytes ``rope\\xff``: 0xff is no
    UTF-8; the value is kept, the byte read as U+FFFD, and the file is not refused."""
    value = struct.pack("<IQ", 8, 5) + b"rope\xff"
    assert read_gguf(_gguf(tmp_path, "a.name", value)).metadata["a.name"] == "rope\ufffd"


def test_an_f32_tensor_of_more_than_2_to_the_24_values_is_refused_unread(tmp_path):
    """One F32 tensor (type 0) of 2^24 + 1 values (ne[0]), its data a hole of zeros (the file
    extended with truncate, no disk used): more than the 2^24 read at most, so it is refused
    by its count before any of its 64 MiB is read."""
    assert MAX_F32_VALUES == 1 << 24
    count = (1 << 24) + 1
    info = _text("big") + struct.pack("<IQIQ", 1, count, 0, 0)
    head = b"GGUF" + struct.pack("<IQQ", 3, 1, 0) + info
    path = tmp_path / "big.gguf"
    with open(path, "wb") as handle:
        handle.write(head + b"\0" * (-len(head) % 32))
        handle.truncate(handle.tell() + 4 * count)
    with pytest.raises(ParameterError, match=f"tensor big has {count} values \\(at most 16777216"):
        read_f32(read_gguf(str(path)), "big")
