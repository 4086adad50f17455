"""Activation dumps (``rope probe``): one float array from ``.npy``, CSV or a ``.safetensors``.

A ``.npy`` file keeps its dtype (bfloat16 too) and is refused when it holds integers, before
its data is read; a ``.safetensors`` file gives its one tensor, or the one named, read alone
(the others are not loaded). CSV is a 2-D float64 table. The checks of the readers it calls
hold: no pickle, no memory map, a header's size checked before any data, a file cut short
while read named. No maths here.
"""

from __future__ import annotations

import math
from typing import IO

import numpy as np

from ...core.errors import ParameterError
from . import MAX_TABLE_VALUES, NPY_MAGIC, _is_stream, _read_file, _stream_as_file, check_source
from .npy import header_fields

__all__ = ["ACTIVATION_FORMATS", "read_activations"]

#: What :func:`read_activations` reads (named when an input is missing).
ACTIVATION_FORMATS = (".npy", "CSV", ".safetensors")
#: Tensor names an error lists before "… and N more".
SHOWN_NAMES = 8


def read_activations(path: str, *, tensor: str | None = None, parameter: str = "pre") -> np.ndarray:
    """One whole array of activations, 1-D to 4-D, in its stored float dtype.

    Parameters
    ----------
    path : str
        A ``.npy``, CSV or ``.safetensors`` file, a pipe, or ``-`` (stdin; not
        ``.safetensors``, which is read at offsets).
    tensor : str, optional, keyword-only
        The tensor of a ``.safetensors`` file (needed when it holds several).
    parameter : str, keyword-only
        The name errors are reported under (``tensor`` for a tensor it does not hold, or
        none named among several).

    Raises
    ------
    ParameterError
        A missing file, a dtype that is not float (integers, complex, objects), NaN or an
        infinity (said with its index, as "finite numbers only"), more
        than :data:`pecli.io.reading.MAX_TABLE_VALUES` values, a tensor named that the file
        lacks (or none named among several), ``tensor`` beside a file that is no
        ``.safetensors``.

    Examples
    --------
    >>> import os, tempfile
    >>> name = os.path.join(tempfile.mkdtemp(), "q.npy")
    >>> np.save(name, np.ones((3, 2, 4), np.float32))
    >>> read_activations(name).shape
    (3, 2, 4)
    >>> np.save(name, np.ones((3, 4), np.int64))
    >>> read_activations(name)
    Traceback (most recent call last):
    ...
    pecli.core.errors.ParameterError: pre must hold floating-point activations (got 'dtype int64')
    >>> os.remove(name); os.rmdir(os.path.dirname(name))

    """
    check_source(path, parameter=parameter, formats=ACTIVATION_FORMATS)
    if path.endswith(".safetensors"):
        return _tensor(path, tensor, parameter)
    if tensor is not None:
        rule = "applies only to .safetensors files (a .npy or CSV file holds one array)"
        raise ParameterError("tensor", rule, tensor)
    if path == "-" or _is_stream(path):
        with _stream_as_file(path, parameter) as copy:
            return _checked(copy, path, parameter)
    return _checked(path, path, parameter)


def _checked(source: str, name: str, parameter: str) -> np.ndarray:
    """The array of a file, refused before its data is read if a ``.npy`` holds no floats."""
    with open(source, "rb") as handle:
        if handle.read(len(NPY_MAGIC)) == NPY_MAGIC:
            handle.seek(0)
            _refuse_integers(handle, parameter)
    if source == name:
        from ..paths import note_input

        note_input(source)
    return _read_file(source, name, parameter, "activations")


def _refuse_integers(handle: IO[bytes], parameter: str) -> None:
    """Refuse a ``.npy`` header of integers (read later as float64, silently) or booleans."""
    fmt = np.lib.format
    try:
        dtype = np.dtype(header_fields(handle, fmt.read_magic(handle))[2])
    except (ValueError, OSError, EOFError):
        return  # the reader below names what is wrong with the header
    if dtype.kind in "iub":
        raise ParameterError(parameter, _FLOAT_RULE, f"dtype {dtype}")


_FLOAT_RULE = "must hold floating-point activations"


def _tensor(path: str, tensor: str | None, parameter: str) -> np.ndarray:
    """One tensor of a ``.safetensors`` file, read alone."""
    from .safetensors_file import SafetensorsFile

    with SafetensorsFile(path, parameter=parameter) as handle:
        names = list(handle.entries)
        if tensor is None and len(names) == 1:
            tensor = names[0]
        if tensor is None or tensor not in handle.entries:
            shown = ", ".join(names[:SHOWN_NAMES]) + (
                f", … and {len(names) - SHOWN_NAMES} more" if len(names) > SHOWN_NAMES else ""
            )
            if tensor is None:  # reported as the tensor's, the option a user must add
                rule = f"must name one of the {len(names)} tensors of {path} ({shown or 'none'})"
                raise ParameterError("tensor", rule, "nothing")
            rule = f"must name a tensor of {path} (it has: {shown or 'no tensors'})"
            raise ParameterError("tensor", rule, tensor)
        dtype, shape = handle.dtype(tensor), handle.entries[tensor].shape
        if math.prod(shape) > MAX_TABLE_VALUES:  # checked on the header, before the data
            rule = f"must hold at most {MAX_TABLE_VALUES} values (save fewer tokens)"
            raise ParameterError(parameter, rule, f"tensor {tensor} of shape {shape}")
        if dtype is not None and dtype.kind != "f" and dtype.name != "bfloat16":
            raise ParameterError(parameter, _FLOAT_RULE, f"tensor {tensor} of dtype {dtype}")
        array = handle.read(tensor)
    if not np.all(np.isfinite(array.astype(np.float64))):
        raise ParameterError(parameter, "must hold finite numbers only", f"tensor {tensor}")
    return array
