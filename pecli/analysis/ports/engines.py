"""``pecli rope engines``' report: one config as every engine reads it, layer types and notes.

The rows come from :mod:`pecli.core.ports.engines` (each engine's published formula,
evaluated exactly); this module gathers them into the report: the engines' rows, one table
per rope of a model whose layers rotate with several (Gemma 3's local and global layers), the
query temperature a config sets (Mistral's ``llama_4_scaling_beta``) and what each engine does
with it, and the notes in words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ...core.ports.engines import EngineReading
    from ...core.rope import RopeSpec
    from ...core.rope.config.plans import LayerRow


def engines_report(
    config: dict[str, Any],
    *,
    layer: int | None = None,
    seq_len: int | None = None,
    context: int | None = None,
) -> dict[str, Any]:
    """The report of ``config`` as the engines read it (``layer``: that layer's rope).

    Its keys: ``context`` (the window the engines take), ``engines`` (one record per
    engine, :func:`record`), ``per_layer_type`` (one table per rope when the layers differ
    and no ``layer`` is given), ``query_temperature`` (or None), then what the table shows
    in words: ``headline``, ``notes_before`` and ``notes_after``.
    """
    from ...core.ports.engines import engine_notes, engine_readings, read_config

    spec, window, v4_theta = read_config(config, seq_len=seq_len, context=context, layer=layer)
    readings = engine_readings(spec, context=window or 0, v4_theta=v4_theta)
    rows = _plan_rows(config)
    before, after = engine_notes(spec)
    return {
        "context": window,
        "engines": [record(r) for r in readings],
        "per_layer_type": []
        if layer is not None
        else _per_layer_type(config, rows, seq_len, context),
        "query_temperature": _temperature(rows),
        "headline": _headline(spec, window),
        "notes_before": before,
        "notes_after": after + _plan_notes(rows, layer),
    }


def _plan_rows(config: dict[str, Any]) -> list[LayerRow]:
    """The config's per-layer plan, or no rows when it has none (no ``num_hidden_layers``)."""
    from ...core.errors import ParameterError
    from ...core.rope.config.plans import layer_plan

    try:
        return layer_plan(config)[0]
    except ParameterError:
        return []


def _per_layer_type(
    config: dict[str, Any], rows: list[LayerRow], seq_len: int | None, context: int | None
) -> list[dict[str, Any]]:
    """One engines table per rope of a model whose layers rotate with several (Gemma 3)."""
    from ...core.ports.engines import engine_readings, read_config

    firsts: dict[tuple[Any, ...], list[int]] = {}
    for index, row in enumerate(rows):
        if row.rope:
            firsts.setdefault((row.label, row.theta, row.rope_type, row.factor), []).append(index)
    if len(firsts) < 2:
        return []
    found = []
    for layers in firsts.values():
        spec, window, v4 = read_config(config, seq_len=seq_len, context=context, layer=layers[0])
        readings = engine_readings(spec, context=window or 0, v4_theta=v4)
        label = rows[layers[0]].label or rows[layers[0]].kind
        shown = spans(layers)
        found.append({"label": label, "layers": shown, "engines": [record(r) for r in readings]})
    return found


def spans(layers: list[int]) -> str:
    """Runs of consecutive layers.

    >>> spans([0, 1, 2, 3, 4, 6, 7, 9])
    '0-4,6-7,9'
    """
    runs: list[list[int]] = []
    for i in layers:
        if runs and runs[-1][1] == i - 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _temperature(rows: list[LayerRow]) -> dict[str, Any] | None:
    """Mistral's llama_4_scaling_beta on the queries, and what each engine does with it."""
    from ...core.ports.engines import ENGINES

    mistral = {r.temperature.formula() for r in rows if r.temperature and not r.temperature.offset}
    if not mistral:
        return None
    engines = {name: engine.temperature for name, engine in ENGINES.items()}
    return {"formula": sorted(mistral)[0], "engines": engines}


def _plan_notes(rows: list[LayerRow], layer: int | None) -> list[str]:
    """Per-layer ropes and query temperatures the rows above do not cover."""
    from ...core.ports.engines import ENGINES

    notes = []
    ropes = {(r.label, r.theta, r.rope_type, r.factor) for r in rows if r.rope}
    if len(ropes) > 1 and layer is None:
        notes.append(
            f"the layers rotate with {len(ropes)} ropes: the first table is the global "
            "layers' (llama.cpp's freq_base), the next ones each layer type's"
        )
    for t in sorted({r.temperature for r in rows if r.temperature}, key=lambda t: t.formula()):
        said = "; ".join(f"{n}: {e.temperature.split(':')[0]}" for n, e in ENGINES.items())
        who = said if not t.offset else "transformers applies it"
        notes.append(
            f"the queries are also multiplied by {t.formula()} at position p ({who}; the rows "
            "compare frequencies only): pecli rope layers `positions` gives it"
        )
    return notes


def record(row: EngineReading) -> dict[str, Any]:
    """One engine's row of the report, as plain data (JSON's keys)."""
    return {
        "engine": row.engine,
        "max_relative_inv_freq": row.max_relative,
        "cos_sin_factor": row.cos_sin_factor,
        "longrope_factors": row.factors,
        "yarn_range": list(row.yarn_range) if row.yarn_range else None,
        "scores_multiplier": row.scores,
        "first_position_phase_1e-3": row.first_position,
        "inv_freq": row.inv_freq.tolist(),
    }


def _headline(spec: RopeSpec, window: int | None) -> str:
    return (
        f"rope_type {spec.rope_type}, θ = {spec.theta:g}, rotated width {spec.rotary_dim}, "
        f"prompt {spec.seq_len or '-'}, context {window or '-'}"
    )
