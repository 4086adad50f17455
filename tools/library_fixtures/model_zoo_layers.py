"""Per-layer RoPE plans, observed by running the model's own decoder stack.

Used by ``generate_model_zoo.py``. From the model built on the meta device: the decoder stack
(the ``ModuleList`` beside or around the rotary module) and, per layer, its class, its
attention module's class and the attributes that steer RoPE (``sliding_window``,
``attention_type``, ``use_rope``, ...). Then the probe: the stack's owner is rebuilt on the CPU
from a *small* copy of its config (:func:`shrink`: fewer heads, a smaller hidden size and
vocabulary, fewer experts, every layer kept; ``head_dim``, the rotary keys and the layer
pattern untouched) and run on six tokens, with every module-level function whose name says
rotary / rope in the layers' modeling modules wrapped. A layer applies RoPE when such a
function is called while that layer runs; the cos it is given is matched to the rotary
module's output for each label, which says which rotary parameters the layer uses.
"""

from __future__ import annotations

import inspect
import re
import sys
from typing import Any

import model_zoo_build as build
import torch
from transformers import PreTrainedConfig

ATTRIBUTES = (
    "attention_type",
    "layer_type",
    "sliding_window",
    "is_sliding",
    "use_rope",
    "use_sliding_window",
    "rope_type",
    "is_attention_layer",
)
ROPE_FUNCTION = re.compile(r"rotary|rope", re.IGNORECASE)
#: The largest small copy the probe builds (float32: 4 bytes each).
MAX_PARAMETERS = 300_000_000


def _scalar(value: Any) -> Any:
    return value if isinstance(value, (bool, int, float, str, type(None))) else repr(value)


def _attrs(module: torch.nn.Module) -> dict[str, Any]:
    return {a: _scalar(getattr(module, a)) for a in ATTRIBUTES if hasattr(module, a)}


def decoder_stack(
    model: torch.nn.Module, constructions: list[build.Construction]
) -> tuple[str, torch.nn.ModuleList] | None:
    """The layer list the first rotary module serves.

    A ``ModuleList`` beside it (``model.layers`` next to ``model.rotary_emb``) or holding it (a
    rotary module per layer).
    """
    lists = [
        (n, m) for n, m in model.named_modules() if isinstance(m, torch.nn.ModuleList) and len(m)
    ]
    for construction in constructions:
        for path in construction.paths:
            parent = path.rpartition(".")[0]
            inside = [(n, m) for n, m in lists if path.startswith(n + ".")]
            beside = [(n, m) for n, m in lists if n.rpartition(".")[0] == parent]
            found = inside or sorted(beside, key=lambda nm: -len(nm[1]))
            if found:
                return found[0]
    return None


def _attention(layer: torch.nn.Module) -> torch.nn.Module | None:
    for name in ("self_attn", "attention", "attn", "self_attention", "mixer", "linear_attn"):
        child = getattr(layer, name, None)
        if isinstance(child, torch.nn.Module):
            return child
    for child in layer.children():
        if "Attention" in type(child).__name__:
            return child
    return None


def static_layers(stack: torch.nn.ModuleList) -> list[dict[str, Any]]:
    """Per layer: the layer's and its attention module's classes and RoPE attributes."""
    rows = []
    for layer in stack:
        attention = _attention(layer)
        row: dict[str, Any] = {"class": type(layer).__name__, **_attrs(layer)}
        if attention is not None:
            row["attention"] = type(attention).__name__
            row["attention_attributes"] = _attrs(attention)
        rows.append(row)
    return rows


def runs(rows: list[Any]) -> list[dict[str, Any]]:
    """Consecutive equal rows merged: ``{"layers": [first, last], **row}``."""
    merged: list[dict[str, Any]] = []
    for i, row in enumerate(rows):
        if merged and merged[-1]["row"] == row:
            merged[-1]["layers"][1] = i
        else:
            merged.append({"layers": [i, i], "row": row})
    return [
        {"layers": m["layers"], **m["row"]}
        if isinstance(m["row"], dict)
        else {"layers": m["layers"], "value": m["row"]}
        for m in merged
    ]


# -- the small copy of a config ------------------------------------------------------------

_SMALL = {
    "vocab_size": 512,
    "vocab_size_per_layer_input": 512,
    "o_lora_rank": 32,
    "kv_n_heads": 2,
    "kv_lora_rank": 32,
    "q_lora_rank": 32,
    "index_n_heads": 2,
    "linear_num_key_heads": 2,
    "linear_num_value_heads": 2,
    "linear_key_head_dim": 16,
    "linear_value_head_dim": 16,
    "mamba_n_heads": 4,
    "mamba_d_head": 16,
    "mamba_d_state": 16,
    "ssm_state_size": 16,
    "n_group": 1,
    "topk_group": 1,
    "num_nextn_predict_layers": 0,
}
_EXPERTS = re.compile(
    r"^(num_experts|n_routed_experts|num_local_experts|moe_num_experts|n_experts)$"
)
_TOPK = re.compile(
    r"^(num_experts_per_tok|num_experts_per_token|moe_topk|moe_top_k|top_k|n_activated_experts)$"
)
_WIDTH = re.compile(
    r"(intermediate_size|ffn_hidden_size|ffn_dim|mlp_dim|expert_hidden_size|^n_inner)$"
)


def shrink(values: dict[str, Any], aliases: dict[str, str] | None = None) -> dict[str, Any]:
    """A small copy of a config dict: what sets the RoPE tables and the layer pattern is kept.

    ``aliases`` is the config class's ``attribute_map`` (GPT-J's ``n_embd`` for ``hidden_size``).
    """
    small = dict(values)
    name = {
        k: (aliases or {}).get(k, k)
        for k in ("num_attention_heads", "num_key_value_heads", "hidden_size")
    }
    heads = small.get(name["num_attention_heads"])
    if isinstance(heads, int) and heads > 4:
        kv = small.get(name["num_key_value_heads"])
        small[name["num_attention_heads"]] = 4
        if isinstance(kv, int):
            small[name["num_key_value_heads"]] = 4 if kv >= heads else 2
        hidden = small.get(name["hidden_size"])
        if (
            isinstance(hidden, int)
            and not small.get("head_dim")
            and not small.get("qk_rope_head_dim")
        ):
            small[name["hidden_size"]] = 4 * (hidden // heads)  # keeps the derived head width
        elif isinstance(hidden, int):
            small[name["hidden_size"]] = 256
    for key, value in values.items():
        if key in _SMALL and isinstance(value, int) and value > _SMALL[key]:
            small[key] = _SMALL[key]
        elif _EXPERTS.match(key) and isinstance(value, int) and value > 4:
            small[key] = 4
        elif _TOPK.match(key) and isinstance(value, int) and value > 2:
            small[key] = 2
        elif _WIDTH.search(key) and (
            (value is None and key == "n_inner") or (isinstance(value, int) and value > 64)
        ):
            small[key] = 64
        elif _WIDTH.search(key) and isinstance(value, list):
            small[key] = [64 if isinstance(v, int) and v > 64 else v for v in value]
        elif isinstance(value, dict) and "model_type" in value:
            small[key] = shrink(value, aliases)
    pad = small.get("pad_token_id")
    if isinstance(pad, int) and pad >= small.get("vocab_size", 1 << 30):
        small["pad_token_id"] = 0
    return small


# -- the probe ------------------------------------------------------------------------------


class _Calls:
    """What the wrapped rope functions and rotary modules saw."""

    def __init__(self) -> None:
        self.layer: int | None = None
        self.calls: list[tuple[int | None, str, list[torch.Tensor]]] = []
        self.outputs: list[tuple[Any, torch.Tensor]] = []


def _wrap_functions(modules: set[Any], calls: _Calls) -> list[tuple[Any, str, Any]]:
    undo = []
    for module in modules:
        for name, fn in list(vars(module).items()):
            # a plain function, or one that kernels' use_kernel_forward_from_hub made a layer
            kernel = hasattr(fn, "kernel_layer_name") and not inspect.isclass(fn)
            if (inspect.isfunction(fn) or kernel) and ROPE_FUNCTION.search(name):

                def wrapper(*args: Any, __fn: Any = fn, __name: str = name, **kwargs: Any) -> Any:
                    tensors = [a for a in [*args, *kwargs.values()] if isinstance(a, torch.Tensor)]
                    calls.calls.append((calls.layer, __name, tensors))
                    return __fn(*args, **kwargs)

                undo.append((module, name, fn))
                setattr(module, name, wrapper)
    return undo


def _label_of(tensor: torch.Tensor, calls: _Calls) -> Any:
    """The rotary label whose output ``tensor`` is.

    The same tensor, or the same values up to added unit axes, or a leading slice of them;
    ``"unmatched"`` otherwise.
    """
    for label, out in calls.outputs:
        if tensor is out:
            return label
    for label, out in calls.outputs:
        a, b = tensor.squeeze(), out.squeeze()
        if a.shape == b.shape and torch.equal(a, b):
            return label
        width = a.shape[-1] if a.dim() else 0
        same_rows = a.dim() == b.dim() and a.shape[:-1] == b.shape[:-1]
        if same_rows and 0 < width < b.shape[-1] and torch.equal(a, b[..., :width]):
            return f"{label} (first {width} of {b.shape[-1]})"
    return "unmatched"


def _call_labels(tensors: list[torch.Tensor], calls: _Calls) -> Any:
    """The label of the first tensor argument that came from a rotary module (cos or freqs)."""
    found = [_label_of(t, calls) for t in tensors if t.dtype.is_floating_point or t.is_complex()]
    known = [f for f in found if f != "unmatched"]
    return known[0] if known else "unmatched"


#: Positions at which the query temperature is observed.
TEMPERATURE_POSITIONS = (0, 1, 8191, 8192, 16383, 16384, 65535, 131071, 262143)


class _PastTokens:
    """A stand-in cache holding ``past`` tokens.

    Attention that derives positions from the cache length (Llama 4's temperature) sees the
    token at position ``past``.
    """

    def __init__(self, past: int) -> None:
        self.past = past

    def get_seq_length(self, *_: Any, **__: Any) -> int:
        return self.past

    def update(self, key: Any, value: Any, *_: Any, **__: Any) -> tuple[Any, Any]:
        return key, value


def _query_norm(
    attention: torch.nn.Module, rotary: torch.nn.Module, label: Any, hidden: torch.Tensor, p: int
) -> float | None:
    """The norm of the query the attention hands to its attention function.

    For one token at position ``p`` (``None`` when the call cannot be made or observed).
    """
    module = sys.modules[type(attention).__module__]
    seen: list[torch.Tensor] = []
    original = getattr(module, "eager_attention_forward", None)
    if original is None:
        return None

    def capture(mod: Any, query: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        seen.append(query.detach().clone())
        return original(mod, query, *args, **kwargs)

    position_ids = torch.tensor([[p]], dtype=torch.int64)
    kwargs = (
        {"layer_type": label} if label is not None and forward_takes(rotary, "layer_type") else {}
    )
    with torch.no_grad():
        try:
            embeddings = rotary(hidden, position_ids, **kwargs)
        except Exception:  # a position past a precomputed table (GPT-J's 2048 rows)
            return None
        params = inspect.signature(attention.forward).parameters
        call: dict[str, Any] = {
            "hidden_states": hidden,
            "position_embeddings": embeddings,
            "attention_mask": None,
        }
        for name in ("cache", "past_key_values", "past_key_value"):
            if name in params:
                call[name] = _PastTokens(p)
        if "position_ids" in params:
            call["position_ids"] = position_ids
        if "cache_position" in params:
            call["cache_position"] = torch.tensor([p])
        module.eager_attention_forward = capture
        try:
            attention(**call)
        except Exception:
            return None
        finally:
            module.eager_attention_forward = original
    return float(seen[0].double().norm()) if seen else None


def forward_takes(module: torch.nn.Module, name: str) -> bool:
    """Whether ``module.forward`` has a parameter ``name``."""
    return name in inspect.signature(type(module).forward).parameters


def temperatures(
    owner: torch.nn.Module, stack: torch.nn.ModuleList, labels: list[Any], kinds: list[Any]
) -> list[Any]:
    """Per layer, the query temperature at :data:`TEMPERATURE_POSITIONS`.

    The query's norm at each position over its norm at position 0 (RoPE rotates, so only a scale
    of the query changes it), or ``None``. Layers of
    one kind (same attention class, RoPE calls and attributes) are observed once.
    """
    rotaries = [
        m
        for m in owner.modules()
        if build.ROTARY_NAME.search(type(m).__name__) and forward_takes(m, "position_ids")
    ]
    if not rotaries:
        return [None] * len(stack)
    torch.manual_seed(1)
    hidden = torch.randn(1, 1, owner.config.hidden_size)
    fallback = next((lab for lab in labels if lab is not None), None)
    rows: list[Any] = []
    seen: dict[str, Any] = {}
    for layer, label, kind in zip(stack, labels, kinds, strict=True):
        attention = _attention(layer)
        key = repr(
            (type(attention).__name__, label, kind, _attrs(attention) if attention else None)
        )
        if key in seen:
            rows.append(seen[key])
            continue
        norms = [
            _query_norm(attention, rotaries[0], label if label is not None else fallback, hidden, p)
            if attention is not None
            else None
            for p in TEMPERATURE_POSITIONS
        ]
        if any(n is None for n in norms) or not norms[0]:
            seen[key] = None
        else:
            seen[key] = [round(n / norms[0], 6) for n in norms]
        rows.append(seen[key])
    return rows


def probe(owner_cls: type, owner_config: PreTrainedConfig, list_name: str) -> dict[str, Any]:
    """Run a small copy of the stack's owner: per layer, whether RoPE runs, with which label."""
    small = shrink(owner_config.to_dict(), getattr(type(owner_config), "attribute_map", None))
    config = type(owner_config).from_dict(small)
    config._attn_implementation = "eager"
    with torch.device("meta"):
        size = sum(p.numel() for p in owner_cls(config).parameters())
    if size > MAX_PARAMETERS:
        raise MemoryError(
            f"the small copy still has {size:,} parameters (the shrink misses its size keys)"
        )
    torch.manual_seed(0)
    with torch.device("cpu"):
        owner = owner_cls(config)
    owner.eval()
    with torch.no_grad():  # fresh values: memory left uninitialised can hold slow denormals
        for parameter in owner.parameters():
            parameter.normal_(0.0, 0.02)
    stack = owner.get_submodule(list_name)
    calls = _Calls()
    hooks = []
    for i, layer in enumerate(stack):
        hooks.append(layer.register_forward_pre_hook(lambda *_, i=i: setattr(calls, "layer", i)))
        hooks.append(layer.register_forward_hook(lambda *_: setattr(calls, "layer", None)))
    for module in owner.modules():
        if build.ROTARY_NAME.search(type(module).__name__):

            def keep(mod: Any, args: Any, kwargs: Any, out: Any) -> None:
                label = kwargs.get("layer_type", args[2] if len(args) > 2 else None)
                for t in out if isinstance(out, (tuple, list)) else [out]:
                    calls.outputs.append((label, t))

            hooks.append(module.register_forward_hook(keep, with_kwargs=True))
    modules = {sys.modules[type(m).__module__] for m in stack.modules()}
    undo = _wrap_functions(modules, calls)
    try:
        vocab = getattr(config, "vocab_size", None) or 512
        ids = (torch.arange(6, dtype=torch.int64) * 7 + 3)[None] % min(vocab, 512)
        params = inspect.signature(owner.forward).parameters
        with torch.no_grad():
            if "input_ids" in params:
                owner(input_ids=ids, use_cache=False)
            else:  # an encoder fed embeddings (hidden_size wide)
                owner(inputs_embeds=torch.randn(1, 6, config.hidden_size))
    finally:
        for module, name, fn in undo:
            setattr(module, name, fn)
        for h in hooks:
            h.remove()
    per_layer = []
    for i in range(len(stack)):
        mine = [c for c in calls.calls if c[0] == i]
        labelled = sorted({(c[1], str(_call_labels(c[2], calls))) for c in mine})
        per_layer.append(
            {
                "rope": bool(mine),
                "calls": [f"{fn}: {label}" for fn, label in labelled],
            }
        )
    labels = []
    for row in per_layer:
        found = [c.rsplit(": ", 1)[1] for c in row["calls"]]
        known = [f for f in found if f not in ("None", "unmatched")]
        labels.append(known[0].split(" (")[0] if known else None)
    kinds = [row["calls"] for row in per_layer]
    for row, temps in zip(per_layer, temperatures(owner, stack, labels, kinds), strict=True):
        row["query_temperature"] = temps
    return {
        "small_config": {k: v for k, v in small.items() if owner_config.to_dict().get(k) != v},
        "layers": per_layer,
    }


def plan(
    model_type: str, config: PreTrainedConfig, model: Any, constructions: list[build.Construction]
) -> dict[str, Any]:
    """The per-layer record of one config (static, then the probe)."""
    if model is None:
        return {"status": "not built (see build)"}
    found = decoder_stack(model, constructions)
    if found is None:
        return {"status": "no layer list found beside or around a rotary module"}
    name, stack = found
    owner_name = name.rpartition(".")[0]
    owner = model.get_submodule(owner_name) if owner_name else model
    result: dict[str, Any] = {
        "stack": name,
        "owner": type(owner).__name__,
        "owner_config_path": build.config_path(getattr(owner, "config", None), config),
        "num_layers": len(stack),
        "static": runs(static_layers(stack)),
    }
    owner_config = getattr(owner, "config", None)
    if not isinstance(owner_config, PreTrainedConfig):
        result["probe"] = {"status": "the stack's owner has no config"}
        return result
    try:
        observed = probe(type(owner), owner_config, name.removeprefix(owner_name).lstrip("."))
    except Exception as exc:
        result["probe"] = {"status": "failed: " + build.one_line(exc)}
        return result
    layers = observed["layers"]
    if not any(row["rope"] for row in layers):
        status = (
            "inconclusive: no rotary function ran inside the layers (applied inline or "
            "outside them)"
        )
    else:
        status = "ok"
    result["probe"] = {
        "status": status,
        "how": (
            f"{type(owner).__name__} rebuilt on the CPU from the small config (small_config: the "
            "keys changed), run on 6 tokens with every rope/rotary function of the layers' "
            "modeling modules wrapped"
        ),
        "small_config": observed["small_config"],
        "rope_map": "".join("R" if row["rope"] else "N" for row in layers),
        "temperature_positions": list(TEMPERATURE_POSITIONS),
        "temperature_how": (
            "per layer, the attention module of the small model run on one token at each "
            "position (position_ids, cache_position and a cache holding that many past tokens), "
            "the norm of the query it hands to eager_attention_forward over that norm at "
            "position 0; null when the call could not be made"
        ),
        "runs": runs([{k: v for k, v in row.items()} for row in layers]),
    }
    return result
