"""``.safetensors`` files: read every tensor (bf16 included), write a new file atomically.

The one writer of ``.safetensors`` files (``compute``, ``rope cache``, ``rope permute``), with
the tensor names it accepts (:func:`check_key`) and the size it writes (for the free-space
check before any work). Both go through the ``safetensors`` NumPy API:
``safe_open(..., framework="np")`` reads (bfloat16 needs ``ml_dtypes`` imported first;
``safetensors.numpy.load`` cannot return it) and ``safetensors.numpy.save`` writes, bfloat16
included. No maths here.
"""

from __future__ import annotations

import os

import numpy as np

from ..core.errors import ParameterError
from .guard import atomic_output

__all__ = [
    "as_vector", "check_key", "missing_tensor", "read_arrays", "read_safetensors",
    "safetensors_bytes", "write_safetensors",
]  # fmt: skip

#: Tensor names a "--tensor must name a tensor" error lists before "… and N more".
SHOWN_NAMES = 8

#: The dtypes a permuted checkpoint may hold (what safetensors' NumPy API writes).
_CODES = {"float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8",
          "uint8", "bool"}  # fmt: skip


def read_safetensors(
    path: str | os.PathLike[str], *, parameter: str = "input"
) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Every tensor of a ``.safetensors`` file (in file order) and its ``__metadata__``.

    Raises
    ------
    ParameterError
        If the file is missing or is not a readable safetensors file.

    """
    from safetensors import safe_open

    name = os.fspath(path)
    if not os.path.isfile(name):
        raise ParameterError(parameter, "must be an existing .safetensors file", name)
    try:
        with safe_open(name, framework="np") as handle:
            keys = handle.keys()
            if any(handle.get_slice(key).get_dtype() == "BF16" for key in keys):
                import ml_dtypes  # noqa: F401  (registers bfloat16 with NumPy: only when read)
            tensors = {key: handle.get_tensor(key) for key in keys}
            metadata = dict(handle.metadata() or {})
    except Exception as error:  # safetensors raises its own SafetensorError for bad files
        raise ParameterError(parameter, f"must be a safetensors file ({error})", name) from None
    return tensors, metadata


def write_safetensors(
    tensors: dict[str, np.ndarray],
    *,
    output: str | os.PathLike[str],
    metadata: dict[str, str] | None = None,
) -> None:
    """Write ``tensors`` as a new ``.safetensors`` file, atomically.

    Built by ``safetensors.numpy.save`` (bfloat16 from ``ml_dtypes`` included) and written
    through :func:`pecli.io.guard.atomic_output`: the file appears complete or not at all.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.safetensors"
    >>> write_safetensors({"w": np.arange(4, dtype=np.float32)}, output=path)
    >>> read_safetensors(path)[0]["w"]
    array([0., 1., 2., 3.], dtype=float32)
    >>> path.unlink(); path.parent.rmdir()

    """
    from safetensors.numpy import save

    for key, array in tensors.items():
        if str(array.dtype) not in _CODES:
            raise ParameterError(
                "input", f"holds tensor {key} of unsupported dtype", str(array.dtype)
            )
    data = save({k: np.ascontiguousarray(a) for k, a in tensors.items()}, metadata=metadata)
    with atomic_output(output) as handle:
        handle.write(data)


def safetensors_bytes(
    shape: tuple[int, ...], dtype: np.dtype, key: str, metadata: dict[str, str]
) -> int:
    """Bytes of the ``.safetensors`` file :func:`write_safetensors` writes, rounded up a little.

    The JSON header (at most this estimate's 256 bytes of framing beyond its strings) and the
    data: used for the free-space check before anything is computed.
    """
    strings = len(key) + sum(len(k) + len(v) + 8 for k, v in metadata.items())
    return 8 + 256 + strings + int(np.prod(shape)) * np.dtype(dtype).itemsize


def check_key(key: str) -> str:
    """A tensor name pecli writes: non-empty, printable, not starting with ``__``.

    >>> check_key("positional_encoding")
    'positional_encoding'
    """
    if not key or key.startswith("__") or not key.isprintable():
        rule = "must be a non-empty printable name not starting with __ (safetensors' own)"
        raise ParameterError("key", rule, repr(key))
    return key


def read_arrays(
    path: str, *, tensor: str | None = None, parameter: str = "file"
) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The arrays of a file and its metadata, read whole.

    Every tensor of a ``.safetensors`` file (or the one named ``tensor``), else
    ``{"table": …}`` from a ``.npy`` file or a table (CSV, …) with no metadata.

    Raises
    ------
    ParameterError
        If the file cannot be read, or ``tensor`` is given and not in it.

    """
    from .reading import read_table

    if path.endswith(".safetensors"):
        tensors, metadata = read_safetensors(path, parameter=parameter)
        if tensor is None:
            return tensors, metadata
        if tensor not in tensors:
            raise missing_tensor(path, list(tensors), tensor)
        return {tensor: tensors[tensor]}, metadata
    if path.endswith(".npy") and os.path.isfile(path):
        try:
            table = np.load(path, allow_pickle=False)
        except (ValueError, OSError) as error:
            raise ParameterError(parameter, f"must be a .npy file ({error})", path) from None
        if table.dtype.kind == "V" and table.dtype.itemsize == 2:  # how NumPy saves bfloat16
            import ml_dtypes  # only then: 0.5 s to import (ml_dtypes 0.7)

            table = table.view(ml_dtypes.bfloat16)
        return {"table": table}, {}
    return {"table": read_table(path, parameter=parameter)}, {}


def missing_tensor(
    path: str | os.PathLike[str], names: list[str], tensor: object
) -> ParameterError:
    """The error of a ``--tensor`` that the file does not hold: it lists what the file has.

    >>> print(missing_tensor("m.safetensors", ["cos", "sin"], "co"))
    tensor must name a tensor of m.safetensors (it has: cos, sin) (got 'co')
    """
    shown = ", ".join(names[:SHOWN_NAMES])
    more = len(names) - SHOWN_NAMES
    shown += f", … and {more} more" if more > 0 else ""
    rule = f"must name a tensor of {os.fspath(path)} (it has: {shown or 'no tensors'})"
    return ParameterError("tensor", rule, tensor)


def as_vector(table: np.ndarray, *, parameter: str = "file") -> np.ndarray:
    """A 1-D array, or a table of one row or column as one.

    Raises
    ------
    ParameterError
        If ``table`` holds no vector.

    """
    if table.ndim == 2 and 1 in table.shape:
        table = table.reshape(-1)
    if table.ndim != 1:
        raise ParameterError(parameter, "must hold one vector", f"shape {table.shape}")
    return table
