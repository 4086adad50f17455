"""`make bench`'s inputs and anchors: the files commands read, the scripts they are timed against.

Each anchor is the cheapest honest script in plain NumPy (polars, matplotlib where the output
needs them) producing what its command produces: the same bytes to the same kind of file, the
same numbers printed, the same panels drawn. Inputs are made once per run with the plain
venv's own Python (``make`` writes the files, never a library the user lacks).
"""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

#: np.save of a (n, d) array of ``dtype`` filled with 0.5 (or 1): the bytes of a table.
SAVE = (
    "import numpy as np, sys; a = np.empty(({shape}), np.{dtype}); a.fill(1); "
    "np.save(sys.argv[1], a)"
)
#: Reading a file in 16 MB pieces: what any reader of a table or a checkpoint pays.
READ = (
    "import sys; b = bytearray(16 << 20); f = open(sys.argv[1], 'rb', buffering=0)\n"
    "while f.readinto(b): pass"
)
#: np.load of a .npy file: what reading a table or a cache costs before any analysis.
LOAD = "import sys, numpy as np; np.load(sys.argv[1])"
TABLE = (  # the table compute writes (start 1, interleaved), in NumPy, float32
    "import math, sys, numpy as np; n, d = 10000, 512\n"
    "p = np.arange(1, n + 1, dtype=np.float64)[:, None]\n"
    "w = np.exp(np.arange(0, d, 2, dtype=np.float64) * (-math.log(1e4) / d))\n"
    "t = np.empty((n, d), np.float32); t[:, 0::2] = np.sin(p * w); t[:, 1::2] = np.cos(p * w)\n"
    "names = [f'{k}_{i}' for i in range(1, d // 2 + 1) for k in ('sin', 'cos')]\n"
)
POLARS = TABLE + (
    "import polars as pl\npl.DataFrame(t, schema=names, orient='row').write_csv(sys.stdout.buffer)"
)
SAVETXT = TABLE + (
    "np.savetxt(sys.stdout.buffer, t, fmt='%.9g', delimiter=',', header=','.join(names),"
    " comments='')"
)
#: The zoo's writers: the same numbers in float64 NumPy (np.sin / np.cos, not correctly
#: rounded), saved as float32: what a script computing them costs at its cheapest.
TIMESTEP = (  # FLUX: get_timestep_embedding(1000 t, 256, flip_sin_to_cos=True, shift 0)
    "import math, sys, numpy as np\nt = np.linspace(0, 1, {n}) * 1000.0\n"
    "w = np.exp(-math.log(1e4) * np.arange(128) / 128); a = t[:, None] * w\n"
    "np.save(sys.argv[1], np.concatenate([np.cos(a), np.sin(a)], 1).astype(np.float32))"
)
FOURIER = (  # [sin x, cos x, …, sin kx, cos kx]
    "import sys, numpy as np\nx = np.linspace(0, 1, {n}); a = x[:, None] * np.arange(1, 65)\n"
    "out = np.empty((x.size, 128), np.float32)\n"
    "out[:, 0::2] = np.sin(a); out[:, 1::2] = np.cos(a)\n"
    "np.save(sys.argv[1], out)"
)
RANDOM_FOURIER = (  # score-SDE GaussianFourierProjection: [sin 2π x W, cos 2π x W]
    "import math, sys, numpy as np; from safetensors.numpy import load_file\n"
    "w = load_file(sys.argv[2])['time_proj.W'].astype(np.float64)\n"
    "a = np.linspace(-3, 3, {n})[:, None] * w * (2 * math.pi)\n"
    "np.save(sys.argv[1], np.concatenate([np.sin(a), np.cos(a)], 1).astype(np.float32))"
)
T5 = (  # bidirectional, 32 buckets, max_distance 128: T5's _relative_position_bucket
    "import math, sys, numpy as np\nk = {n}; r = np.arange(k)[None, :] - np.arange(k)[:, None]\n"
    "nb = 16; n = np.abs(r); exact = nb // 2\n"
    "large = exact + (np.log(np.maximum(n, 1) / exact) / math.log(128 / exact) * (nb - exact))\n"
    "b = np.where(n < exact, n, np.minimum(large.astype(np.int64), nb - 1)) + nb * (r > 0)\n"
    "np.save(sys.argv[1], b.astype(np.int64))"
)
MOCHI = (  # diffusers MochiRoPE: frames, centred scaled cells; angles Σ_a pos·freqs[a, h, f]
    "import math, sys, numpy as np; from safetensors.numpy import load_file\n"
    "f = load_file(sys.argv[2])['pos_frequencies'].astype(np.float64)\n"
    "T, H, W = {t}, {h}, {w}; s = math.sqrt(192 * 192 / (H * W))\n"
    "t, r, c = np.meshgrid(np.arange(T), (np.arange(H) - H / 2 + 0.5) * s,\n"
    "                      (np.arange(W) - W / 2 + 0.5) * s, indexing='ij')\n"
    "pos = np.stack([t.ravel(), r.ravel(), c.ravel()], 1)\n"
    "a = np.einsum('na,ahf->nhf', pos, f).reshape(pos.shape[0], -1)\n"
    "np.save(sys.argv[1], np.concatenate([np.cos(a), np.sin(a)], 1).astype(np.float32))"
)
XPOS = (  # torchscale: ζ_i^((t - c)/γ), ζ_i = (2i + 0.4d)/(1.4d), c = ceil(n/2), interleaved
    "import math, sys, numpy as np\nn, d = {n}, 128\n"
    "z = (np.arange(0, d, 2) + 0.4 * d) / (1.4 * d)\n"
    "p = (np.arange(n) - math.ceil(n / 2)) / 512.0\n"
    "np.save(sys.argv[1], np.repeat(z[None, :] ** p[:, None], 2, 1).astype(np.float32))"
)
#: ``add``: the data read, the table computed (start 0, interleaved), added, saved.
ADD = (
    "import math, sys, numpy as np\nx = np.load(sys.argv[1]); n, d = x.shape\n"
    "p = np.arange(n, dtype=np.float64)[:, None]\n"
    "w = np.exp(np.arange(0, d, 2, dtype=np.float64) * (-math.log(1e4) / d))\n"
    "y = np.empty((n, d), np.float64); y[:, 0::2] = np.sin(p * w); y[:, 1::2] = np.cos(p * w)\n"
    "np.save(sys.argv[2], (x + y).astype(np.float32))"
)
#: ``diff``: the largest |a − b| and where, printed.
DIFF = (
    "import sys, numpy as np\na = np.load(sys.argv[1]); b = np.load(sys.argv[2])\n"
    "e = np.abs(a.astype(np.float64) - b); k = int(np.argmax(e)); r, c = divmod(k, a.shape[1])\n"
    "print(f'max |a - b| = {e.flat[k]:.9g} at row {r}, column {c}')"
)
#: ``precision``: float32 angles and sin/cos against float64, the worst error per decade.
PROBE_DUMPS = (  # q before and after a half-split RoPE (θ 500000), float32 (tokens, heads, d)
    "import sys, numpy as np; t, h, d = int(sys.argv[3]), 8, 128\n"
    "q = np.random.default_rng(0).normal(size=(t, h, d)).astype(np.float32)\n"
    "w = 500000.0 ** (-np.arange(0, d, 2) / d); a = np.arange(t)[:, None] * w\n"
    "c, s = np.cos(a)[:, None, :], np.sin(a)[:, None, :]\n"
    "x, y = q[..., : d // 2], q[..., d // 2 :]\n"
    "np.save(sys.argv[1], q); np.save(sys.argv[2], np.concatenate("
    "[x * c - y * s, x * s + y * c], -1).astype(np.float32))\n"
)
PROBE = (  # the least a reader does: both loaded, each pair's angle, ω by least squares
    "import sys, numpy as np; a = np.load(sys.argv[1]).astype(np.float64)\n"
    "b = np.load(sys.argv[2]).astype(np.float64); h = a.shape[-1] // 2\n"
    "z = (b[..., :h] + 1j * b[..., h:]) / (a[..., :h] + 1j * a[..., h:])\n"
    "turn = np.unwrap(np.angle(z.mean(axis=1)), axis=0); p = np.arange(len(a))\n"
    "print(np.linalg.lstsq(p[:, None], turn, rcond=None)[0][0][:4])\n"
)
PRECISION = (
    "import math, numpy as np\nn, d = {n}, {d}\n"
    "w = np.exp(np.arange(0, d, 2, dtype=np.float64) * (-math.log({base}) / d))\n"
    "worst = {{}}\nfor lo in range(0, n, 8192):\n"
    "    p = np.arange(lo + {start}, min(n, lo + 8192) + {start}, dtype=np.float64)[:, None]\n"
    "    a32 = p.astype(np.float32) * w.astype(np.float32)\n"
    "    e = np.maximum(np.abs(np.sin(a32) - np.sin(p * w)), np.abs(np.cos(a32) - np.cos(p * w)))\n"
    "    for k, row in zip(np.floor(np.log10(np.maximum(p[:, 0], 1))).astype(int), e.max(1)):\n"
    "        worst[k] = max(worst.get(k, 0.0), float(row))\n"
    "for k, v in sorted(worst.items()): print(f'1e{{k}}: {{v:.3g}}')"
)
#: ``gguf check`` / ``show``: the header walked (keys, tensor infos), the rope tensor read.
GGUF_READ = """
import struct, sys, numpy as np
f = open(sys.argv[1], 'rb'); head = f.read(16 << 20); at = 24
n_tensors, n_kv = struct.unpack_from('<QQ', head, 8)
SIZES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
def string(at):
    n = struct.unpack_from('<Q', head, at)[0]
    return head[at + 8:at + 8 + n].decode(), at + 8 + n
def value(kind, at):
    if kind == 8:
        return string(at)
    if kind == 9:
        item, n = struct.unpack_from('<IQ', head, at); at += 12
        if item != 8:
            return None, at + n * SIZES[item]
        for _ in range(n):
            at += 8 + struct.unpack_from('<Q', head, at)[0]
        return None, at
    return None, at + SIZES[kind]
keys = {}
for _ in range(n_kv):
    key, at = string(at)
    keys[key], at = value(struct.unpack_from('<I', head, at)[0], at + 4)
tensors = {}
for _ in range(n_tensors):
    name, at = string(at)
    dims = struct.unpack_from('<I', head, at)[0]
    shape = struct.unpack_from(f'<{dims}Q', head, at + 4); at += 4 + 8 * dims
    tensors[name] = struct.unpack_from('<IQ', head, at) + (shape,); at += 12
start = at + (-at) % 32
kind, offset, shape = tensors['rope_freqs.weight']
f.seek(start + offset); freqs = np.frombuffer(f.read(4 * shape[0]), '<f4')
print(len(keys), 'keys,', len(tensors), 'tensors; rope_freqs', freqs.tolist())
"""


#: A 32,768-token Qwen2-VL layout (images and a video merged 2 x 2, text between): pecli's
#: ``--tokens`` words and the same as segments for transformers (bench_qwen_vl.py).
QWEN_LAYOUT = (
    "text:4000 image:1,128,128 text:2000 video:16,64,64 text:2000 image:1,96,128 text:1216"
)
QWEN_SEGMENTS = [
    ("text", 4000),
    ("image", (1, 128, 128)),
    ("text", 2000),
    ("video", (16, 64, 64)),
    ("text", 2000),
    ("image", (1, 96, 128)),
    ("text", 1216),
]


def llama31_config(path: Path) -> Path:
    """Llama 3.1's config.json (its rope fields as published; the GGUF fixtures' own)."""
    fixture = Path(__file__).parents[1] / "tests/fixtures/libraries/gguf/llama31.config.json"
    path.write_bytes(fixture.read_bytes())
    return path


def llama31_layers_config(path: Path) -> Path:
    """Llama 3.1 8B's config.json for ``rope layers``: the rope fields and its 32 layers."""
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    config = json.loads(llama31_config(path).read_text("utf-8"))
    path.write_text(json.dumps({**config, "num_hidden_layers": 32}), "utf-8")
    return path


def _llama3_factors() -> list[float]:
    """rope_freqs as llama.cpp's converter writes them for Llama 3.1 (float32 steps)."""
    import math

    import numpy as np

    freqs = 1.0 / (np.float32(500000.0) ** (np.arange(0, 128, 2, dtype=np.float32) / 128))
    out = []
    for freq in freqs.astype(np.float32):
        wavelen = 2 * math.pi / float(freq)
        if wavelen < 8192 / 4:
            out.append(1.0)
        elif wavelen > 8192 / 1:
            out.append(8.0)
        else:
            smooth = (8192 / wavelen - 1) / (4 - 1)
            out.append(1 / ((1 - smooth) / 8 + smooth))
    return [float(np.float32(x)) for x in out]


def _gguf_string(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def _gguf_kv(key: str, value: object) -> bytes:
    out = _gguf_string(key)
    if isinstance(value, str):
        return out + struct.pack("<I", 8) + _gguf_string(value)
    if isinstance(value, float):
        return out + struct.pack("<If", 6, value)
    if isinstance(value, int):
        return out + struct.pack("<II", 4, value)
    items = list(value)  # type: ignore[call-overload]
    if isinstance(items[0], str):
        return out + struct.pack("<IIQ", 9, 8, len(items)) + b"".join(map(_gguf_string, items))
    return out + struct.pack(f"<IIQ{len(items)}i", 9, 5, len(items), *items)


def _gguf_tensors() -> list[tuple[str, tuple[int, ...], int]]:
    """Llama 3.1 8B's tensors in Q8_0 (type 8), norms and rope_freqs in F32 (ggml order)."""
    q8, f32 = 8, 0
    tensors = [("rope_freqs.weight", (64,), f32), ("token_embd.weight", (4096, 128256), q8)]
    for layer in range(32):
        blk = f"blk.{layer}."
        tensors += [
            (blk + "attn_norm.weight", (4096,), f32),
            (blk + "attn_q.weight", (4096, 4096), q8),
            (blk + "attn_k.weight", (4096, 1024), q8),
            (blk + "attn_v.weight", (4096, 1024), q8),
            (blk + "attn_output.weight", (4096, 4096), q8),
            (blk + "ffn_norm.weight", (4096,), f32),
            (blk + "ffn_gate.weight", (4096, 14336), q8),
            (blk + "ffn_up.weight", (4096, 14336), q8),
            (blk + "ffn_down.weight", (14336, 4096), q8),
        ]
    return [*tensors, ("output_norm.weight", (4096,), f32), ("output.weight", (4096, 128256), q8)]


def llama31_gguf(path: Path) -> Path:
    """A Llama 3.1 8B Q8_0 GGUF as llama.cpp lays it out: header, vocabulary, 8.5 GB of weights.

    The vocabulary is 128,256 made-up tokens and 280,147 merges (the real file's counts); the
    weights are a hole in a sparse file (no reader of the header touches them), only the
    ``rope_freqs`` tensor is written.
    """
    keys = {
        "general.architecture": "llama",
        "general.name": "Meta Llama 3.1 8B Instruct",
        "general.file_type": 7,
        "llama.block_count": 32,
        "llama.context_length": 131072,
        "llama.embedding_length": 4096,
        "llama.feed_forward_length": 14336,
        "llama.attention.head_count": 32,
        "llama.attention.head_count_kv": 8,
        "llama.rope.freq_base": 500000.0,
        "llama.attention.layer_norm_rms_epsilon": 1e-5,
        "llama.rope.dimension_count": 128,
        "llama.vocab_size": 128256,
        "tokenizer.ggml.model": "gpt2",
        "tokenizer.ggml.pre": "llama-bpe",
        "tokenizer.ggml.tokens": [f"tok{k:x}" * (1 + k % 3) for k in range(128256)],
        "tokenizer.ggml.token_type": [1] * 128256,
        "tokenizer.ggml.merges": [f"a{k:x} b{k % 977:x}" for k in range(280147)],
        "tokenizer.ggml.bos_token_id": 128000,
        "tokenizer.ggml.eos_token_id": 128009,
    }
    tensors = _gguf_tensors()
    blocks = {0: (1, 4), 8: (32, 34)}  # ggml type: elements and bytes per block
    head = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(keys)))
    for key, value in keys.items():
        head += _gguf_kv(key, value)
    offset = 0
    for name, shape, kind in tensors:
        head += _gguf_string(name) + struct.pack(
            f"<I{len(shape)}QIQ", len(shape), *shape, kind, offset
        )
        count, size = blocks[kind]
        nbytes = (shape[0] * (shape[1] if len(shape) > 1 else 1)) // count * size
        offset += nbytes + (-nbytes) % 32
    head += bytes((-len(head)) % 32)
    with open(path, "wb") as out:
        out.write(head)
        out.write(struct.pack("<64f", *_llama3_factors()))
        out.truncate(len(head) + offset)
    return path


def safetensors_checkpoint(python: str, path: Path, weight_rows: int) -> None:
    """A .safetensors file: a 4096 x 768 sinusoidal table beside a large float32 weight."""
    code = (
        "import sys, numpy as np; from safetensors.numpy import save_file; "
        "from pecli import encoding_table; "
        f"w = np.random.default_rng(13).standard_normal(({weight_rows}, 1024), dtype=np.float32); "
        "save_file({'encoder.pos_embed': encoding_table(d=768, n=4096, start=0), "
        "'decoder.weight': w}, sys.argv[1])"
    )
    subprocess.run([python, "-c", code, str(path)], check=True)


def fourier_checkpoint(python: str, path: Path) -> None:
    """A score-SDE GaussianFourierProjection: W of 128 frequencies, N(0, 16²)."""
    code = (
        "import sys, numpy as np; from safetensors.numpy import save_file; "
        "w = (16 * np.random.default_rng(5).standard_normal(128)).astype(np.float32); "
        "save_file({'time_proj.W': w}, sys.argv[1])"
    )
    subprocess.run([python, "-c", code, str(path)], check=True)


def embeddings(python: str, path: Path, n: int, d: int) -> None:
    """An (n, d) float32 data matrix of N(0, 1) values."""
    code = (
        "import sys, numpy as np; np.save(sys.argv[1], np.random.default_rng(7)"
        f".standard_normal(({n}, {d}), dtype=np.float32))"
    )
    subprocess.run([python, "-c", code, str(path)], check=True)
