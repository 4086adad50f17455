"""Read a library's intermediate tensors without re-implementing it (used by the generators).

A rotary module often computes its frequency ladder and its coordinates inside ``forward``
and returns only cos and sin. :func:`trace` runs a call under a ``TorchFunctionMode`` that
records every tensor each torch function returns, in order, so a generator can save the
library's own ``linspace``, ``pow`` or coordinates as a fixture. :func:`pick` chooses one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch.overrides import TorchFunctionMode


class _Recorder(TorchFunctionMode):
    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, torch.Tensor]] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        """Call ``func`` and keep a copy of the tensor it returns."""
        out = func(*args, **(kwargs or {}))
        if isinstance(out, torch.Tensor):
            self.log.append((getattr(func, "__name__", str(func)), out.detach().clone()))
        return out


def trace(call: Callable[[], Any]) -> tuple[Any, list[tuple[str, torch.Tensor]]]:
    """Run ``call()`` and return its result and every (function name, tensor) it made."""
    with _Recorder() as recorder:
        result = call()
    return result, recorder.log


def pick(
    log: list[tuple[str, torch.Tensor]],
    name: str,
    shape: tuple[int, ...],
    *,
    dtype: torch.dtype | None = None,
    last: bool = False,
) -> torch.Tensor:
    """The first (or last) tensor named ``name`` of this shape (and dtype) in ``log``."""
    found = [
        t
        for n, t in log
        if n == name and tuple(t.shape) == shape and (dtype is None or t.dtype == dtype)
    ]
    if not found:
        raise LookupError(f"no {name} of shape {shape} in the trace")
    return found[-1] if last else found[0]
