"""A probe's reading in words and as plain data: the verdict a porting engineer acts on.

:func:`verdict` is one sentence ("half-split over the first 64 of 256 channels, θ 1e+07 (±…),
no scaling; channels 64–255 pass through", "NoPE: the vectors are unchanged");
:func:`report` the whole reading as JSON-ready values (the command prints it as a table or
writes it as JSON). No I/O.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .frequencies import axis_runs
from .reading import UNDETERMINED, ProbeReading
from .temperature import FORMS, Temperature

__all__ = ["explained", "report", "summary", "verdict"]

#: The names of the id axes: Qwen-VL's t, h, w for three, else a0, a1, …
AXIS_NAMES = {1: ["p"], 3: ["t", "h", "w"]}


def explained(reading: ProbeReading) -> bool:
    """Whether the reading explains the change: a rotation (or NoPE) that fits every pair.

    False when no pairing keeps the norms, several do, or a pair's angles fit no ``ω·p``.
    """
    if reading.rope is None:
        return False
    freqs = reading.frequencies
    if freqs is None:
        return True
    return not bool(np.any(~freqs.axes.any(axis=1) & (freqs.readings <= 1)))


def verdict(reading: ProbeReading) -> str:
    """The reading in one sentence.

    >>> from pecli.analysis.rope.probe.reading import ProbeReading
    >>> verdict(ProbeReading(False, "float32", (6, 2, 128), np.zeros((6, 1))))
    'NoPE: this layer applies no RoPE (the vectors are unchanged)'
    """
    if reading.rope is False:
        gain = _temperature_words(reading.temperature)
        return "NoPE: this layer applies no RoPE " + (
            f"(only {gain})" if gain else "(the vectors are unchanged)"
        )
    if reading.findings[:1] == [UNDETERMINED]:  # unchanged where RoPE changes nothing
        return UNDETERMINED
    if reading.rope is None or reading.pairing is None:
        return "not explained by any rotation: " + (reading.findings or ["see the notes"])[0]
    parts = [_slice_words(reading), _theta_words(reading)]
    parts += [w for w in (_sections_words(reading), _factor_words(reading)) if w]
    gain = _temperature_words(reading.temperature)
    parts.append(gain or "no temperature")
    passing = _pass_words(reading)
    return ", ".join(parts) + (f"; {passing}" if passing else "")


def _slice_words(reading: ProbeReading) -> str:
    pairing, dim = reading.pairing, reading.shape[2]
    assert pairing is not None
    layout = {
        "interleaved-in": "interleaved pairs in, half-split out (DeepSeek's "
        "apply_rotary_pos_emb_interleave)"
    }.get(pairing.layout, pairing.layout)
    if pairing.width == dim:
        return f"{layout} over all {dim} channels"
    where = "first" if pairing.start == 0 else "last" if pairing.stop == dim else "middle"
    at_least = "" if reading.width_sure else "at least "
    return f"{layout} over the {where} {at_least}{pairing.width} of {dim} channels"


def _pass_words(reading: ProbeReading) -> str:
    ranges = pass_through(reading)
    if not ranges:
        return ""
    listed = " and ".join(f"{a}–{b - 1}" for a, b in ranges)
    if reading.width_sure:
        return f"channels {listed} pass through"
    return (
        f"channels {listed} unchanged (pass-through, or pairs too slow to turn by these positions)"
    )


def pass_through(reading: ProbeReading) -> list[tuple[int, int]]:
    """The channels outside the rotated slice, as ``[start, stop)`` ranges."""
    if reading.pairing is None:
        return []
    dim, p = reading.shape[2], reading.pairing
    return [r for r in ((0, p.start), (p.stop, dim)) if r[1] > r[0]]


def _theta_words(reading: ProbeReading) -> str:
    freqs = reading.frequencies
    assert freqs is not None
    theta = freqs.theta
    if math.isnan(theta.theta):
        return "θ not determined"
    words = f"θ {_theta(theta.theta)} (fit {theta.fitted:.10g} ± {100 * theta.error:.2g} %)"
    if theta.inv_freq_dtype:
        words += f", the inv_freq buffer cast to {theta.inv_freq_dtype}"
    return f"{words}, {_scaling_words(reading)}"


def _scaling_words(reading: ProbeReading) -> str:
    freqs = reading.frequencies
    assert freqs is not None
    guess = freqs.theta.guess
    if guess is None:
        return "scaling not read"
    params = guess.parameters
    if guess.rope_type == "default":
        return "no scaling"
    if guess.rope_type == "unknown" and params.get("smoothed") == 0 and "factor" in params:
        first = int(params["unchanged"])
        return (
            f"a step: pairs {first}–{freqs.omega.size - 1} divided by {params['factor']:g} "
            "(llama3 with low_freq_factor = high_freq_factor, as Llama 4)"
        )
    listed = ", ".join(f"{k} {v:g}" for k, v in params.items())
    return f"{guess.rope_type} scaling ({listed})" if listed else f"{guess.rope_type} scaling"


def _sections_words(reading: ProbeReading) -> str:
    sections = sections_of(reading)
    if sections is None:
        return ""
    runs = ", ".join(f"{name} {last - first + 1}" for name, first, last in sections["runs"])
    if sections["mrope_section"] is not None:
        return f"M-RoPE sections {sections['mrope_section']} ({runs} pairs)"
    return f"pairs by axis: {runs}"


def sections_of(reading: ProbeReading) -> dict[str, Any] | None:
    """Which id axis turns each run of pairs, and Qwen-VL's ``mrope_section`` when chunked."""
    freqs = reading.frequencies
    if freqs is None or reading.positions.shape[1] < 2:
        return None
    count = reading.positions.shape[1]
    names = AXIS_NAMES.get(count, [f"a{k}" for k in range(count)])
    runs = axis_runs(freqs.axes, names)
    labels = [name for name, _, _ in runs]
    chunked = labels == names[: len(labels)] and len(labels) == count
    sizes = [last - first + 1 for _, first, last in runs] if chunked else None
    return {"axes": names, "runs": runs, "mrope_section": sizes}


def _factor_words(reading: ProbeReading) -> str:
    if reading.factor == 1.0:
        return ""
    return f"an attention factor {reading.factor:.6g} on the rotated channels only"


def _temperature_words(temperature: Temperature) -> str:
    if temperature.kind == "none":
        return ""
    if temperature.kind == "constant":
        return f"a factor {temperature.factor:.7g} at every position (no temperature)"
    if not temperature.forms:
        return "a factor that grows with the position, of no known form (see the gains)"
    name, beta, length = temperature.forms[0]
    return f"a query temperature: {FORMS[name][1]}, β {beta:g}, L {length}"


def report(reading: ProbeReading) -> dict[str, Any]:
    """The reading as plain data (lists, floats, None for NaN): the JSON ``rope probe`` writes."""
    rows, heads, dim = reading.shape
    freqs, pairing = reading.frequencies, reading.pairing
    data: dict[str, Any] = {
        "verdict": verdict(reading),
        "explained": explained(reading),
        "rope": reading.rope,
        "rows": rows,
        "heads": heads,
        "head_dim": dim,
        "storage": reading.storage,
        "pairing": pairing.layout if pairing else None,
        "rotated_channels": [pairing.start, pairing.stop] if pairing else None,
        "rotated_width_sure": reading.width_sure,
        "pass_through_channels": [list(r) for r in pass_through(reading)],
    }
    data |= _theta_report(reading)
    data["sections"] = sections_of(reading)
    data["attention_factor"] = reading.factor
    data["temperature"] = _temperature_report(reading.temperature)
    data["gain_per_head"] = reading.gain_per_head
    data["gains"] = [
        {"row": i, "position": reading.positions[i].tolist(), "gain": float(g)}
        for i, g in enumerate(reading.gain)
    ]
    data["pairs"] = _pairs_report(reading) if freqs is not None else []
    data["tried"] = [{"pairing": w, "score": s} for w, s in reading.tried[:8]]
    data["findings"] = reading.findings + (freqs.findings if freqs else [])
    return data


def _theta_report(reading: ProbeReading) -> dict[str, Any]:
    freqs = reading.frequencies
    if freqs is None:
        return {"theta": None, "rope_type": None, "scaling": None}
    theta = freqs.theta
    guess = theta.guess
    return {
        "theta": _number(theta.theta),
        "theta_fit": _number(theta.fitted),
        "theta_error": _number(theta.error),
        "theta_pairs": theta.run,
        "inv_freq_dtype": theta.inv_freq_dtype,
        "rope_type": guess.rope_type if guess else None,
        "scaling": dict(guess.parameters) if guess else None,
        "identify_findings": list(guess.findings) if guess else [],
    }


def _temperature_report(temperature: Temperature) -> dict[str, Any]:
    return {
        "kind": temperature.kind,
        "factor": temperature.factor,
        "forms": [
            {"form": name, "beta": beta, "L": length, "formula": FORMS[name][1]}
            for name, beta, length in temperature.forms
        ],
    }


def _pairs_report(reading: ProbeReading) -> list[dict[str, Any]]:
    freqs, pairing = reading.frequencies, reading.pairing
    assert freqs is not None and pairing is not None
    count = reading.positions.shape[1]
    names = AXIS_NAMES.get(count, [f"a{k}" for k in range(count)])
    return [
        {
            "pair": j,
            "channels_pre": pairing.pre[:, j].tolist(),
            "channels_post": pairing.post[:, j].tolist(),
            "omega": _number(float(freqs.omega[j])),
            "omega_error": _number(float(freqs.error[j])),
            "axes": [n for n, ok in zip(names, freqs.axes[j], strict=True) if ok],
            "readings": int(freqs.readings[j]),
        }
        for j in range(freqs.omega.size)
    ]


def summary(data: dict[str, Any]) -> list[str]:
    """The key: value lines under the verdict, from :func:`report`'s ``data``."""
    lines = [
        f"vectors: {data['rows']} rows × {data['heads']} heads × {data['head_dim']} channels, "
        f"{data['storage']}",
        "rope: " + {True: "yes", False: "no (NoPE)", None: "not explained"}[data["rope"]],
    ]
    if data["verdict"] == UNDETERMINED:  # unchanged where RoPE changes nothing
        lines[1] = "rope: not determined"
    if data["pairing"]:
        start, stop = data["rotated_channels"]
        lines.append(f"pairing: {data['pairing']}")
        lines.append(f"rotated channels: {start}–{stop - 1} ({stop - start} of {data['head_dim']})")
        passing = ", ".join(f"{a}–{b - 1}" for a, b in data["pass_through_channels"]) or "none"
        lines.append(f"pass-through channels: {passing}")
        lines += _theta_lines(data)
    if data["sections"] is not None:
        runs = ", ".join(f"{n} {a}–{b}" for n, a, b in data["sections"]["runs"])
        lines.append(f"axis of each pair: {runs}")
        lines.append(f"mrope_section: {data['sections']['mrope_section']}")
    lines.append(f"attention factor: {data['attention_factor']:.7g}")
    forms = data["temperature"]["forms"]
    shown = "; ".join(f"{f['form']} β {f['beta']:g}, L {f['L']}" for f in forms)
    lines.append(f"temperature: {data['temperature']['kind']}" + (f" ({shown})" if shown else ""))
    closest = [f"{t['pairing']} ({t['score']:.3g})" for t in data["tried"][:3]]
    if closest:
        lines.append("pairings tried (miss / rounding, at most 1 fits): " + "; ".join(closest))
    return lines


def _theta_lines(data: dict[str, Any]) -> list[str]:
    """θ, its fit, the stored dtype of inv_freq and the rope type read."""
    if data["theta"] is None:
        return ["theta: not determined"]
    lines = [
        f"theta: {_theta(data['theta'])} (fit {data['theta_fit']:.10g} ± {data['theta_error']:.2g} "
        f"relative, on pairs 0–{data['theta_pairs'] - 1})"
    ]
    if data["inv_freq_dtype"]:
        lines.append(f"inv_freq stored as: {data['inv_freq_dtype']}")
    scaling = data["scaling"]
    listed = ", ".join(f"{k} {v:g}" for k, v in (scaling or {}).items())
    lines.append(
        f"rope_type: {data['rope_type'] or 'not read'}" + (f" ({listed})" if listed else "")
    )
    return lines


def _number(value: float) -> float | None:
    """None for NaN (JSON has none)."""
    return None if math.isnan(value) else value


def _theta(value: float) -> str:
    """θ as written in configs: 500000, 1000000, 1e+16 only when past 15 digits."""
    return f"{value:.0f}" if value == int(value) and value < 1e15 else f"{value:g}"
