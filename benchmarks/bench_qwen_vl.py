"""Qwen2-VL's M-RoPE on a 32,768-token layout: pecli against transformers' own code.

transformers' side runs in the fixture venv (torch, transformers; never installed here):
``Qwen2VLModel.get_rope_index`` on the layout (a tiny config: the weights are never used),
then ``Qwen2VLRotaryEmbedding`` at those ids (head 128, θ 10^6, mrope_section [16, 24, 24]),
its (3, seq) ids and its cos | sin (seq, 256 float32) saved with ``np.save``. pecli's side:
``pecli rope mrope-ids --tokens LAYOUT -o ids.npy`` and ``pecli rope axes --preset qwen2-vl
--tokens LAYOUT -o cache.npy``, the same numbers (the ids equal; the cache within an ulp of
transformers' float32 arithmetic, exact where it rounds once). Whole processes, interleaved
rounds, CPU and wall; the transformers script also prints the time of its calls alone (import
and model construction excluded), so both readings are on the table.

Skipped (status 0, one line) unless the venv is given: ``--libraries PATH`` or the
``PECLI_LIBRARIES_VENV`` variable (a venv folder, e.g. .venv-libraries or /work/venv-libraries).
Run: python benchmarks/bench_qwen_vl.py --libraries .venv-libraries [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_headline import load, timed
from bench_headline_inputs import QWEN_LAYOUT, QWEN_SEGMENTS

#: transformers' side: the ids and the cache of the layout, saved; the calls' own time printed.
TRANSFORMERS = """
import sys, time
sys.modules.setdefault("torchvision", None)  # transformers probes it; never needed here
import numpy as np, torch
from transformers import Qwen2VLConfig
from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLModel, Qwen2VLRotaryEmbedding
torch.set_grad_enabled(False)
segments = eval(sys.argv[1])
text = dict(hidden_size=256, num_attention_heads=2, num_key_value_heads=2, num_hidden_layers=1,
            intermediate_size=64, vocab_size=100, max_position_embeddings=131072, head_dim=128,
            rope_parameters=dict(rope_type="default", rope_theta=1e6, mrope_section=[16, 24, 24]))
config = Qwen2VLConfig(text_config=text, vision_config=dict(depth=1, num_heads=2, hidden_size=64,
                                                            spatial_merge_size=2))
model, rotary = Qwen2VLModel(config), Qwen2VLRotaryEmbedding(config.text_config)
types, images, videos = [], [], []
for kind, size in segments:
    if kind == "text":
        types += [0] * size
        continue
    (images if kind == "image" else videos).append(size)
    types += [1 if kind == "image" else 2] * (size[0] * (size[1] // 2) * (size[2] // 2))
begin = time.perf_counter()
ids, deltas = model.get_rope_index(
    input_ids=torch.zeros(1, len(types), dtype=torch.long),
    mm_token_type_ids=torch.tensor([types]),
    image_grid_thw=torch.tensor(images) if images else None,
    video_grid_thw=torch.tensor(videos) if videos else None,
)
middle = time.perf_counter()
cos, sin = rotary(torch.zeros(1, dtype=torch.float32), ids)
end = time.perf_counter()
np.save(sys.argv[2], ids[:, 0].numpy())
np.save(sys.argv[3], torch.cat([cos[0], sin[0]], dim=-1).numpy())
print(f"get_rope_index {middle - begin:.4f} s, rotary {end - middle:.4f} s", file=sys.stderr)
"""


def libraries(given: str | None) -> Path | None:
    """The fixture venv's python, or None when no venv is given."""
    folder = given or os.environ.get("PECLI_LIBRARIES_VENV")
    if not folder:
        return None
    python = Path(folder) / "bin" / "python"
    if not python.exists():
        raise SystemExit(f"bench_qwen_vl: no interpreter at {python}")
    return python


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--libraries", help="the fixture venv (torch, transformers)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--pecli", default=str(Path(sys.executable).with_name("pecli")))
    args = parser.parse_args(argv)
    python = libraries(args.libraries)
    if python is None:
        print("bench_qwen_vl: skipped (give --libraries VENV or PECLI_LIBRARIES_VENV)")
        return
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as folder:
        tmp = Path(folder)
        rows = {
            "transformers: get_rope_index + Qwen2VLRotaryEmbedding, np.save": [
                *[str(python), "-c", TRANSFORMERS, repr(QWEN_SEGMENTS)],
                *[str(tmp / "t_ids.npy"), str(tmp / "t_cache.npy")],
            ],
            "pecli rope mrope-ids --tokens LAYOUT -o ids.npy": [
                *[args.pecli, "rope", "mrope-ids", "--tokens", QWEN_LAYOUT],
                *["-o", str(tmp / "ids.npy"), "-q"],
            ],
            "pecli rope axes --preset qwen2-vl --tokens LAYOUT -o cache.npy": [
                *[args.pecli, "rope", "axes", "--preset", "qwen2-vl", "--tokens", QWEN_LAYOUT],
                *["-o", str(tmp / "cache.npy"), "-q"],
            ],
        }
        calls = subprocess.run(rows[next(iter(rows))], capture_output=True, text=True, check=True)
        for cmd in list(rows.values())[1:]:
            timed(cmd)
        runs: dict[str, list[tuple[float, float, float]]] = {label: [] for label in rows}
        for _ in range(args.repeats):
            for label, cmd in rows.items():
                runs[label].append(timed(cmd))
        same(tmp)  # after the runs: a child's peak counts its parent's size at the fork
    show(runs, args.repeats, calls.stderr.strip().splitlines()[-1])


def same(tmp: Path) -> None:
    """The ids equal transformers'; the cache within 2 float32 ulps of its float32 arithmetic."""
    import numpy as np

    ids, theirs = np.load(tmp / "ids.npy"), np.load(tmp / "t_ids.npy")
    if not np.array_equal(ids, theirs):
        raise SystemExit("bench_qwen_vl: pecli's ids differ from transformers'")
    cache, theirs = np.load(tmp / "cache.npy"), np.load(tmp / "t_cache.npy")
    if cache.shape != theirs.shape:
        raise SystemExit(f"bench_qwen_vl: cache {cache.shape} against {theirs.shape}")
    worst = float(np.max(np.abs(cache.astype(np.float64) - theirs)))
    print(f"ids equal; cache {cache.shape}, largest |pecli - transformers| {worst:.3g}")


def show(runs: dict[str, list[tuple[float, float, float]]], repeats: int, calls: str) -> None:
    first = next(iter(runs))
    wall = statistics.median(r[0] for r in runs[first])
    cpu = statistics.median(r[1] for r in runs[first])
    print(f"\nQwen2-VL, 32,768 tokens ({repeats} interleaved rounds, load {load()})")
    print(f"  {'':64} {'wall s':>7} {'cpu s':>6} {'x wall':>7} {'x cpu':>6} {'peak MB':>8}")
    for label, results in runs.items():
        w = statistics.median(r[0] for r in results)
        c = statistics.median(r[1] for r in results)
        peak = max(r[2] for r in results)
        print(f"  {label:64} {w:7.3f} {c:6.3f} {w / wall:7.2f} {c / cpu:6.2f} {peak:8.0f}")
    print(f"  transformers' calls alone (last run, import and model excluded): {calls}")


if __name__ == "__main__":
    main()
