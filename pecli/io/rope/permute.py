"""A checkpoint's q/k rows permuted between Meta's and Hugging Face's layouts, to a new file.

The rows come from a ``.safetensors`` file by bounded reads, one head (or 16 MiB of rows) at a
time, and every tensor goes to a new ``.safetensors`` file written atomically
(:func:`pecli.io.tensors.write_safetensors_parts`); the input is never the output, however
either is spelled. The permutation itself is :mod:`pecli.core.rope.permute`'s.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ..reading.safetensors_file import SafetensorsFile

__all__ = ["permute_checkpoint", "permute_tensors"]


def permute_tensors(
    source: str | None,
    names: list[str],
    shape: tuple[int, int | None],
    direction: str,
    output: str,
) -> None:
    """Permute the rows of the named tensors of ``source``; write every tensor to ``output``.

    Parameters
    ----------
    source : str or None
        A ``.safetensors`` file.
    names : list of str
        The q or k weights in it to permute, each once.
    shape : (int, int or None)
        ``(heads, head_dim)``: the rows of each tensor split into ``heads`` heads, whose width
        must equal ``head_dim`` when given.
    direction : {"meta-to-hf", "hf-to-meta"}
        :func:`pecli.core.rope.permute.qk_permutation`'s direction.
    output : str
        The new ``.safetensors`` file (never the input), written atomically.

    Raises
    ------
    ParameterError
        A missing or repeated tensor, a width that disagrees, tensors of different heights,
        an output that is not a new ``.safetensors`` file.

    """
    from ...core.errors import ParameterError
    from ..reading.safetensors_file import SafetensorsFile
    from ..tensors import missing_tensor

    if source is None or not names:
        raise ParameterError("input", "and `tensor` go together", source)
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ParameterError(
            "tensor", "must name each tensor once (it would be permuted twice)", ", ".join(twice)
        )
    _check_new_file(source, output)
    heads, head_dim = shape
    with SafetensorsFile(source, parameter="input") as handle:
        shapes = {key: entry.shape for key, entry in handle.entries.items()}
        for name in names:
            if name not in shapes:
                raise missing_tensor(source, list(shapes), name)
            rows = shapes[name][0] if shapes[name] else 0
            if head_dim is not None and head_dim * heads != rows:
                rule = f"must equal the rows of {name} / `heads` = {rows} / {heads}"
                raise ParameterError("head_dim", rule, head_dim)
        _same_width(shapes, names, heads)
        _write_permuted(handle, dict.fromkeys(names, heads), direction, output)


def _check_new_file(source: str, output: str) -> None:
    """Refuse, before reading, an output that is not a new .safetensors file beside the input.

    However it is spelled (a link, a hard link, /dev/fd/N), the input is never the output.
    """
    from ...core.errors import ParameterError
    from .. import formats, paths

    if not str(output).endswith(".safetensors"):
        raise ParameterError("output", "must name the new .safetensors file", output)
    formats.check_output(output, "npy", inputs=(source,))  # binary: room, folder, not the input
    if problem := paths.offsets_problem(source, ".safetensors file"):
        raise ParameterError("input", problem, source)


def _same_width(shapes: dict[str, tuple[int, ...]], names: list[str], heads: int) -> None:
    """One --heads for tensors of different heights: q and k of grouped-query attention."""
    from ...core.errors import ParameterError

    rows = {name: shapes[name][0] if shapes[name] else 0 for name in names}
    if len(set(rows.values())) > 1:
        shown = ", ".join(f"{name} {count} rows" for name, count in rows.items())
        rule = (
            f"is one count for tensors of different heights ({shown}): q and k have "
            "different head counts under grouped-query attention; give `config`"
        )
        raise ParameterError("heads", rule, heads)


def permute_checkpoint(
    config: str | None,
    source: str | None,
    patterns: tuple[list[str] | None, list[str] | None],
    direction: str,
    output: str,
) -> None:
    """Permute every q and k projection of ``source`` with the head counts of ``config``.

    ``patterns`` are the fnmatch patterns of the q and k projections (None: the defaults
    :data:`pecli.core.rope.permute.Q_PATTERNS`, ``K_PATTERNS``); q rows are split into
    ``num_attention_heads`` heads, k rows into ``num_key_value_heads``
    (:func:`pecli.core.rope.permute.checkpoint_plan`). Raises ``ParameterError`` as
    :func:`permute_tensors` does, and when a pattern reaches a tensor that is not q or k.
    """
    from ...core.errors import ParameterError
    from ...core.rope.permute import K_PATTERNS, Q_PATTERNS, checkpoint_plan, head_counts
    from ..reading.json_config import read_json_object
    from ..reading.safetensors_file import SafetensorsFile

    if config is None or source is None:
        raise ParameterError(
            "config", "and `input` go together (`q_pattern`, `k_pattern` need both)", config
        )
    q_heads, kv_heads, head_dim = head_counts(read_json_object(config, parameter="config"))
    _check_new_file(source, output)
    chosen = (patterns[0] or Q_PATTERNS, patterns[1] or K_PATTERNS)
    with SafetensorsFile(source, parameter="input") as handle:
        shapes = {key: entry.shape for key, entry in handle.entries.items()}
        plan = checkpoint_plan(
            shapes, heads=(q_heads, kv_heads), head_dim=head_dim, patterns=chosen
        )
        _write_permuted(handle, plan, direction, output)


def _write_permuted(
    handle: SafetensorsFile, plan: dict[str, int], direction: str, output: str
) -> None:
    """Every tensor to ``output``, those of ``plan`` permuted with their head counts, streamed.

    Memory holds one head (or 16 MiB of rows) at a time, not the checkpoint.
    """
    from ...core.errors import ParameterError
    from ...core.rope.permute import permute_rows
    from ..tensors import write_safetensors_parts

    for key, entry in handle.entries.items():
        if handle.dtype(key) is None:
            rule = f"holds tensor {key} of dtype {entry.code}, which pecli does not copy"
            raise ParameterError("input", rule, handle.path)
    for key, heads in plan.items():  # the rows split into heads of even width, before writing
        rows = handle.entries[key].shape[0] if handle.entries[key].shape else 0
        permute_rows(np.empty((rows, 0)), heads, direction)
    parts = [
        (key, handle.dtype(key), entry.shape, _blocks(handle, key, plan.get(key), direction))
        for key, entry in handle.entries.items()
    ]
    write_safetensors_parts(parts, output=output, metadata=handle.metadata)


def _blocks(
    handle: SafetensorsFile, key: str, heads: int | None, direction: str
) -> Iterator[np.ndarray]:
    """Tensor ``key`` in row blocks: one head at a time, permuted, when ``heads`` is given."""
    from ...core.rope.permute import permute_rows

    shape = handle.entries[key].shape
    if not shape:
        yield handle.read(key)
        return
    row_bytes = max(1, math.prod(shape[1:]) * handle.dtype(key).itemsize)  # type: ignore[union-attr]
    step = shape[0] // heads if heads else max(1, (1 << 24) // row_bytes)
    for first in range(0, shape[0], step or 1):
        block = handle.read(key, slice(first, first + step))
        yield permute_rows(block, 1, direction) if heads else block
