"""Any table or cache, read whole: ``.npy``, CSV, ``.safetensors``, ``.npz``, a GGUF tensor.

The one reader of the commands that take a table or a cache (``rope identify``,
``rope identify-axes``, ``diff``): a ``.safetensors`` file or an ``.npz`` archive gives every
tensor (or the one named), a GGUF file its frequency tensor, a ``.npy`` file or a CSV table
(or stdin) the table alone. Every format through its bounded reader (no memory map, no
unpickling); the problems are ParameterErrors naming the parameter given. No maths here.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from ...core.errors import ParameterError
from ..paths import note_input
from . import TABLE_FORMATS, check_source, read_table

__all__ = ["ANY_FORMATS", "CONTAINERS", "read_arrays"]

#: What :func:`read_arrays` reads: a table (:data:`pecli.io.reading.TABLE_FORMATS`) or these.
ANY_FORMATS = (*TABLE_FORMATS, ".safetensors", ".npz", ".gguf")
#: The formats that hold several named tensors.
CONTAINERS = (".safetensors", ".npz", ".gguf")


def read_arrays(
    path: str,
    *,
    tensor: str | None = None,
    parameter: str = "file",
    tensor_parameter: str = "tensor",
    formats: Sequence[str] = ANY_FORMATS,
    table: bool = False,
) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The arrays of a file and its string metadata, read whole.

    Parameters
    ----------
    path : str
        The file, or ``-`` for stdin (a ``.npy`` or CSV table).
    tensor : str, keyword-only
        The one tensor to read of a ``.safetensors``, ``.npz`` or GGUF file (default: every
        tensor; for GGUF, the one frequency tensor it holds).
    parameter, tensor_parameter : str, keyword-only
        The names errors are reported under: the file's, and the tensor name's.
    formats : sequence of str, keyword-only
        Those of :data:`ANY_FORMATS` the caller reads (named when the file is missing; a GGUF
        file is recognised only when ``.gguf`` is one).
    table : bool, keyword-only
        A ``.npy`` or CSV file is read as a table (:func:`pecli.io.reading.read_table`: 2-D,
        finite; a ``(1, n, d)`` batch as ``(n, d)``), a complex ``.npy`` as it is stored;
        otherwise as stored, any shape (a vector too), real numbers only (integers in
        their dtype, as an ``.npz`` archive's).

    Returns
    -------
    arrays : dict of str to numpy.ndarray
        Tensors by name, or ``{"table": …}`` for a ``.npy`` or CSV file.
    metadata : dict of str to str
        A ``.safetensors`` file's ``__metadata__`` (empty for the others).

    Raises
    ------
    ParameterError
        A missing or unreadable file, a tensor it does not hold, ``tensor`` given for a file
        that is one table, a GGUF file holding no frequency tensor or several.

    """
    check_source(path, parameter=parameter, formats=formats)
    if ".gguf" in formats:
        from ..ports.gguf import is_gguf

        if is_gguf(path):
            return _gguf(path, tensor, parameter, tensor_parameter), {}
    if path.endswith(".safetensors"):
        return _safetensors(path, tensor, parameter, tensor_parameter)
    if ".npz" in formats and path.lower().endswith(".npz"):
        return _npz(path, tensor, parameter, tensor_parameter), {}
    if tensor is not None:
        held = [f for f in CONTAINERS if f in formats]
        names = " and ".join([", ".join(held[:-1]), held[-1]] if len(held) > 1 else held)
        rule = f"applies only to {names} files (a .npy or CSV file is one table)"
        raise ParameterError(tensor_parameter, rule, tensor)
    return {"table": _table(path, parameter, table)}, {}


def _table(path: str, parameter: str, table: bool) -> np.ndarray:
    """A ``.npy`` file as stored (its header checked before the data), or a table."""
    from .npy import load_keeping_dtype, npy_dtype

    if path.endswith(".npy") and os.path.isfile(path):
        stored = npy_dtype(path)
        if not table or (stored is not None and stored.kind == "c"):
            note_input(path)  # its header is checked before the data is read, as identify does
            return load_keeping_dtype(
                path, path, parameter, complex_ok=table, integers_as_stored=not table
            )
    return read_table(path, parameter=parameter)


def _safetensors(
    path: str, tensor: str | None, parameter: str, tensor_parameter: str
) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    from ..tensors import missing_tensor, read_safetensors

    tensors, metadata = read_safetensors(path, parameter=parameter)
    if tensor is None:
        return tensors, metadata
    if tensor not in tensors:
        raise missing_tensor(path, list(tensors), tensor, tensor_parameter)
    return {tensor: tensors[tensor]}, metadata


def _npz(
    path: str, tensor: str | None, parameter: str, tensor_parameter: str
) -> dict[str, np.ndarray]:
    from ..checkpoints import open_checkpoint

    with open_checkpoint(path, parameter=parameter) as checkpoint:
        keys = [t.key for t in checkpoint.tensors] if tensor is None else [tensor]
        return {
            key: np.array(checkpoint.load(checkpoint.info(key, tensor_parameter).key))
            for key in keys
        }


def _gguf(
    path: str, tensor: str | None, parameter: str, tensor_parameter: str
) -> dict[str, np.ndarray]:
    """The named tensor of a GGUF file, else the one frequency tensor it holds (F32 only)."""
    from ...core.ports.gguf_format import FREQUENCY_TENSORS
    from ..ports.gguf import read_f32, read_gguf

    gguf = read_gguf(path, parameter=parameter)
    if tensor is None:
        present = [name for name in FREQUENCY_TENSORS if name in gguf.tensors]
        if len(present) != 1:
            rule = f"holds {len(present)} frequency tensors: name one with `{tensor_parameter}`"
            raise ParameterError(parameter, rule, path)
        tensor = present[0]
    return {tensor: read_f32(gguf, tensor, parameter=tensor_parameter)}
