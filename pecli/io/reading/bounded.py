"""Reading a file's bytes into an array with bounded ``preadv`` calls: never a memory map.

A memory-mapped file that is truncated while it is read ends the process with SIGBUS; a read
call returns short instead, which the caller reports as "changed while it was read". Each
call asks for at most 64 MiB (the array itself is allocated once, by the caller). No maths.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["read_into"]

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
