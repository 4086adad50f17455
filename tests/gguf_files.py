"""GGUF files written by hand with ``struct`` (the format's own layout, no gguf library)."""

from __future__ import annotations

import struct
from pathlib import Path


def _name(text: str) -> bytes:
    return struct.pack("<Q", len(text.encode())) + text.encode()


def _pair(key: str, value: object) -> bytes:
    """A key and its value: a string (type 8), a float32 (6), a uint32 (4) or a list of int32
    (an array, 9, of type 5: ``rope.dimension_sections``)."""
    if isinstance(value, list):
        items = struct.pack(f"<{len(value)}i", *value)
        return _name(key) + struct.pack("<IIQ", 9, 5, len(value)) + items
    if isinstance(value, str):
        return _name(key) + struct.pack("<I", 8) + _name(value)
    if isinstance(value, float):
        return _name(key) + struct.pack("<If", 6, value)
    return _name(key) + struct.pack("<II", 4, value)


def header_only_gguf(path: Path, arch: str, keys: dict[str, object]) -> str:
    """A GGUF v3 file of ``general.architecture`` and these ``{arch}.`` keys, no tensor."""
    kvs = [_pair("general.architecture", arch)] + [_pair(f"{arch}.{k}", v) for k, v in keys.items()]
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs)
    path.write_bytes(head + b"\0" * (-len(head) % 32))
    return str(path)
