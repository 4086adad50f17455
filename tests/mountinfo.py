"""A fake ``/proc/self/mountinfo`` for pecli.io.paths, the mount table a test chooses."""

from __future__ import annotations

import io

import pytest

from pecli.io import paths


def fake_mountinfo(monkeypatch: pytest.MonkeyPatch, table: str) -> None:
    """``paths`` reads ``table`` as the mount table; every other file as it is."""
    real_open = open
    monkeypatch.setattr(
        paths,
        "open",
        lambda name, *a, **k: (
            io.StringIO(table) if name == "/proc/self/mountinfo" else real_open(name, *a, **k)
        ),
        raising=False,
    )
