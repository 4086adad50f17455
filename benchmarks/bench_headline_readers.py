"""`make bench`'s rows for the commands that read files, analyse, or draw.

Readers (identify, rope identify / identify-axes, alibi identify) against reading the file
in 16 MB pieces; diff against a NumPy script printing the largest |a − b| and where; the
GGUF commands against walking the header and reading the rope tensor; precision against
the float32 and float64 tables compared per decade; each figure against matplotlib drawing
the same panels (bench_headline_figures.py).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import bench_headline_figures as figures
import bench_headline_inputs as inputs
from bench_headline_rows import Context, Group, _clean


def _make(*cmd: str) -> None:
    subprocess.run(list(cmd), check=True, capture_output=True)


def identify(ctx: Context) -> Iterator[Group]:
    model = ctx.tmp / "model.safetensors"
    inputs.safetensors_checkpoint(ctx.py, model, 25_000 if ctx.quick else 250_000)
    yield Group(
        f"identify a {model.stat().st_size / 1e9:.2f} GB .safetensors (a 4096 x 768 table "
        "beside a weight)",
        "<= 1.5x",
        {
            "read the file in 16 MB pieces": ctx.script(inputs.READ, model),
            "pecli identify model.safetensors": [ctx.pecli, "identify", str(model)],
        },
        ctx.rounds,
    )
    _clean(ctx.tmp)


def rope_readers(ctx: Context) -> Iterator[Group]:
    """rope identify, identify-axes, diff on rope caches; rope probe on q dumps; alibi identify."""
    p, n = ctx.pecli, 16_384 if ctx.quick else 131_072
    a, b = ctx.tmp / "a.npy", ctx.tmp / "b.npy"
    cache = [p, "rope", "cache", "--theta", "500000", "--head-dim", "128", "--n", str(n), "-q"]
    _make(*cache, "-o", str(a))
    _make(*cache, "--arithmetic", "transformers", "-o", str(b))
    yield Group(
        f"diff two {n:,} x 256 rope caches (exact against transformers' float32)",
        "<= 1.2x",
        {
            "NumPy: max |a - b| and where, printed": ctx.script(inputs.DIFF, a, b),
            "pecli diff a.npy b.npy": [p, "diff", str(a), str(b)],
        },
        ctx.rounds,
        statuses=(0, 1),  # diff's status 1: the tables differ
    )
    yield _loaded(ctx, f"rope identify a {n:,} x 256 rope cache", a, [p, "rope", "identify"])
    grid = "5x30x52" if ctx.quick else "21x60x104" if ctx.heavy else "21x30x52"
    axes = ctx.tmp / "axes.npy"
    _make(p, "rope", "axes", "--preset", "wan", "--grid", grid, "-q", "-o", str(axes))
    title = f"rope identify-axes on Wan's cache of a {grid} grid"
    yield _loaded(ctx, title, axes, [p, "rope", "identify-axes"], "--grid", grid)
    pre, post, tokens = ctx.tmp / "pre.npy", ctx.tmp / "post.npy", 512 if ctx.quick else 4096
    _make(*ctx.script(inputs.PROBE_DUMPS, pre, post, tokens))
    yield Group(
        f"rope probe on q dumped before and after RoPE ({tokens:,} tokens, 8 heads, head 128)",
        "<= 1.5x",
        {
            "NumPy: both loaded, each pair's angle, ω by least squares": ctx.script(
                inputs.PROBE, pre, post
            ),
            "pecli rope probe pre.npy post.npy": [p, "rope", "probe", str(pre), str(post)],
        },
        ctx.rounds,
    )
    bias, keys = ctx.tmp / "bias.npy", "8192" if ctx.heavy else "2048"
    _make(p, "alibi", "bias", "--heads", "64", "--n", keys, "--queries", "128", "-o", str(bias))
    yield _loaded(
        ctx, f"alibi identify a 64 x 128 x {keys} float32 bias", bias, [p, "alibi", "identify"]
    )
    _clean(ctx.tmp)


def _loaded(ctx: Context, title: str, path: Path, cmd: list[str], *options: str) -> Group:
    """``cmd path options`` against ``np.load`` of the file."""
    label = " ".join(["pecli", *cmd[1:], path.name, *options])
    rows = {"np.load the file": ctx.script(inputs.LOAD, path), label: [*cmd, str(path), *options]}
    return Group(title, "<= 1.5x", rows, ctx.rounds)


def gguf(ctx: Context) -> Iterator[Group]:
    model = ctx.tmp / "llama31-q8.gguf"
    here = str(Path(__file__).parent)  # built in a child: the driver stays small (see timed)
    code = "import sys; sys.path.insert(0, sys.argv[1]); import bench_headline_inputs as i; "
    _make(
        *ctx.script(
            code + "from pathlib import Path; i.llama31_gguf(Path(sys.argv[2]))", here, model
        )
    )
    config = inputs.llama31_config(ctx.tmp / "config.json")
    yield Group(
        f"a Llama 3.1 8B Q8_0 GGUF ({model.stat().st_size / 1e9:.1f} GB, 128,256-token vocabulary)",
        "<= 1.2x",
        {
            "walk the header, read rope_freqs (struct + NumPy)": ctx.script(
                inputs.GGUF_READ, model
            ),
            "pecli gguf check model.gguf --config config.json": [
                *[ctx.pecli, "gguf", "check", str(model), "--config", str(config)]
            ],
            "pecli gguf show model.gguf": [ctx.pecli, "gguf", "show", str(model)],
        },
        ctx.rounds,
    )
    _clean(ctx.tmp)


def precision(ctx: Context) -> Iterator[Group]:
    p = ctx.pecli
    yield Group(
        "precision: float32 framework arithmetic against the exact table, per decade",
        "<= 1.2x",
        {
            "NumPy: float32 and float64 tables, worst error per decade": ctx.script(
                inputs.PRECISION.format(n=100_000, d=512, base=1e4, start=1)
            ),
            "pecli precision -q (d 512, n 100000)": [p, "precision", "-q"],
        },
        ctx.rounds,
    )
    yield Group(
        "rope precision: float32 angles against exact, per decade",
        "<= 1.2x",
        {
            "NumPy: float32 and float64 angles, worst error per decade": ctx.script(
                inputs.PRECISION.format(n=131_072, d=128, base=1e4, start=0)
            ),
            "pecli rope precision -q (head 128, n 131072)": [p, "rope", "precision", "-q"],
        },
        ctx.rounds,
    )


FIGURES = (
    ("heatmap", ["heatmap", "--d", "128", "--n", "100"], figures.HEATMAP),
    ("plot-waves", ["plot-waves"], figures.WAVES),
    ("plot-fourier", ["plot-fourier"], figures.FOURIER),
    ("plot-grid", ["plot-grid", "14", "14", "--d", "64"], figures.GRID),
    ("plot-similarity", ["plot-similarity"], figures.SIMILARITY),
    ("plot-spectrum", ["plot-spectrum"], figures.SPECTRUM),
    (
        "plot-alibi",
        ["plot-alibi", "--heads", "12", "--compare", "next-power-of-two"],
        figures.ALIBI,
    ),
    ("plot-t5-buckets", ["plot-t5-buckets"], figures.T5),
    ("rope plot-axes", ["rope", "plot-axes", "--preset", "wan"], figures.AXES),
)


def plots(ctx: Context) -> Iterator[Group]:
    for name, args, anchor in FIGURES:
        label = f"pecli {' '.join(args)} -o fig.png"
        yield Group(
            f"figure: {name} (PNG)",
            "<= 1.2x",
            {
                "matplotlib.figure: the same panels": ctx.script(anchor, ctx.tmp / "a.png"),
                label: [ctx.pecli, *args, "-o", str(ctx.tmp / "fig.png")],
            },
            ctx.rounds,
        )
    _clean(ctx.tmp)
