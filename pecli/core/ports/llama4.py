"""Llama 4's iRoPE: which layers rotate, their chunked attention, and the NoPE temperature.

Every ``no_rope_layer_interval``-th layer (4: layers 3, 7, 11, …) rotates nothing and
attends globally; the others use RoPE inside chunks of ``attention_chunk_size`` (8192). The
NoPE layers multiply the queries by ``log(floor((p + 1) / floor_scale) + 1) · attn_scale + 1``
(``floor_scale`` 8192, ``attn_scale`` 0.1): 1 up to position 8190, then growing with the log
of the position. Source: transformers ``models/llama4/configuration_llama4.py``
(``no_rope_layers``) and ``modeling_llama4.py`` ``Llama4TextAttention.forward``
(``attn_temperature_tuning``). Pure NumPy.
"""

from __future__ import annotations

import numpy as np

__all__ = ["nope_temperature", "rope_layers"]


def nope_temperature(
    positions: np.ndarray, *, floor_scale: float = 8192.0, attn_scale: float = 0.1
) -> np.ndarray:
    """The NoPE layers' factor on the queries at each position (float64).

    Examples
    --------
    >>> np.round(nope_temperature(np.array([0, 8190, 8191, 65535, 1048575])), 7).tolist()
    [1.0, 1.0, 1.0693147, 1.2197225, 1.4859812]

    """
    p = np.asarray(positions, dtype=np.float64)
    result: np.ndarray = np.log(np.floor((p + 1.0) / floor_scale) + 1.0) * attn_scale + 1.0
    return result


def rope_layers(layers: int, interval: int = 4, given: list[int] | None = None) -> list[bool]:
    """Whether each layer rotates: ``(i + 1) % interval != 0`` unless the config lists them.

    Examples
    --------
    >>> ["rope" if r else "nope" for r in rope_layers(8)]
    ['rope', 'rope', 'rope', 'nope', 'rope', 'rope', 'rope', 'nope']

    """
    if given:
        return [bool(flag) for flag in given]
    return [(i + 1) % interval != 0 for i in range(layers)]
