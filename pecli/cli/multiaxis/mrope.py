"""``pecli rope mrope-ids``: a VL or Omni model's (3, seq) position ids, and rope_deltas."""

from __future__ import annotations

import sys
from typing import Annotated

import numpy as np
import typer

from ...core.multiaxis.mrope import KNOBS
from ...io import formats, writing
from ...io.reports import say_written
from ..options import Quiet
from ..rope.app import rope_app
from .options import (
    FIRST_MODEL,
    ModelOpt,
    Release,
    ReleaseOpt,
    TokensPerSecondOpt,
    _option,
)

MergeOpt = Annotated[
    int,
    _option("--spatial-merge-size", "The vision config's spatial_merge_size (2 in every Qwen-VL)."),
]
IdsFormatOpt = Annotated[
    str | None,
    _option(
        "--format",
        "csv (one row per token: t,h,w), npy "
        "((3, seq) int64, as transformers) or json. [default: the suffix, else csv]",
    ),
]
IdsOutput = Annotated[
    str, typer.Option("-o", "--output", help="Output file (.csv, .npy or .json), or - for stdout.")
]


@rope_app.command("mrope-ids")
def mrope_ids_command(
    tokens: Annotated[
        str,
        _option(
            "--tokens",
            "The sequence: 'text:5 image:1,8,12 text:3 "
            "video:4,8,12,s=1.0 text:2' (grids T,H,W in patches; s= Qwen2.5-VL's seconds per grid, "
            "gap= Qwen3-VL's timestamp tokens between frames); the Omni models also take "
            "audio:MEL and video+audio:T,H,W,s=S,mel=MEL.",
        ),
    ],
    model: ModelOpt = FIRST_MODEL,
    release: ReleaseOpt = Release.v5_24,
    tokens_per_second: TokensPerSecondOpt = None,
    spatial_merge_size: MergeOpt = 2,
    fmt: IdsFormatOpt = None,
    output: IdsOutput = "-",
    quiet: Quiet = False,
) -> None:
    """The (t, h, w) position ids of a token layout, as the model's get_rope_index computes them.

    Qwen-VL, GLM-4.xV, ERNIE 4.5 VL and the Omni models: text runs count up on all three
    axes; an image or video grid (merged by spatial_merge_size) takes t (Qwen2.5-VL:
    t·seconds·tokens_per_second, truncated), row and column from where the text stopped; Omni
    audio takes its tokens' ids on all three. rope_deltas (max id + 1 − seq, what generation
    adds) is printed on stderr and written in the JSON.

    Example: pecli rope mrope-ids --model qwen2.5-vl --tokens "text:3 video:4,4,4,s=0.75 text:2"
    """
    from ...core.multiaxis.resolve import TEXT_PRESETS

    kind = formats.resolve_format(output, fmt, formats=("csv", "npy", "json"), parameter="output")
    formats.check_output(output, kind)
    preset = TEXT_PRESETS[model.value]
    source, delta = preset.token_ids(
        tokens,
        release=release.value,
        tokens_per_second=tokens_per_second,
        spatial_merge_size=spatial_merge_size,
    )
    ids = source.array.astype(preset.position_dtype)
    _write(ids, kind, output, {"model": model.value, "release": release.value}, delta)
    if not quiet:
        sys.stderr.write(f"pecli rope mrope-ids: rope_deltas = {delta} ({ids.shape[0]} tokens)\n")
        if preset.borrows or preset.name in KNOBS:  # a Qwen-VL layout (not an Omni one)
            _say_reused(tokens, ids, preset.rules, spatial_merge_size)
    say_written(output, quiet=quiet)


def _write(ids: np.ndarray, kind: str, output: str, record: dict[str, str], delta: int) -> None:
    """The ids ``(seq, 3)`` as csv rows t,h,w, a ``(3, seq)`` npy, or JSON with rope_deltas."""
    if kind == "json":
        writing.write_json(
            {**record, "position_ids": ids.T.tolist(), "rope_deltas": delta}, output=output
        )
    elif kind == "csv":
        writing.write_records(dict(zip("thw", ids.T, strict=True)), output=output, fmt="csv")
    else:
        writing.write_array(ids.T, output=output)


def _say_reused(tokens: str, ids: np.ndarray, rules: str, merge: int) -> None:
    """A note when text after a video repeats the video's t ids (transformers 5.24's rule)."""
    from ...core.multiaxis.mrope import reused_text_ids

    if count := reused_text_ids(tokens, ids.T, model=rules, spatial_merge_size=merge):
        sys.stderr.write(
            f"pecli rope mrope-ids: note: {count} text token(s) after a video take t ids the "
            f"video used already: 5.24 goes on at start + max(h, w)/{merge}, not after the "
            "video's last t (--release 4 does)\n"
        )
