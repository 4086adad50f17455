"""A GGUF's rotary metadata and frequency tensors, shown and checked against a ``config.json``.

What llama.cpp's converter (``convert_hf_to_gguf.py``: ``TextModel.set_gguf_parameters``,
``LlamaModel.generate_extra_tensors``, ``Phi3MiniModel``, ``DeepseekV2Model``) writes for a
config, compared key by key and element by element with what the file holds; where a key is
absent, llama.cpp's default is compared (``freq_base`` 10000, ``yarn_beta_fast`` 32, …). The
expected values come from transformers' reading of the config (:mod:`pecli.core.rope`), so a
file that agrees rotates as transformers does. Pure NumPy; no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...core.dtypes import ulps32
from ...core.errors import ParameterError
from ...core.ports.ggml import frequency_factors
from ...core.ports.gguf_format import (
    FREQUENCY_TENSORS,
    ROPE_KEY_TYPES,
    text_config,
)
from ...core.rope import RopeSpec, rope_frequencies
from ...core.rope.config import spec_from_config
from ...core.rope.registry import record
from .gguf_notes import Finding, notes_for
from .gguf_plan import plan_findings

__all__ = [
    "Finding",
    "check_gguf",
    "expected_keys",
    "expected_tensors",
    "identify_freqs",
    "summary",
]

#: llama.cpp's values for absent keys (``llama_model::load_hparams``).
_DEFAULTS = {
    "rope.freq_base": 10000.0,
    "rope.scaling.factor": 1.0,
    "rope.scaling.type": "none",
    "rope.scaling.yarn_beta_fast": 32.0,
    "rope.scaling.yarn_beta_slow": 1.0,
}


def expected_keys(spec: RopeSpec, config: Mapping[str, Any], swa: float | None) -> dict[str, Any]:
    """The rope keys (without the ``{arch}.`` prefix) a faithful converter writes."""
    keys: dict[str, Any] = {"rope.freq_base": spec.theta, "rope.dimension_count": spec.rotary_dim}
    kind = record(spec.rope_type)
    keys["rope.scaling.type"] = kind.gguf_scaling
    if kind.interpolates:
        keys["rope.scaling.factor"] = rope_frequencies(spec).notes.get("factor", spec.factor)
    if kind.ramp or kind.factor_lists:
        keys["rope.scaling.original_context_length"] = spec.original_max_position_embeddings
    if kind.ramp:
        keys["rope.scaling.yarn_beta_fast"] = spec.beta_fast or 32.0
        keys["rope.scaling.yarn_beta_slow"] = spec.beta_slow or 1.0
    if kind.factor_lists:
        keys["rope.scaling.attn_factor"] = rope_frequencies(spec).attention_factor
    if kind.ramp and spec.attention_factor is not None:
        keys["rope.scaling.yarn_attn_factor"] = spec.attention_factor
    if kind.ramp and spec.mscale_all_dim is not None:
        keys["rope.scaling.yarn_log_multiplier"] = 0.1 * spec.mscale_all_dim
    sections = (config.get("rope_parameters") or config.get("rope_scaling") or {}).get(
        "mrope_section"
    )
    if sections:
        keys["rope.dimension_sections"] = [*sections, 0, 0, 0, 0][:4]
    if swa is not None:
        keys["rope.freq_base_swa"] = swa
    return keys


def expected_tensors(spec: RopeSpec) -> dict[str, np.ndarray]:
    """The frequency tensors (float64) a faithful converter writes for ``spec``."""
    kind = record(spec.rope_type)
    if kind.bands:  # llama.cpp carries the wavelength bands as divisors of θ
        return {"rope_freqs.weight": frequency_factors(rope_frequencies(spec))}
    if kind.factor_lists:
        return {
            "rope_factors_long.weight": np.array(spec.long_factor, dtype=np.float64),
            "rope_factors_short.weight": np.array(spec.short_factor, dtype=np.float64),
        }
    return {}


def check_gguf(
    config: Mapping[str, Any],
    arch: str | None,
    metadata: Mapping[str, Any],
    tensors: Mapping[str, np.ndarray],
    *,
    ulps: int = 16,
    types: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Compare a GGUF's rope keys and frequency tensors with a config, item by item.

    Parameters
    ----------
    config : mapping
        The parsed ``config.json`` (transformers 4 or 5; ``text_config`` is read).
    arch : str or None
        ``general.architecture`` of the file (the prefix of its keys).
    metadata : mapping
        The file's key/value table.
    tensors : mapping
        Those of :data:`FREQUENCY_TENSORS` the file holds, float32.
    ulps : int, keyword-only
        Largest element difference, in float32 ulps, that still agrees (the converter
        computes ``rope_freqs`` in float32: up to 4 ulps from the exact value).
    types : mapping, optional, keyword-only
        Each key's GGUF value type (``FLOAT32``, ``ARRAY[INT32]`` …): a rope key of another type
        than llama.cpp's loader requires (:data:`~pecli.core.ports.gguf_format.ROPE_KEY_TYPES`)
        differs, whatever its value.

    Returns
    -------
    list of Finding
        Keys first, then tensors, then notes (rope mode, what ggml cannot express).

    Raises
    ------
    ParameterError
        ``config`` if its rope fields are invalid.

    """
    merged, swa = text_config(config)
    spec, _ = spec_from_config(merged)
    prefix = f"{arch}." if arch else ""
    found = {k[len(prefix) :]: v for k, v in metadata.items() if k.startswith(prefix + "rope.")}
    keys = expected_keys(spec, merged, swa)
    findings = [_key(k, v, found, metadata, prefix) for k, v in keys.items()]
    if "rope.scaling.factor" in found and "rope.scaling.factor" not in keys:
        findings.append(_key("rope.scaling.factor", 1.0, found, metadata, prefix))
    findings += _wrong_types(found, types or {}, prefix) + _stray(found, keys, prefix)
    wanted = expected_tensors(spec)
    findings += _swapped(tensors, wanted, ulps) or [
        _tensor(name, tensors.get(name), want, ulps) for name, want in wanted.items()
    ]
    findings = [_explained(f, spec, found, metadata, prefix, tensors) for f in findings]
    findings += [
        _unexpected(name, tensors[name])
        for name in FREQUENCY_TENSORS
        if name in tensors and name not in wanted
    ]
    notes = notes_for(spec, merged, arch, found) + _unexpected_keys(found, keys, prefix)
    return findings + notes + plan_findings(config, arch, metadata)


def _key(
    key: str, want: Any, found: Mapping[str, Any], meta: Mapping[str, Any], prefix: str
) -> Finding:
    if key in found:
        have, how = found[key], ""
    elif key == "rope.dimension_count":
        have, how = _head_dim(meta, prefix), "absent: llama.cpp takes the head width"
    elif key in _DEFAULTS:
        have, how = _DEFAULTS[key], "absent: llama.cpp's default"
    else:
        return Finding(prefix + key, "missing", want, None, "the converter writes this key")
    same = _same(want, have)
    if key == "rope.scaling.type" and not same and want == "longrope" and have == "none":
        same, how = True, "absent: llama.cpp uses the rope_factors tensors (Phi-3's converter)"
        want = "longrope or none"  # not "expected longrope, found none, agree"
    return Finding(prefix + key, "agree" if same else "differ", want, have, how)


def _wrong_types(found: Mapping[str, Any], types: Mapping[str, str], prefix: str) -> list[Finding]:
    """Rope keys whose GGUF type llama.cpp's loader refuses ("key … has wrong type")."""
    return [
        Finding(f"{prefix}{key} (type)", "differ", want, types[prefix + key], _REFUSED)
        for key, want in ROPE_KEY_TYPES.items()
        if key in found and prefix + key in types and types[prefix + key] != want
    ]


_REFUSED = "llama.cpp's loader refuses the file: the key has the wrong type"


def _stray(found: Mapping[str, Any], keys: Mapping[str, Any], prefix: str) -> list[Finding]:
    """Rope keys the config implies none of that hold a NaN or an infinity llama.cpp reads."""
    return [
        Finding(prefix + key, "differ", "absent", value, "the config implies no such key")
        for key, value in found.items()
        if key not in keys and isinstance(value, float) and not math.isfinite(value)
    ]


def _unexpected_keys(
    found: Mapping[str, Any], keys: Mapping[str, Any], prefix: str
) -> list[Finding]:
    """Finite rope numbers the config implies none of: a note each (a NaN is a :func:`_stray`).

    ``freq_base_swa`` acts only on the layers llama.cpp's sliding-window pattern marks
    (``get_rope_freq_base``); any other such key is read as written.
    """
    notes = []
    for key, value in found.items():
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if key in keys or not number or not math.isfinite(value) or key == "rope.scaling.factor":
            continue
        why = (
            "llama.cpp uses it, in place of freq_base, on the layers its sliding-window pattern "
            "marks; the converter writes it only for sliding layers with their own θ"
            if key == "rope.freq_base_swa"
            else "llama.cpp reads it as written"
        )
        text = f"{prefix}{key} = {value:g} is in the file; the config implies no such key"
        notes.append(Finding("note", "note", None, None, f"{text}: {why}"))
    return notes


def _head_dim(meta: Mapping[str, Any], prefix: str) -> Any:
    if prefix + "attention.key_length" in meta:
        return meta[prefix + "attention.key_length"]
    width, heads = meta.get(prefix + "embedding_length"), meta.get(prefix + "attention.head_count")
    return width // heads if isinstance(width, int) and isinstance(heads, int) and heads else None


def _same(want: Any, have: Any) -> bool:
    """Equal as the file stores it: a float as float32, within 2 of its steps; a list by element.

    >>> _same(1.0, 1.0000001), _same(1.0, 1.001), _same(-2.5, -2.5000002)  # 1 step, 8389, 1
    (True, False, True)
    """
    if isinstance(want, list) or isinstance(have, list):
        return isinstance(want, list) and isinstance(have, list) and list(want) == list(have)
    if isinstance(want, str) or isinstance(have, str):
        return bool(want == have)
    if isinstance(want, float) or isinstance(have, float):
        a, b = np.float32(want), np.float32(have)
        return bool(a == b or abs(float(a) - float(b)) <= 2 * float(np.spacing(abs(a))))
    return bool(want == have)


def _tensor(name: str, have: np.ndarray | None, want: np.ndarray, ulps: int) -> Finding:
    if have is None:
        return Finding(name, "missing", f"{want.size} values", None, "the converter writes it")
    if have.shape != want.shape:
        return Finding(name, "differ", f"shape {want.shape}", f"shape {have.shape}")
    distance = ulps32(want, have)
    bad = np.flatnonzero(distance > ulps)
    if bad.size == 0:
        detail = f"{want.size} values within {int(distance.max(initial=0))} ulps"
        return Finding(name, "agree", None, None, detail)
    worst = int(np.argmax(distance))
    detail = (
        f"{bad.size} of {want.size} values differ by more than {ulps} float32 ulps; "
        f"first at [{bad[0]}], largest at [{worst}]: {int(distance[worst])} ulps"
    )
    return Finding(f"{name}[{bad[0]}]", "differ", float(want[bad[0]]), float(have[bad[0]]), detail)


def _unexpected(name: str, have: np.ndarray) -> Finding:
    if name == "rope_freqs.weight" and have.size and bool(np.all(have == 1)):
        return Finding(name, "agree", None, None, "all 1: no effect")
    rule = "the config implies no such tensor; ggml divides θ by it"
    return Finding(name, "differ", "absent", f"{have.size} values", rule)


def summary(findings: list[Finding]) -> tuple[int, int]:
    """``(agreeing, disagreeing)`` counts (``differ`` and ``missing`` disagree)."""
    bad = sum(f.status in ("differ", "missing") for f in findings)
    return sum(f.status == "agree" for f in findings), bad


def identify_freqs(factors: Any, keys: dict[str, Any], prefix: str) -> dict[str, Any] | None:
    """The identify reading of ``θ-schedule / rope_freqs`` (transformers' inv_freq), or None."""
    from ..rope.inv_freq import identify_inv_freq

    base, dims = (
        keys.get(prefix + "rope.freq_base", 10000.0),
        keys.get(prefix + "rope.dimension_count"),
    )
    if factors is None or not isinstance(dims, int) or 2 * len(factors) != dims:
        return None
    if not isinstance(base, int | float) or not 1.0 < base < math.inf:
        return None
    with np.errstate(all="ignore"):
        inv = 1.0 / float(base) ** (np.arange(0, dims, 2) / dims) / np.asarray(factors, float)
    try:
        guess = identify_inv_freq(inv)
    except ParameterError:  # zero, negative or non-finite factors: no reading, still shown
        return None
    theta = None if guess.theta != guess.theta else guess.theta  # NaN: not determined
    return {"rope_type": guess.rope_type, "theta": theta, **guess.parameters}


def _swapped(
    tensors: Mapping[str, np.ndarray], wanted: dict[str, np.ndarray], ulps: int
) -> list[Finding]:
    """One finding when the file's long and short factors are the config's the other way round."""
    names = ("rope_factors_long.weight", "rope_factors_short.weight")
    if not all(n in wanted and n in tensors for n in names):
        return []
    long, short = (tensors[n] for n in names)
    want_long, want_short = (wanted[n] for n in names)
    if long.shape != want_short.shape or short.shape != want_long.shape:
        return []
    if np.array_equal(long, short) or ulps32(want_long, long).max(initial=0) <= ulps:
        return []
    if max(ulps32(want_short, long).max(), ulps32(want_long, short).max()) > ulps:
        return []
    detail = (
        "long and short factors swapped: the file's rope_factors_long is the config's "
        "short_factor and its rope_factors_short the long_factor"
    )
    return [Finding("/".join(names), "differ", "long, short", "short, long", detail)]


def _explained(
    finding: Finding,
    spec: RopeSpec,
    found: Mapping[str, Any],
    metadata: Mapping[str, Any],
    prefix: str,
    tensors: Mapping[str, np.ndarray],
) -> Finding:
    """A differing ``rope_freqs`` with the file's reading beside the config's (llama3 factor)."""
    if finding.status != "differ" or not finding.item.startswith("rope_freqs.weight["):
        return finding
    keys = {prefix + k: v for k, v in found.items()}
    keys.setdefault(prefix + "rope.dimension_count", _head_dim(metadata, prefix))
    reading = identify_freqs(tensors["rope_freqs.weight"].tolist(), keys, prefix)
    if not reading or reading.get("rope_type") != spec.rope_type:
        return finding
    fields = (
        ("factor", "factor"),
        ("original_max_position_embeddings", "L ="),
        ("high_freq_factor", "high_freq_factor"),
    )
    differ = [
        (label, reading[k], getattr(spec, k))
        for k, label in fields
        if k in reading and getattr(spec, k, None) is not None and reading[k] != getattr(spec, k)
    ]
    if not differ:
        return finding
    said = ", ".join(f"{label} {have:g}" for label, have, _ in differ)
    config = ", ".join(f"{label} {want:g}" for label, _, want in differ)
    why = f"the file's rope_freqs read as {spec.rope_type} {said}; the config says {config}"
    return Finding(
        finding.item, finding.status, finding.expected, finding.found, f"{why}. {finding.detail}"
    )
