"""`make bench`'s rows: every pecli command, each against its anchor, in groups run in turn.

A group is an anchor (its first row) and the commands measured against it, run round after
round in turn. Each group function makes its inputs, yields its groups, then deletes them,
so the disk holds one group's files at a time; bench_headline.GROUPS runs them in order.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import bench_headline_inputs as inputs


@dataclass
class Context:
    """Where the run is: the plain and pinned interpreters, the scratch folder, its sizes."""

    py: str
    pinned: str
    tmp: Path
    quick: bool
    rounds: int
    heavy: bool = False

    @property
    def pecli(self) -> str:
        return str(Path(self.py).with_name("pecli"))

    def script(self, code: str, *args: object) -> list[str]:
        return [self.py, "-c", code, *map(str, args)]


@dataclass
class Group:
    """An anchor (the first row) and the commands measured against it."""

    title: str
    bound: str
    rows: dict[str, list[str]]
    rounds: int
    statuses: tuple[int, ...] = (0,)
    notes: list[str] = field(default_factory=list)


def fresh(cmd: list[str], tmp: Path, suffix: str = "npy") -> list[str]:
    """``cmd`` writing ``-o`` to a new file each run (bash adds about 2 ms).

    Replacing last run's output renames over a file ext4 must free (``discard``) and, by its
    ``auto_da_alloc`` rule, flush first: 60-80 ms for 128 MB on this disk (``strace -T`` on
    ``renameat``), where the anchor's ``O_TRUNC`` of a file never written to disk takes 6 ms.
    """
    return ["bash", "-c", f'exec "$@" -o "{tmp}/fresh-$BASHPID.{suffix}"', "_", *cmd]


def _clean(tmp: Path) -> None:
    for made in tmp.iterdir():
        if made.is_dir():  # rope layers' config.json sits in a folder of its own
            shutil.rmtree(made)
        else:
            made.unlink()


def _shape(ctx: Context, path: Path) -> tuple[str, str]:
    """The shape (``n, d``) and dtype name of a .npy file pecli wrote."""
    code = (
        "import sys, numpy as np; a = np.load(sys.argv[1], mmap_mode='r'); print(a.shape, a.dtype)"
    )
    out = subprocess.run(ctx.script(code, path), capture_output=True, text=True, check=True)
    shape, dtype = out.stdout.rsplit(" ", 1)
    return shape.strip("()").rstrip(","), dtype.strip()


def start_up(ctx: Context) -> Iterator[Group]:
    """Commands that report (or write a few KB) against ``import numpy, typer``."""
    p, cfg = ctx.pecli, inputs.llama31_config(ctx.tmp / "config.json")
    layers_cfg = inputs.llama31_layers_config(ctx.tmp / "layers" / "config.json")
    rows = {
        "python -c 'import numpy, typer'": [ctx.py, "-c", "import numpy, typer"],
        "pecli --help": [p, "--help"],
        "pecli --version": [p, "--version"],
        "pecli compute --d 512 --n 100 -o start.npy": [
            *[p, "compute", "--d", "512", "--n", "100", "-o", str(ctx.tmp / "start.npy")]
        ],
        "pecli conventions": [p, "conventions"],
        "pecli wavelengths --d 512": [p, "wavelengths", "--d", "512"],
        "pecli rope freqs --rope-type llama3 (Llama 3.1)": [
            *[p, "rope", "freqs", "--rope-type", "llama3", "--theta", "500000", "--factor", "8"],
            *["--low-freq-factor", "1", "--high-freq-factor", "4"],
            *["--original-max-position-embeddings", "8192"],
        ],
        "pecli rope config config.json": [p, "rope", "config", str(cfg)],
        "pecli rope engines config.json": [p, "rope", "engines", str(cfg)],
        "pecli rope layers config.json": [p, "rope", "layers", str(layers_cfg)],
        "pecli rope axis-map --preset wan": [p, "rope", "axis-map", "--preset", "wan"],
        "pecli rope irope --layers 48": [p, "rope", "irope", "--layers", "48"],
        "pecli rope permute --heads 32 --head-dim 128": [
            *[p, "rope", "permute", "--heads", "32", "--head-dim", "128"]
        ],
        "pecli rope mrope-ids (32k tokens) -o ids.npy": [
            *[
                p,
                "rope",
                "mrope-ids",
                "--tokens",
                inputs.QWEN_LAYOUT,
                "-o",
                str(ctx.tmp / "ids.npy"),
            ]
        ],
        "pecli alibi slopes --heads 64": [p, "alibi", "slopes", "--heads", "64"],
        "pecli t5-buckets": [p, "t5-buckets"],
    }
    notes = []
    probe = subprocess.run([p, "rope", "layers", "--help"], capture_output=True, text=True)
    if probe.returncode:
        del rows["pecli rope layers config.json"]
        notes.append(
            "skipped: pecli rope layers config.json (no such command yet; "
            "its row runs once the command lands)"
        )
    yield Group(
        "start-up, plain pip install .", "<= 1.2x", rows, 5 if ctx.quick else 21, notes=notes
    )
    q = ctx.pinned
    pinned = str(Path(q).with_name("pecli"))
    yield Group(
        "start-up, pinned (make install)",
        "<= 1.2x",
        {
            "python -c 'import numpy, typer'": [q, "-c", "import numpy, typer"],
            "pecli --help": [pinned, "--help"],
            "pecli --version": [pinned, "--version"],
            "pecli compute --d 512 --n 100 -o start.npy": [
                *[pinned, "compute", "--d", "512", "--n", "100", "-o", str(ctx.tmp / "start.npy")]
            ],
        },
        5 if ctx.quick else 21,
    )
    _clean(ctx.tmp)


def csv(ctx: Context) -> Iterator[Group]:
    yield Group(
        "CSV 10,000 x 512 float32 to stdout (> /dev/null)",
        "<= 1.0x",
        {
            "NumPy table + polars.DataFrame.write_csv": ctx.script(inputs.POLARS),
            "pecli compute --d 512 --n 10000 --format csv": [
                *[ctx.pecli, "compute", "--d", "512", "--n", "10000", "--format", "csv"]
            ],
            "NumPy table + np.savetxt('%.9g')": ctx.script(inputs.SAVETXT),
        },
        ctx.rounds,
    )


def writer(
    ctx: Context,
    title: str,
    label: str,
    cmd: list[str],
    bound: str = "<= 1.2x",
    new_file: bool = True,
    anchor: tuple[str, list[str]] | None = None,
) -> Iterator[Group]:
    """``cmd`` (without ``-o``) against np.save of the same bytes: replacing last run's output,
    and (``new_file``) writing a new file each run."""
    out = ctx.tmp / "out.npy"
    subprocess.run([*cmd, "-o", str(out)], check=True, capture_output=True)
    shape, dtype = _shape(ctx, out)
    save = inputs.SAVE.format(shape=shape, dtype=dtype)
    name, script = anchor or ("np.save of the same bytes", ctx.script(save, ctx.tmp / "s.npy"))
    rows = {
        name: script,
        label: [*cmd, "-o", str(out)],
        "  the same, to a new file (no output replaced)": fresh(cmd, ctx.tmp),
    }
    if not new_file:
        rows.popitem()
    yield Group(f"{title}: ({shape}) {dtype} .npy", bound, rows, ctx.rounds)
    _clean(ctx.tmp)


def writers(ctx: Context) -> Iterator[Group]:
    p, q = ctx.pecli, ctx.quick
    n = 100_000 if q else 1_000_000
    yield from writer(
        ctx,
        "compute",
        f"pecli compute --d 512 --n {n} -o t.npy",
        [p, "compute", "--d", "512", "--n", str(n), "-q"],
        new_file=False,  # 2 GB a run: six new files would fill the disk
    )
    n, side, grid, queries = (16_384, 64, "5x30x52", 16) if q else (131_072, 256, "21x60x104", 128)
    rows = (  # title, label, command without -o, bound
        (
            "RoPE cache",
            f"pecli rope cache --theta 500000 --head-dim 128 --n {n} -o r.npy",
            [p, "rope", "cache", "--theta", "500000", "--head-dim", "128", "--n", str(n)],
            "<= 1.5x",
        ),
        (
            "grid",
            f"pecli grid {side} {side} --d 1024 -o grid.npy",
            [p, "grid", str(side), str(side), "--d", "1024"],
            "<= 1.5x",
        ),
        (
            "multi-axis RoPE, Wan",
            f"pecli rope axes --preset wan --grid {grid} -o wan.npy",
            [p, "rope", "axes", "--preset", "wan", "--grid", grid],
            "<= 1.2x",
        ),
        (
            "ALiBi bias (the 2^26-value cap: 128 of 8192 queries)",
            f"pecli alibi bias --heads 64 --n 8192 --queries {queries} -o b.npy",
            [p, "alibi", "bias", "--heads", "64", "--n", "8192", "--queries", str(queries)],
            "<= 1.2x",
        ),
    )
    for title, label, cmd, bound in rows:
        yield from writer(ctx, title, label, [*cmd, "-q"], bound)


def small_writers(ctx: Context) -> Iterator[Group]:
    """The zoo's and Fourier's writers, each against NumPy computing the same numbers."""
    p, n, s = ctx.pecli, 16_384 if ctx.quick else 131_072, ctx.tmp / "s.npy"
    numpy = "NumPy: the same numbers in float64, np.save"
    yield from writer(
        ctx,
        "xPos scales",
        f"pecli xpos --head-dim 128 --n {n // 2} -o scales.npy",
        [p, "xpos", "--head-dim", "128", "--n", str(n // 2), "-q"],
        anchor=(numpy, ctx.script(inputs.XPOS.format(n=n // 2), s)),
    )
    yield from writer(
        ctx,
        "timestep embedding (FLUX)",
        f"pecli timestep --linspace 0 1 {n} -o ts.npy",
        [p, "timestep", "--linspace", "0", "1", str(n), "-q"],
        anchor=(numpy, ctx.script(inputs.TIMESTEP.format(n=n), s)),
    )
    yield from writer(
        ctx,
        "Fourier features",
        f"pecli fourier --linspace 0 1 {2 * n} --k 64 --dtype float32 -o ff.npy",
        [p, "fourier", "--linspace", "0", "1", str(2 * n), "--k", "64", "--dtype", "float32", "-q"],
        anchor=(numpy, ctx.script(inputs.FOURIER.format(n=2 * n), s)),
    )
    model = ctx.tmp.parent / "rff.safetensors"
    inputs.fourier_checkpoint(ctx.py, model)
    yield from writer(
        ctx,
        "random Fourier features (128 frequencies)",
        f"pecli random-fourier rff.safetensors --linspace -3 3 {n} -o rf.npy",
        [p, "random-fourier", str(model), "--linspace", "-3", "3", str(n), "-q"],
        anchor=(numpy, ctx.script(inputs.RANDOM_FOURIER.format(n=n), s, model)),
    )
    model.unlink()
    mochi = Path(__file__).resolve().parent.parent / "tests/fixtures/libraries/dit_presets"
    mochi = mochi / "mochi_pos_frequencies.safetensors"
    t, h, w = (2, 15, 26) if ctx.quick else (4, 30, 53)
    yield from writer(
        ctx,
        "learned multi-axis RoPE (Mochi's frequencies)",
        f"pecli rope learned-axes mochi.safetensors --grid {t}x{h}x{w} -o mochi.npy",
        [p, "rope", "learned-axes", str(mochi), "--grid", f"{t}x{h}x{w}", "-q"],
        anchor=(numpy, ctx.script(inputs.MOCHI.format(t=t, h=h, w=w), s, mochi)),
    )
    keys = 1024 if ctx.quick else 4096
    yield from writer(
        ctx,
        "T5 buckets",
        f"pecli t5-buckets --keys {keys} -o t5.npy",
        [p, "t5-buckets", "--keys", str(keys), "-q"],
        anchor=(numpy, ctx.script(inputs.T5.format(n=keys), s)),
    )


def add(ctx: Context) -> Iterator[Group]:
    n = 16_384 if ctx.quick else 131_072
    data, out = ctx.tmp / "emb.npy", ctx.tmp / "added.npy"
    inputs.embeddings(ctx.py, data, n, 512)
    yield Group(
        f"add the encoding to a {n:,} x 512 float32 matrix (.npy)",
        "<= 1.2x",
        {
            "np.load + NumPy table + add + np.save": ctx.script(
                inputs.ADD, data, ctx.tmp / "s.npy"
            ),
            "pecli add emb.npy --start 0 -o added.npy": [
                *[ctx.pecli, "add", str(data), "--start", "0", "-o", str(out), "-q"]
            ],
        },
        ctx.rounds,
    )
    _clean(ctx.tmp)


def certificate(ctx: Context) -> Iterator[Group]:
    """The correct-rounding certificate's cost (issue 36: at most 5 %): each certified writer
    with and without it, in the same process set-up (benchmarks/bench_certificate.py runs
    pecli with the rounding done ``off``: as before the certificate, no bound and no check,
    or by the ``compiled`` pass, the installed default). The bound is issue 36's, met by its two
    commands (the table, the rotary cache); a writer past it is marked ``over``.

    The output goes to stdout, which :func:`timed` sends to /dev/null: replacing a 2 GB file
    costs seconds of system time (ext4 writes the new file out at the rename over the old one)
    that land on whichever run comes next, certified or not, and are no part of the
    certificate (measured 6 December: user time 0.67-0.99 s either way, system 0.6-4.9 s)."""
    import bench_certificate

    script = str(Path(__file__).resolve().with_name("bench_certificate.py"))
    for name, args in bench_certificate.commands(ctx.quick).items():
        label = name.replace("-o NAME.npy", "-o - > /dev/null")
        out = ["-q", "-o", "-", "--format", "npy"]
        yield Group(
            f"the certificate's cost: {label}",
            "<= 1.05x",
            {
                "without the certificate (bench_certificate.py off)": [
                    *[ctx.py, script, "run", "off", "--", *args, *out]
                ],
                f"{label}, certified (compiled pass)": [
                    *[ctx.py, script, "run", "compiled", "--", *args, *out]
                ],
            },
            ctx.rounds,
        )
        _clean(ctx.tmp)
