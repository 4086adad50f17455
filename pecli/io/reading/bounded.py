"""Bounded reads: a file's bytes by ``preadv``, never a memory map; a stream in checked chunks.

A stream is checked chunk by chunk as it arrives, never read to its end first (``yes``).

A memory-mapped file that is truncated while it is read ends the process with SIGBUS; a read
call returns short instead, which the caller reports as "changed while it was read". Each
call asks for at most 64 MiB (the array itself is allocated once, by the caller). No maths.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import IO

import numpy as np

from ...core.errors import ParameterError

__all__ = ["bounded_chunks", "read_into"]

#: Most bytes asked of one read call.
CHUNK = 1 << 26


def read_into(fd: int, array: np.ndarray, offset: int) -> bool:
    """Fill C- or F-contiguous ``array`` with the file's bytes from ``offset``.

    Returns False when the file ends first (it was cut short, or its header lies).

    >>> import tempfile
    >>> with tempfile.TemporaryFile() as handle:
    ...     _ = handle.write(np.arange(3, dtype="<i4").tobytes())
    ...     handle.flush()
    ...     out = np.empty(3, "<i4")
    ...     read_into(handle.fileno(), out, 0), out.tolist(), read_into(handle.fileno(), out, 8)
    (True, [0, 1, 2], False)
    """
    buffer = array.reshape(-1, order="A").view(np.uint8)
    done = 0
    while done < buffer.size:
        got = os.preadv(fd, [buffer[done : done + CHUNK].data], offset + done)
        if got <= 0:
            return False
        done += got
    return True


def bounded_chunks(
    stream: IO[bytes], first: bytes, limit: int, rule: str, parameter: str, *, text: bool
) -> Iterator[bytes]:
    """``first``, then the rest of ``stream``, checked as it arrives (``/dev/zero``, ``yes``).

    Raises :class:`ParameterError` with ``rule`` past ``limit`` bytes and, for ``text``, at
    the first NUL byte (text has none), instead of reading an endless stream to its end.
    """
    total, chunk = 0, first
    while chunk:
        if text and b"\0" in chunk:
            raise ParameterError(parameter, "must be .npy or CSV text", "binary data")
        total += len(chunk)
        if total > limit:
            raise ParameterError(parameter, rule, "more")
        yield chunk
        chunk = stream.read(1 << 20)
