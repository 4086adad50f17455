"""A head's width and its rotated slice, from every key the ecosystem writes them with.

The head width is ``head_dim`` (``attention_head_dim`` for Zamba2, ``kv_channels`` for
JetMoE), else ``hidden_size //
num_attention_heads`` under any of their names (GPT-J's ``n_embd`` / ``n_head``, DBRX's
``d_model`` / ``n_heads``, Moonshine's ``decoder_num_attention_heads``). The rotated slice is
an absolute width (``qk_rope_head_dim`` for multi-head latent attention, where it is the LAST
channels of the ``qk_nope_head_dim + qk_rope_head_dim`` head; ``rotary_dim`` for GPT-J,
CodeGen and MiniMax-M2; ``rope_dim``) or a fraction (``partial_rotary_factor``, GPT-NeoX's
``rotary_pct``), else the model class's default (GLM's 0.5, :mod:`.families`). Sources:
transformers 5 ``models/*/configuration_*.py`` and each model's rotary class
(``dim = int(head_dim * partial_rotary_factor)``). Pure Python; no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import ParameterError
from ..number_rules import shown
from .class_fields import no_class

__all__ = ["FRACTION_KEYS", "ROTATED_KEYS", "Widths", "head_widths"]

#: Keys that give the head width outright, in the order they are tried.
HEAD_KEYS = ("head_dim", "attention_head_dim", "kv_channels")
#: Names of the model width and of the number of query heads (GPT-J, DBRX, Moonshine, …).
HIDDEN_KEYS = ("hidden_size", "n_embd", "d_model")
HEADS_KEYS = ("num_attention_heads", "n_head", "n_heads", "decoder_num_attention_heads")
#: Keys that give the rotated width in channels.
ROTATED_KEYS = ("qk_rope_head_dim", "rotary_dim", "rope_dim")
#: Keys that give the rotated width as a fraction of the head.
FRACTION_KEYS = ("partial_rotary_factor", "rotary_pct")


@dataclass(frozen=True)
class Widths:
    """A head and the slice of it that rotates.

    Attributes
    ----------
    head : int
        Channels of one query/key head.
    rotated_key : str or None
        The key that gave an absolute rotated width (``qk_rope_head_dim``, …), or None.
    rotated : int or None
        That width, in channels (None: a fraction of ``head`` decides it).
    last : bool
        The slice is the head's last channels (multi-head latent attention), not its first.

    """

    head: int
    rotated_key: str | None = None
    rotated: int | None = None
    last: bool = False


def head_widths(section: Mapping[str, Any], notes: list[str]) -> Widths:
    """The head width and any absolute rotated width a (text) config gives.

    Raises
    ------
    ParameterError
        ``config``: no key gives the head width; a width that is not an integer >= 1;
        ``hidden_size`` not a multiple of the heads; a rotated width above the head's.

    Examples
    --------
    >>> head_widths({"hidden_size": 7168, "num_attention_heads": 128,
    ...     "qk_nope_head_dim": 128, "qk_rope_head_dim": 64}, [])
    Widths(head=192, rotated_key='qk_rope_head_dim', rotated=64, last=True)

    """
    key = next((k for k in ROTATED_KEYS if section.get(k) is not None), None)
    rotated = _whole(key, section[key]) if key else None
    if key == "qk_rope_head_dim":
        nope = section.get("qk_nope_head_dim")
        if nope is not None:
            head = _whole("qk_nope_head_dim", nope) + rotated  # type: ignore[operator]
            notes.append(
                f"multi-head latent attention: the last qk_rope_head_dim = {rotated} channels "
                f"of each {head}-channel query/key head rotate (after qk_nope_head_dim = {nope})"
            )
            return Widths(head, key, rotated, last=True)
    head = _head(section, notes, fallback=rotated)
    if rotated is not None and rotated > head:
        raise ParameterError("config", f"field {key} must be <= the head width {head}", rotated)
    if key is not None and rotated != head:
        notes.append(
            f"{key} = {rotated}: only that many of the head's {head} channels rotate; "
            "a kernel rotating the whole head is wrong (transformers' MiniMax-M2 did)"
        )
    return Widths(head, key, rotated, last=key == "qk_rope_head_dim" and rotated != head)


def _head(section: Mapping[str, Any], notes: list[str], *, fallback: int | None) -> int:
    for key in HEAD_KEYS:
        if section.get(key):
            if key != "head_dim":
                notes.append(f"the head width is {key} = {section[key]}")
            return _whole(key, section[key])
    hidden = next((k for k in HIDDEN_KEYS if section.get(k) is not None), None)
    heads = next((k for k in HEADS_KEYS if section.get(k) is not None), None)
    if hidden is None or heads is None:
        if fallback is not None:
            return fallback
        rule = "needs head_dim, or hidden_size and num_attention_heads"
        raise ParameterError("config", rule + no_class(section), "nothing")
    size, count = _whole(hidden, section[hidden]), _whole(heads, section[heads])
    if size % count:
        rule = f"field {hidden} must be a multiple of {heads} = {count}"
        raise ParameterError("config", rule, size)
    notes.append(f"head_dim = {hidden} // {heads} = {size} // {count}")
    return size // count


def _whole(key: str, value: Any) -> int:
    """A width: an integer >= 1 (a float with an integer value is taken, as JSON writers do)."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or value < 1 or value != int(value):
        raise ParameterError("config", f"field {key} must be an integer >= 1", shown(value))
    return int(value)
