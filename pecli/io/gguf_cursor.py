"""Bounded sequential reads of a binary header (GGUF): ``pread`` windows, checked counts."""

from __future__ import annotations

import os
import struct
from typing import Any

from ..core.errors import ParameterError

__all__ = ["CUT", "Cursor"]

_WINDOW = 1 << 20
CUT = "a truncated GGUF file, or not a valid one"


class Cursor:
    """Bounded sequential reads of a file through ``os.pread`` in 1 MiB windows.

    Every read is checked against the bytes the file has left (a truncated file is named as
    such); a count is checked against what its items need at least before it is used; the
    file's bytes are never memory-mapped, so a file cut short while it is read is an error.
    Byte order ``order`` is ``<`` or ``>`` (struct codes).
    """

    def __init__(self, fd: int, size: int, path: str, parameter: str) -> None:
        self.fd, self.size, self.path, self.parameter = fd, size, path, parameter
        self.pos, self._start, self._window = 0, 0, b""
        self.order = "<"

    def left(self) -> int:
        """Bytes of the file after the current position."""
        return self.size - self.pos

    def fail(self, what: str, kind: str = "not a valid GGUF file") -> ParameterError:
        """The one-line error naming the file: ``is <kind>: <what>``."""
        return ParameterError(self.parameter, f"is {kind}: {what}", self.path)

    def take(self, n: int) -> bytes:
        """The next ``n`` bytes; a file too short for them is named truncated."""
        if n > self.left():
            raise ParameterError(
                self.parameter,
                f"is a truncated GGUF file: it ends at byte "
                f"{self.size}, its header needs {self.pos + n}",
                self.path,
            )
        end = self._start + len(self._window)
        if not (self._start <= self.pos and self.pos + n <= end):
            self._start, self._window = self.pos, os.pread(self.fd, max(n, _WINDOW), self.pos)
            if len(self._window) < n:
                raise ParameterError(self.parameter, "changed while it was read", self.path)
        at = self.pos - self._start
        self.pos += n
        return self._window[at : at + n]

    def unpack(self, code: str) -> Any:
        """The next scalar of struct ``code`` in the file's byte order."""
        return struct.unpack(self.order + code, self.take(struct.calcsize(code)))[0]

    def count(self, what: str, least_bytes: int) -> int:
        """A uint64 count of items of at least ``least_bytes`` each that must fit the file."""
        n = int(self.unpack("Q"))
        if n * least_bytes > self.left():
            raise self.fail(f"{what} {n} cannot fit the {self.left()} bytes left", CUT)
        return n

    def skip_strings(self, n: int) -> None:
        """Step over ``n`` strings (uint64 length, then bytes) without decoding them.

        A vocabulary holds 10^5 of them: each one inside the window read is stepped over in a
        tight loop (it is in the file, so ``take``'s checks hold); any other goes through
        ``take``, which reads the next window or names the file truncated.
        """
        length = struct.Struct(self.order + "Q").unpack_from
        window, start = self._window, self._start
        at, size = self.pos - start, len(window)
        for _ in range(n):
            if at + 8 <= size and (end := at + 8 + length(window, at)[0]) <= size:
                at = end
                continue
            self.pos = start + at
            self.take(self.count("a string of length", 1))
            window, start = self._window, self._start
            at, size = self.pos - start, len(window)
        self.pos = start + at

    def string(self, what: str, strict: bool = False) -> str:
        """A uint64 length, then that many bytes of UTF-8 (``strict``: refuse bad bytes)."""
        raw = self.take(self.count(f"{what} of length", 1))
        try:
            return raw.decode("utf-8", errors="strict" if strict else "replace")
        except UnicodeDecodeError:
            raise self.fail(f"{what} is not UTF-8") from None
