"""Run one transformers rotary module: its inv_freq, attention scaling and cos/sin.

Used by ``generate_model_zoo.py``. A sequence rotary module (``forward(x, position_ids)`` or
``forward(x, position_ids, layer_type)``) is called once per rotary label (layer type, or a
label such as DeepSeek V4's ``main`` / ``compress``) with ``position_ids`` =
:data:`POSITIONS` as one int64 row, as the models pass them (``cache_position`` is int64);
``x`` is a float32 tensor, so cos/sin come back in float32. Modules of another kind (vision
patches, audio frames) are described, with their buffers, but not called.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import torch

#: The positions of every cos/sin table (one forward call, so dynamic / longrope modules see
#: ``seq_len = max + 1 = 131072``).
POSITIONS = (0, 1, 4095, 4096, 16384, 32767, 131071)


def labels(module: torch.nn.Module) -> list[str | None]:
    """The module's rotary labels.

    ``[None]`` for one ``inv_freq`` buffer, else the prefixes of its ``<label>_inv_freq``
    buffers (``[]`` when it has neither).
    """
    names = [n for n, _ in module.named_buffers(recurse=False)]
    if "inv_freq" in names:
        return [None]
    found = []
    for name in names:
        if name.endswith("_inv_freq") and not name.endswith(
            ("_original_inv_freq", "_long_inv_freq")
        ):
            found.append(name.removesuffix("_inv_freq"))
    return sorted(found)


def _buffer(module: torch.nn.Module, label: str | None, name: str) -> Any:
    return getattr(module, name if label is None else f"{label}_{name}", None)


def forward_kind(module: torch.nn.Module) -> str:
    """The kind of forward the module has.

    ``"sequence"`` (x, position_ids), ``"layer_type"`` (x, position_ids, layer_type), or
    ``"other: <signature>"``.
    """
    params = list(inspect.signature(type(module).forward).parameters)[1:]
    if params[:2] == ["x", "position_ids"]:
        return "layer_type" if "layer_type" in params else "sequence"
    return f"other: forward({', '.join(params)})"


def _as_tables(out: Any) -> tuple[dict[str, np.ndarray], str]:
    """The cos/sin tables of a forward output, and a note on the output's form.

    cos/sin (or the real and imaginary parts of a complex ``freqs_cis``) as float32 arrays,
    without the batch axis, and a note on the output's form.
    """
    if isinstance(out, torch.Tensor) and out.is_complex():
        return {"cos": out.real[0].numpy(), "sin": out.imag[0].numpy()}, (
            f"complex freqs_cis {tuple(out.shape)} {out.dtype}: cos = real, sin = imag"
        )
    cos, sin = out
    shape = f"(cos, sin) {tuple(cos.shape)} {cos.dtype}"
    if cos.dim() == 4:  # M-RoPE: one table per axis, identical for text positions
        if not all(
            torch.equal(cos[0], c) and torch.equal(sin[0], s) for c, s in zip(cos, sin, strict=True)
        ):
            raise ValueError("M-RoPE axes differ for text positions")
        shape += f"; the {cos.shape[0]} axis tables are identical for text positions, one kept"
        cos, sin = cos[0], sin[0]
    if cos.dim() == 3:  # drop the batch axis (a vision module's table has none)
        cos, sin = cos[0], sin[0]
    cos, sin = cos.float().numpy(), sin.float().numpy()
    if cos.shape[0] and not cos[0].any() and sin[0].any():
        # position 0 has cos 1 and sin 0: this module returns (sin, cos) (GPT-J, CodeGen)
        cos, sin = sin, cos
        shape = "(sin, cos) — in this order" + shape.removeprefix("(cos, sin)")
    return {"cos": cos, "sin": sin}, shape


def layout(cos: np.ndarray, frequencies: int | None) -> tuple[str, int]:
    """How the table spreads its frequencies over its columns, and the channels it rotates.

    ``halves`` (``cat(freqs, freqs)``: column j and j + w/2 share a frequency), ``pairs``
    (``repeat_interleave``: columns 2i and 2i+1 share one), ``per-pair`` (one column per
    frequency; the rotation's partner is built by the apply function).
    """
    width = cos.shape[-1]
    if frequencies is not None and width == frequencies:
        return "per-pair", 2 * width
    half = width // 2
    if width % 2 == 0 and np.array_equal(cos[:, :half], cos[:, half:]):
        return "halves", width
    if width % 2 == 0 and np.array_equal(cos[:, 0::2], cos[:, 1::2]):
        return "pairs", width
    return "per-pair", 2 * width


def run(module: torch.nn.Module) -> list[dict[str, Any]]:
    """One record per rotary label of a module.

    ``inv_freq``, ``attention_scaling``, ``rope_type`` and, for sequence modules,
    ``cos``/``sin`` at :data:`POSITIONS` and the rotated width.
    """
    kind = forward_kind(module)
    records = []
    found = labels(module)
    if not found and kind == "sequence":
        found = [None]  # a module that keeps a table, not inv_freq (GPT-J, CodeGen)
    for label in found:
        inv_freq = _buffer(module, label, "inv_freq")
        scaling = _buffer(module, label, "attention_scaling")
        rope_type = getattr(module, "rope_type", None)
        if isinstance(rope_type, dict):
            rope_type = rope_type.get(label)
        record: dict[str, Any] = {
            "label": label,
            "rope_type": rope_type,
            "attention_scaling": None if scaling is None else float(scaling),
        }
        if inv_freq is not None:
            record["inv_freq"] = inv_freq.detach().float().numpy().copy()
        if kind in ("sequence", "layer_type"):
            positions = list(POSITIONS)
            table = getattr(module, "embed_positions", None)
            if isinstance(table, torch.Tensor):  # a precomputed table (GPT-J): its rows only
                positions = [p for p in positions if p < table.shape[0]]
            record["positions"] = positions
            x = torch.zeros((1, len(positions), 8), dtype=torch.float32)
            position_ids = torch.tensor([positions], dtype=torch.int64)
            with torch.no_grad():
                if kind == "layer_type":
                    out = module(x, position_ids, layer_type=label)
                else:
                    out = module(x, position_ids)
            tables, form = _as_tables(out)
            record |= tables
            record["output"] = form
            frequencies = None if inv_freq is None else int(inv_freq.numel())
            record["table_width"] = int(tables["cos"].shape[-1])
            record["table_layout"], record["rotated_width"] = layout(tables["cos"], frequencies)
            if inv_freq is not None and not inv_freq.all():
                record["zero_frequencies"] = int((inv_freq == 0).sum())
            if positions and positions[0] == 0:
                record["scale_at_position_0"] = float(tables["cos"][0].max())
            after = _buffer(module, label, "inv_freq")
            if after is not None and not np.array_equal(after.numpy(), record["inv_freq"]):
                record["inv_freq_after_forward"] = after.detach().float().numpy().copy()
            scaling_after = _buffer(module, label, "attention_scaling")
            if scaling_after is not None and float(scaling_after) != record["attention_scaling"]:
                record["attention_scaling_after_forward"] = float(scaling_after)
        records.append(record)
    return records
