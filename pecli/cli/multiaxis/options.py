"""The options of the multi-axis commands, declared once, and the words they take.

The preset and model names and their help lists come from the preset records
(:data:`pecli.core.multiaxis.resolve.PRESETS`); ``--grid 4x6``, ``--widths 16,56,56`` and
``--theta 10000,256,256`` are read here into numbers, and the core takes the numbers
(:func:`plan_of`, :func:`id_source`).
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import numpy as np
import typer

from ...core.errors import ParameterError
from ...core.multiaxis.mrope_presets import readers
from ...core.multiaxis.resolve import PRESETS, TEXT_PRESETS

if TYPE_CHECKING:  # pragma: no cover
    from ...core.multiaxis.cache import IdSource
    from ...core.multiaxis.plan import AxisPlan
    from ...core.multiaxis.resolve import Preset


def _option(name: str, text: str) -> Any:
    """An option and its help."""
    return typer.Option(name, help=text)


def _listed(names: list[str]) -> str:
    """``a, b or c``."""
    return f"{', '.join(names[:-1])} or {names[-1]}"


class Release(StrEnum):
    """Whose get_rope_index."""

    v5_24 = "5.24"
    v4 = "4"


#: The models of ``mrope-ids --model``: every text preset's name (Qwen-VL, GLM, ERNIE, Omni).
Model = StrEnum(  # type: ignore[misc]
    "Model", [(re.sub(r"\W", "_", name), name) for name in TEXT_PRESETS]
)
FIRST_MODEL = next(iter(Model))
#: Each text preset that takes another model's ids, and whose.
_BORROWED = "; ".join(
    f"{p.name}: the ids of {p.borrows}" for p in TEXT_PRESETS.values() if p.borrows
)

PresetOpt = Annotated[
    str | None,
    _option("--preset", f"{_listed(list(PRESETS))} (pecli rope axis-map lists them)."),
]
ModelOpt = Annotated[Model, _option("--model", f"{_listed(list(TEXT_PRESETS))} ({_BORROWED}).")]
HeadDimOpt = Annotated[
    int | None,
    _option(
        "--head-dim", "Head width [default: the preset's]; FLUX and HunyuanVideo fix it at 128."
    ),
]
GridOpt = Annotated[
    str | None,
    _option(
        "--grid",
        "Grid sizes, e.g. 64x64 (H W: latent patches "
        "after packing) or 21x30x52 (T H W); Llama 4 vision: one side.",
    ),
]
TextOpt = Annotated[
    int,
    _option("--text", "Text tokens before the grid (FLUX.1: ids 0; FLUX.2: 0 … L-1 on axis l)."),
]
IdsOpt = Annotated[
    str | None,
    _option(
        "--ids",
        "A .npy or CSV file of ids, one row per token, "
        "one column per axis (any finite numbers); replaces --grid.",
    ),
]
WidthsOpt = Annotated[
    str | None,
    _option(
        "--widths",
        "Without --preset: rotated channels per "
        "axis, e.g. 16,56,56 (a schedule per axis over its width).",
    ),
]
AxesConfigOpt = Annotated[
    str | None,
    _option(
        "--config",
        "Instead of --preset: a Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Qwen3.5, GLM-4.xV or ERNIE 4.5 VL "
        "config.json "
        "(or its folder); its mrope_section, θ and head width, its family's ids and channel map.",
    ),
]
ThetaOpt = Annotated[
    str | None, _option("--theta", "θ, or one per axis (10000,256,256); overrides a preset's.")
]
AxisLayoutOpt = Annotated[
    str | None,
    _option(
        "--layout",
        "interleaved (2j, 2j+1), half-split (j, j+h) or half-split-per-axis; overrides a preset's.",
    ),
]
FpsOpt = Annotated[
    float | None,
    _option("--fps", "Cosmos videos: frames at k/fps·24 (base_fps 24); images without it."),
]
PatchOpt = Annotated[
    str | None,
    _option(
        "--patch",
        "--grid is then the latent's size, divided by this patch (e.g. 1x2x2), or 'model' for "
        "the preset's own (Wan 1x2x2, CogVideoX 1.5 2x2x2); a size it does not divide is refused.",
    ),
]
RopeScaleOpt = Annotated[
    str | None,
    _option(
        "--rope-scale",
        "Cosmos: the NTK scale per axis t,h,w (θ of axis a = 10000·s^(w/(w−2))) [default: 2,1,1].",
    ),
]
ScaleFactorOpt = Annotated[
    str | None,
    _option(
        "--scale-factor",
        "Kandinsky 5: the pipeline's scale_factor t,h,w, each grid position divided by it "
        "(1,2,2 for 480p videos, 1,3.16,3.16 above; images 1,1,1) [default: none].",
    ),
]
TokensOpt = Annotated[
    str | None,
    _option(
        "--tokens",
        "Qwen-VL: the sequence, e.g. 'text:5 "
        "image:1,8,12 text:3 video:4,8,12,s=1.0 text:2' (grids T,H,W in patches; s= seconds per "
        "grid, Qwen2.5-VL; gap= timestamp tokens between frames, Qwen3-VL).",
    ),
]
ReleaseOpt = Annotated[
    Release,
    _option(
        "--release",
        "Whose get_rope_index: 5.24 (text after "
        "an image or video goes on at start + max(h, w)) or 4 (at the largest id + 1).",
    ),
]
#: ``rope axes`` and ``identify-axes``: not given (None) unless a token layout needs it.
LayoutReleaseOpt = Annotated[
    Release | None,
    _option(
        "--release",
        "With --tokens, whose get_rope_index: 5.24 (text after an image or video goes on at "
        "start + max(h, w)) or 4 (at the largest id + 1). [default: 5.24]",
    ),
]
#: ``rope axes`` and ``identify-axes``: a token layout's spatial_merge_size (None: 2).
LayoutMergeOpt = Annotated[
    int | None,
    _option(
        "--spatial-merge-size",
        "With --tokens, the vision config's spatial_merge_size: an image or video grid's H and W "
        "are merged by it [default: 2, as in every Qwen-VL, GLM, ERNIE and Omni checkpoint].",
    ),
]
TokensPerSecondOpt = Annotated[
    int | None,
    _option(
        "--tokens-per-second",
        f"The vision config's tokens_per_second, read by {readers('tokens_per_second')} only "
        "[default: 2, as in its checkpoints].",
    ),
]


def parse_sizes(text: str, parameter: str) -> tuple[int, ...]:
    """``"4x6"``, ``"4,6"`` or ``"4 6"`` as ``(4, 6)``.

    >>> parse_sizes("3x4x5", "grid")
    (3, 4, 5)

    """
    spelled = str(text).strip().lower()
    words = re.split(r"\s*[x×,]\s*|\s+", spelled)  # "4x4x": an empty last size, refused
    if not spelled or not all(w.isascii() and w.isdigit() for w in words):
        raise ParameterError(parameter, "must be sizes such as 4x6 or 16,56,56", text)
    return tuple(int(w) for w in words)


def parse_numbers(text: str, parameter: str) -> tuple[float, ...]:
    """``"10000"`` or ``"10000,256"`` as floats (their rule is the core's: θ's, for ``theta``).

    >>> parse_numbers("1e4, 256", "theta")
    (10000.0, 256.0)

    """
    try:
        values = tuple(float(w) for w in str(text).split(",") if w.strip())
    except ValueError:
        values = ()
    if not values:
        raise ParameterError(parameter, "must be a number, or one per axis separated by ,", text)
    return values


def plan_of(
    preset: str | None,
    head_dim: int | None,
    widths: str | None,
    theta: str | None,
    layout: str | None,
    rope_scale: str | None = None,
    config: str | None = None,
) -> tuple[AxisPlan, Preset | None]:
    """The plan the options describe: a preset, a ``--config``'s preset, or widths and θ.

    A preset's θ, layout and NTK scale may be overridden.
    """
    from ...core.multiaxis.resolve import resolve_plan

    return resolve_plan(
        preset_or_config(preset, config),
        head_dim=head_dim,
        widths=None if widths is None else parse_sizes(widths, "widths"),
        theta=None if theta is None else parse_numbers(theta, "theta"),
        layout=layout,
        rope_scale=None if rope_scale is None else parse_numbers(rope_scale, "rope_scale"),
    )


def preset_or_config(preset: str | None, config: str | None) -> str | Preset | None:
    """``--preset``'s name, or the preset ``--config``'s file describes (not both)."""
    if config is None:
        return preset
    from ...core.multiaxis.config_preset import preset_from_config
    from ...io.reading.json_config import read_json_object

    if preset is not None:
        raise ParameterError("config", "goes without --preset (it is the preset)", config)
    return preset_from_config(read_json_object(config))


def id_source(
    plan: AxisPlan, chosen: Preset | None, output: str, *, ids: str | None, **given: Any
) -> IdSource:
    """The tokens' ids: the ``--ids`` file (never the output), a grid or a token layout."""
    from ...core.multiaxis.resolve import resolve_ids

    return resolve_ids(plan, chosen, ids=read_ids(ids, output), **grid_of(given))


def layout_rules(
    tokens: str | None, release: Release | None, tokens_per_second: int | None, merge: int | None
) -> dict[str, Any]:
    """A token layout and the knobs of its get_rope_index, as the core takes them."""
    return {
        "tokens": tokens,
        "release": release and release.value,
        "tokens_per_second": tokens_per_second,
        "spatial_merge_size": merge,
    }


def read_ids(ids: str | None, output: str) -> np.ndarray | None:
    """The ``--ids`` file as float64 (it may not be the output), or None."""
    if ids is None:
        return None
    from ...io.paths import check_not_input
    from ...io.reading import read_table

    check_not_input(output, (ids,))
    return read_table(ids, parameter="ids").astype(np.float64)


def grid_of(given: dict[str, Any]) -> dict[str, Any]:
    """``given`` with ``grid`` and ``patch`` (sizes or ``model``) read, and ``scale_factor``."""
    grid, read = given.get("grid"), dict[str, Any]()
    if given.get("patch") is not None:
        word = str(given["patch"]).strip().lower()
        read["patch"] = word if word == "model" else parse_sizes(word, "patch")
    if given.get("scale_factor") is not None:
        read["scale_factor"] = parse_numbers(given["scale_factor"], "scale_factor")
    return {**given, **read, "grid": None if grid is None else parse_sizes(grid, "grid")}
