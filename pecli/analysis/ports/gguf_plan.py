"""A config's per-layer plan against the one llama.cpp runs for a GGUF of that architecture.

No GGUF key holds which layers are NoPE (SmolLM3, Llama 4) or the sliding-window period
(Gemma 3, Cohere 2, …): llama.cpp's loader hard-codes them per architecture
(:data:`pecli.core.ports.gguf_layers.GGUF_PLANS`). A config whose plan differs from that
(a checkpoint trained with another NoPE step, a ``no_rope_layers`` list read the wrong way
round) converts without complaint and runs wrong; ``gguf check`` says so. Pure Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.errors import ParameterError
from ...core.ports.gguf_layers import GGUF_PLANS, config_from_gguf
from ...core.rope.config.plans import rope_flags
from .gguf_notes import Finding

__all__ = ["plan_findings"]


def plan_findings(
    config: Mapping[str, Any], arch: str | None, metadata: Mapping[str, Any]
) -> list[Finding]:
    """The NoPE layers and sliding layers of the config against llama.cpp's, for ``arch``.

    Nothing for an architecture with no hard-coded plan, or a config or file that does not
    give its number of layers.

    Examples
    --------
    >>> config = {"num_hidden_layers": 8, "no_rope_layers": [1, 1, 1, 0] * 2}
    >>> plan_findings(config, "smollm3", {"smollm3.block_count": 8})[0].status
    'note'

    """
    plan = GGUF_PLANS.get(arch or "")
    if plan is None:
        return []
    try:
        kinds, rotates = rope_flags(config)
        gguf_kinds, gguf_rotates = rope_flags(config_from_gguf(metadata, arch)[0])
    except ParameterError:
        return []
    found = []
    if plan.nope_step:
        found.append(_compare("NoPE layers", _nope(rotates), _nope(gguf_rotates), arch, "NoPE"))
    if plan.swa_period and any("sliding" in k for k in kinds):
        want, got = _global(kinds), _global(gguf_kinds)
        found.append(_compare("global layers", want, got, arch, "sliding-window"))
    return found


def _nope(rotates: list[bool]) -> list[int]:
    return [i for i, r in enumerate(rotates) if not r]


def _global(kinds: list[str]) -> list[int]:
    return [i for i, k in enumerate(kinds) if "sliding" not in k]


def _compare(item: str, want: list[int], got: list[int], arch: str | None, what: str) -> Finding:
    shown = _shown(want)
    if want == got:
        detail = (
            f"{shown}: llama.cpp's {what} pattern for {arch} is hard-coded (no GGUF key) "
            "and matches the config's"
        )
        return Finding(item, "note", None, None, detail)
    detail = (
        f"the config's {what} layers are not those llama.cpp hard-codes for {arch} (no GGUF "
        "key can carry them): the converted model runs with llama.cpp's"
    )
    return Finding(item, "differ", shown, _shown(got), detail)


def _shown(layers: list[int]) -> str:
    """The first 12 layers, and an ellipsis when there are more (on either side of a finding)."""
    return " ".join(map(str, layers[:12])) + (" …" if len(layers) > 12 else "")
