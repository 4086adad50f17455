"""Causes read off identify's readings of both tables: θ, exponent, rotated width, scaling.

Each check takes a :class:`~.tables.Pair` whose readings (``rope identify``'s, as
:func:`pecli.analysis.ports.readings.reading` gives them) name θ, the rotated width and the
rope type, and returns the sentence naming the mistake, or None. Pure Python.
"""

from __future__ import annotations

import math
from fractions import Fraction

from .tables import Pair, Reading

__all__ = ["exponent_width", "layer_type", "rotated_width", "scaling", "theta", "xpos"]

#: Head widths a model may divide the exponent by.
HEAD_WIDTHS = frozenset(range(16, 1025, 16))


def _same_kind(ra: Reading, rb: Reading) -> bool:
    return bool(ra and rb and ra.get("kind") == rb.get("kind"))


def _thetas(pair: Pair) -> tuple[float, float] | None:
    ra, rb = pair.ra, pair.rb
    if not _same_kind(ra, rb) or not ra or not rb:
        return None
    ta, tb = ra.get("theta"), rb.get("theta")
    return (ta, tb) if ta and tb and ta > 1 and tb > 1 else None


def _tolerance(pair: Pair) -> float:
    storages = {r.get("storage") for r in (pair.ra, pair.rb) if r}
    return 2e-2 if "bfloat16" in storages else 2e-3 if "float16" in storages else 1e-6


def theta(pair: Pair) -> str | None:
    """The base differs (and is no other cause's θ').

    When the smaller θ is also the larger one to a power ``r/d`` (10^4 = (10^6)^(2/3), a head
    of 96 over 64 rotated channels), the sentence names that reading too: round bases are
    read as two bases first (:func:`exponent_width` refuses them).
    """
    found = _thetas(pair)
    if found is None or exponent_width(pair) or layer_type(pair):
        return None
    ta, tb = found
    if abs(ta - tb) <= _tolerance(pair) * tb:
        return None
    words = f"θ (base, rope_theta) differs: A reads as θ = {ta:.10g}, B as θ = {tb:.10g}"
    power = _exponent_power(pair)
    return f"{words}; or {power}" if power else words


def exponent_width(pair: Pair) -> str | None:
    """``θ^(-2i/head_dim)`` where ``θ^(-2i/r)`` should be: one side reads as ``θ' = θ^(r/d)``.

    The width ``r`` rotated and the head ``d`` are a fraction ``ln θ'/ln θ`` apart; the Qwen3.6
    port that divided by 256 for 64 rotated channels read as θ' = θ^(1/4). A round θ' (at
    most 3 significant digits) is left to :func:`theta`, which names this reading second.
    """
    found = _thetas(pair)
    if found is None or _round(min(found)):
        return None  # θ = 10^4 against 10^6 is two bases first, 10^6^(2/3) second
    power = _exponent_power(pair)
    return f"exponent over head_dim instead of the rotated width: {power}" if power else None


def _exponent_power(pair: Pair) -> str | None:
    """``B's θ' = … = θ^(p/q), as θ^(-2i/d) reads over r rotated channels …``, or None."""
    found = _thetas(pair)
    r = (pair.ra or {}).get("rotary_dim")
    if found is None or not r or r != (pair.rb or {}).get("rotary_dim"):
        return None
    ta, tb = found
    (big, small), names = ((ta, tb), ("A", "B")) if ta > tb else ((tb, ta), ("B", "A"))
    if (pair.ra or {}).get("rope_type") != (pair.rb or {}).get("rope_type"):
        return None
    share = Fraction(math.log(small) / math.log(big)).limit_denominator(16)
    if abs(float(share) - math.log(small) / math.log(big)) > _tolerance(pair) or not 0 < share < 1:
        return None  # a share of 0: θ' within the spread of 1, no power (and no head r / 0)
    head = r / share
    if head.denominator != 1 or int(head) not in HEAD_WIDTHS:
        return None
    return (
        f"{names[1]}'s θ' = {small:.6g} = {big:.6g}^({share.numerator}/{share.denominator}), "
        f"as θ^(-2i/{int(head)}) reads over {r} rotated channels ({names[1]} divides by the "
        f"head width {int(head)}, {names[0]} by the rotated width {r})"
    )


def rotated_width(pair: Pair) -> str | None:
    """Same θ, rotated widths k times apart: a partial factor applied twice, or none applied.

    With a reference (``pair.reference``), one reading: the reference wider, the other
    applied the factor twice; the reference narrower, the other rotated the full head.
    """
    found = _thetas(pair)
    ra, rb = pair.ra or {}, pair.rb or {}
    wa, wb = ra.get("rotary_dim"), rb.get("rotary_dim")
    if found is None or not wa or not wb or wa == wb or abs(found[0] / found[1] - 1) > 1e-3:
        return None
    (wide, narrow), names = ((wa, wb), ("A", "B")) if wa > wb else ((wb, wa), ("B", "A"))
    if wide % narrow:
        return None
    twice = (
        f"a partial_rotary_factor applied twice in {names[1]} (1/{wide // narrow} of the "
        "intended slice)"
    )
    full = f"the full head rotated in {names[0]} where a slice should be"
    why = {names[0]: twice, names[1]: full}.get(pair.reference or "", f"{twice}, or {full}")
    return (
        f"rotated width differs, same θ {found[0]:.6g}: {names[0]} rotates {wide} channels, "
        f"{names[1]} {narrow} (θ^(-2i/{wide}) against θ^(-2i/{narrow})): {why}"
    )


def scaling(pair: Pair) -> str | None:
    """One side scaled (linear, yarn, llama3 …), the other not, at the same θ."""
    ra, rb = pair.ra, pair.rb
    if not ra or not rb or not _same_kind(ra, rb) or ra.get("rope_type") == rb.get("rope_type"):
        return None
    kinds = {ra.get("rope_type"), rb.get("rope_type")}
    if "default" not in kinds or None in kinds or layer_type(pair):
        return None
    scaled, name = (ra, "A") if ra.get("rope_type") != "default" else (rb, "B")
    fields = ", ".join(
        f"{label} {scaled[k]:g}"
        for k, label in (("factor", "factor"), ("original_max_position_embeddings", "L ="))
        if isinstance(scaled.get(k), float | int)
    )
    kind = scaled["rope_type"] if scaled["rope_type"] != "unknown" else "scaled"
    return (
        f"scaling missing past L: {name} is {kind} ({fields or 'no known type'}), "
        "the other unscaled: they agree at short wavelengths and part past the original "
        "context length; or the scaling applied to the wrong layer type (Gemma 3 scales "
        "its full-attention layers only, not its sliding-window ones)"
    )


def layer_type(pair: Pair) -> str | None:
    """A local layer's RoPE (small θ, unscaled) against a global one's (larger θ, scaled).

    Gemma 3 scales its full-attention layers only (``rope_theta`` and ``rope_scaling``) and
    gives its sliding-window layers ``rope_local_base_freq`` unscaled: one side's layer took
    the other type's RoPE.
    """
    found = _thetas(pair)
    ra, rb = pair.ra or {}, pair.rb or {}
    types = (ra.get("rope_type"), rb.get("rope_type"))
    if found is None or "default" not in types or types[0] == types[1] or None in types:
        return None
    local, other = ("A", "B") if types[0] == "default" else ("B", "A")
    t_local, t_other = found if local == "A" else found[::-1]
    if t_local >= t_other * (1 - 1e-3):
        return None
    scaled = rb if local == "A" else ra
    return (
        f"scaling on the wrong layer type: {local} is a sliding-window layer's RoPE (θ "
        f"{t_local:.6g}, unscaled), {other} a full-attention layer's (θ {t_other:.6g}, "
        f"{scaled.get('rope_type')} scaling): the layer types' RoPEs are exchanged (Gemma 3: "
        "rope_local_base_freq on sliding layers, rope_theta and rope_scaling on full ones)"
    )


def _round(x: float) -> bool:
    """At most 3 significant digits: a base someone chose, not a power of one."""
    return len(f"{x:.9g}".split("e")[0].replace(".", "").strip("0")) <= 3


def xpos(pair: Pair) -> str | None:
    """Two xPos scale tables that differ in γ, side (queries / keys) or centred positions.

    Read off both readings (:func:`pecli.analysis.zoo.xpos.read_xpos`); the layout is the
    ``layout`` cause's. torchscale centres ``L`` rows at ``ceil(L/2)``, rotary-embedding-torch
    at ``floor(L/2)``: an odd ``L`` tells them apart, and any other first position is an
    offset (torchscale's ``offset``, tokens before these rows).
    """
    ra, rb = pair.ra, pair.rb
    if not ra or not rb or ra.get("kind") != "xpos" or rb.get("kind") != "xpos":
        return None
    from ...zoo.xpos import GAMMA_SPREAD

    found = []
    spread = max(GAMMA_SPREAD[ra["storage"]], GAMMA_SPREAD[rb["storage"]])
    if abs(ra["scale_base"] - rb["scale_base"]) > spread * max(ra["scale_base"], rb["scale_base"]):
        found.append(f"γ (scale_base) {ra['scale_base']:g} in A, {rb['scale_base']:g} in B")
    if ra["side"] != rb["side"]:
        found.append(
            f"A holds the {ra['side']}' scales, B the {rb['side']}' (keys: ζ_i^(−p/γ), "
            "the queries' inverse)"
        )
    if ra["first_position"] != rb["first_position"]:
        found.append(
            f"first centred position {ra['first_position']} in A ({ra['centre']}), "
            f"{rb['first_position']} in B ({rb['centre']}): torchscale centres L rows at "
            "ceil(L/2), rotary-embedding-torch at floor(L/2); another shift is an offset"
        )
    return "xPos: " + "; ".join(found) if found else None
