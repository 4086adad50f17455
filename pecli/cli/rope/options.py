"""The options that describe a rotary embedding, declared once for ``pecli rope freqs/cache``.

``@rope_spec_options()`` gives a command ``--config`` and one option per field of
:class:`~pecli.core.rope.spec.RopeSpec` and hands it the checked spec and the config's
findings as ``rope``. Options given beside ``--config`` override the config's values.
A command where RoPE is optional (``plot-spectrum``) names the config ``--rope-config`` and
receives ``rope=None`` when none of these options is given.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any, TypeVar

import typer

from ...core.rope import registry
from ...core.rope.spec import RopeSpec
from ..options import LAYER_INDEX

Command = TypeVar("Command", bound=Callable[..., Any])
_KEYWORD = inspect.Parameter.KEYWORD_ONLY


def _opt(name: str, kind: Any, text: str) -> Any:
    return Annotated[kind | None, typer.Option(name, help=text, show_default=False)]


#: (parameter, type, help) for every field of RopeSpec; the help's ``{…}`` come from the rope
#: type records (:mod:`pecli.core.rope.registry`): ``{types}`` every type, ``{readers}`` the
#: types that read the field, ``{at_least_one}`` the types whose factor is >= 1, ``{default}``.
_FIELDS: tuple[tuple[str, Any, str], ...] = (
    ("rope_type", str, "{types}. [default: {default}]"),
    ("theta", float, "rope_theta, the base θ (> 1). [default: {default}]"),
    ("head_dim", int, "Width of one attention head (even). [default: {default}]"),
    (
        "partial_rotary_factor",
        float,
        "Fraction of the head that rotates, (0, 1]. [default: {default}]",
    ),
    ("factor", float, "Scaling factor f (>= 1 for {at_least_one})."),
    ("original_max_position_embeddings", int, "Pre-training context length L ({readers})."),
    (
        "max_position_embeddings",
        int,
        "max_position_embeddings (dynamic; yarn/longrope take f = max/L without --factor).",
    ),
    ("seq_len", int, "Sequence length: dynamic's new θ; longrope's long factors past L."),
    ("low_freq_factor", float, "{readers}: wavelengths above L/low are divided by f."),
    ("high_freq_factor", float, "{readers}: wavelengths below L/high are kept."),
    ("beta_fast", float, "{readers}: rotations bounding extrapolation. [default: {default}]"),
    ("beta_slow", float, "{readers}: rotations bounding interpolation. [default: {default}]"),
    (
        "mscale",
        float,
        "{readers}: with --mscale-all-dim, attention factor mscale(f, m)/mscale(f, m_all).",
    ),
    ("mscale_all_dim", float, "{readers}: see --mscale."),
    ("attention_factor", float, "{readers}: the factor on cos and sin. [default: from f]"),
    ("short_factor", str, "{readers}: rotary_dim/2 comma-separated factors."),
    ("long_factor", str, "{readers}: rotary_dim/2 comma-separated factors, used past L."),
    (
        "truncate",
        bool,
        "{readers}: round the correction range to integers (gpt-oss: --no-truncate). "
        "[default: truncate]",
    ),
)


def _help(name: str, template: str) -> str:
    """A field's help text, its ``{…}`` filled from the rope type records."""
    types = registry.ROPE_TYPES
    facts = {
        "types": f"{', '.join(types[:-1])} or {types[-1]}",
        "readers": ", ".join(registry.readers(name)),
        "at_least_one": ", ".join(registry.FACTOR_AT_LEAST_ONE),
    }
    if "{default}" in template:
        value = {f.name: f.default for f in dataclasses.fields(RopeSpec)}.get(name)
        value = registry.default_of(name) if value is None else value
        facts["default"] = value if isinstance(value, str) else f"{value:g}"
    return template.format(**facts)


def _option(name: str, kind: Any, template: str) -> Any:
    if kind is bool:
        flag = typer.Option(
            "--truncate/--no-truncate", help=_help(name, template), show_default=False
        )
        return Annotated[bool | None, flag]
    return _opt(f"--{name.replace('_', '-')}", kind, _help(name, template))


_CONFIG = (
    "config",
    _opt("--config", str, "A model's config.json (or its folder); the options below override it."),
)
_LAYER = (
    "layer",
    Annotated[
        int | None,
        typer.Option(
            "--layer",
            click_type=LAYER_INDEX,
            show_default=False,
            help="With a config: the layer (0-based) whose RoPE to take, for models whose "
            "layers differ (pecli rope layers lists them).",
        ),
    ],
)
_OPTIONS: tuple[tuple[str, Any], ...] = (
    _CONFIG,
    _LAYER,
    *((name, _option(name, kind, template)) for name, kind, template in _FIELDS),
)
_ROPE_CONFIG = (
    "config",
    _opt("--rope-config", str, "A model's config.json (or its folder) for the RoPE options."),
)


def rope_spec_options(*, optional: bool = False) -> Callable[[Command], Command]:
    """Replace a command's ``rope`` parameter by the options above; pass ``(spec, findings)``.

    ``optional``: the config option is ``--rope-config`` and ``rope`` is None without options.
    """
    options = _OPTIONS if not optional else (_ROPE_CONFIG, *_OPTIONS[1:])  # --layer stays

    def decorate(command: Command) -> Command:
        hints = typing.get_type_hints(command, localns={"RopeSpec": object}, include_extras=True)
        params: list[inspect.Parameter] = []
        for param in inspect.signature(command).parameters.values():
            if param.name == "rope":
                params += [
                    inspect.Parameter(n, _KEYWORD, default=None, annotation=a) for n, a in options
                ]
            else:
                params.append(param.replace(kind=_KEYWORD, annotation=hints[param.name]))

        @functools.wraps(command)
        def run(**kwargs: Any) -> Any:
            knobs = {name: kwargs.pop(name) for name, _ in options}
            if optional and all(value is None for value in knobs.values()):
                return command(rope=None, **kwargs)
            return command(rope=_resolved(knobs, optional), **kwargs)

        run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        run.__annotations__ = {param.name: param.annotation for param in params}
        return run  # type: ignore[return-value]

    return decorate


def _resolved(knobs: dict[str, Any], optional: bool) -> tuple[RopeSpec, list[str]]:
    """:func:`resolve_spec`; a config error names the option the command has for it."""
    from ...core.errors import ParameterError

    try:
        return resolve_spec(**knobs)
    except ParameterError as error:
        if not optional or error.parameter != "config":
            raise
        raise ParameterError("rope_config", error.rule, error.value) from None


def resolve_spec(
    config: str | None = None, layer: int | None = None, **fields: Any
) -> tuple[RopeSpec, list[str]]:
    """The checked spec from ``--config`` (its ``--layer``) and the field options (these win)."""
    from ...core.errors import ParameterError
    from ...core.rope.spec import check_spec
    from ...io.reading.json_config import read_json_object

    given = {k: _factors(k, v) for k, v in fields.items() if v is not None}
    if layer is not None and config is None:
        raise ParameterError("layer", "needs --config (a layer of that model)", layer)
    if config is None:
        unset = (
            []
            if "theta" in given
            else ["no --theta (or --config): θ = 10000, transformers' default"]
        )
        spec = check_spec(RopeSpec(**given))
        _all_taken(given, spec.rope_type, from_config=False)
        return spec, unset
    spec, findings = config_spec(read_json_object(config), layer, fields.get("seq_len"))
    if given:
        findings.append("given on the command line: " + ", ".join(sorted(given)))
        spec = check_spec(dataclasses.replace(spec, **given))
    _all_taken(given, spec.rope_type, from_config=True)
    return spec, findings


def _all_taken(given: dict[str, Any], rope_type: str, *, from_config: bool) -> None:
    """Refuse an option the rope type ignores (``--factor 2`` without ``--rope-type``).

    The rule says where the rope type came from: ``--rope-type`` itself (then giving
    ``--rope-type`` is no advice), the config, or the default.
    """
    from ...core.errors import ParameterError
    from ...core.rope.registry import takers

    if "rope_type" in given:
        whose, advice = f"--rope-type is {rope_type}", "leave the option out"
    else:
        whose = (
            f"the config's rope_type is {rope_type}"
            if from_config
            else f"the rope_type is {rope_type} (no --rope-type given)"
        )
        advice = "give a --rope-type that takes it, or leave the option out"
    for name, value in given.items():
        if rope_type not in (types := takers(name)):
            rule = f"is taken by rope_type {', '.join(types)} only, and {whose}: {advice}"
            raise ParameterError(name, rule, value)


def config_spec(
    config: dict[str, Any], layer: int | None, seq_len: int | None, parameter: str = "config"
) -> tuple[RopeSpec, list[str]]:
    """The spec of a config, or of its layer ``layer``.

    A config whose layers differ, read without a layer, is refused naming ``--layer``.
    """
    from ...core.errors import ParameterError
    from ...core.rope.config import spec_from_config
    from ...core.rope.config.plans import layer_rope

    if layer is not None:
        try:
            reading = layer_rope(config, layer, seq_len=seq_len)
        except ParameterError as error:
            if error.parameter != "config":
                raise
            raise ParameterError(parameter, error.rule, error.value) from None
        return reading.spec, reading.notes
    try:
        return spec_from_config(config, seq_len=seq_len, parameter=parameter)
    except ParameterError as error:
        if "per layer type" not in error.rule:
            raise
        rule = (  # said of the model, not of the field: Gemma 3's config has no rope_parameters
            "is a model whose layer types have different RoPEs: pass --layer N "
            "(pecli rope layers shows each layer's)"
        )
        raise ParameterError(parameter, rule, error.value) from None


def _factors(name: str, value: Any) -> Any:
    """``--short-factor 1,1.5,2`` as a tuple of floats; other values unchanged."""
    if name not in ("short_factor", "long_factor"):
        return value
    from ...core.errors import ParameterError

    try:
        return tuple(float(part) for part in str(value).split(","))
    except ValueError:
        raise ParameterError(name, "must be comma-separated numbers", value) from None


class Part(StrEnum):
    """What a cache table holds (``rope cache`` and ``rope axes`` --part)."""

    both = "both"
    cos = "cos"
    sin = "sin"


class Form(StrEnum):
    """What each row of a cache holds (``rope cache`` and ``rope axes`` --form)."""

    full = "full"
    half = "half"
    complex = "complex"
    matrix = "matrix"


def integer_positions(text: str) -> Any:
    """``--positions`` of ``rope layers`` and ``rope irope``: integers 0 to 2^53, int64.

    float64 holds each of them exactly, so a temperature's floor is exact up to there.

    >>> integer_positions("0,8191").tolist()
    [0, 8191]
    """
    import numpy as np

    from ...core.errors import ParameterError
    from ...core.rules import MAX_POSITION

    try:
        values = [int(p) for p in text.split(",")]
    except ValueError:
        raise ParameterError("positions", "must be comma-separated integers", text) from None
    if min(values) < 0 or max(values) > MAX_POSITION:
        raise ParameterError("positions", "must be integers from 0 to 2^53", text)
    return np.array(values, dtype=np.int64)
