"""``--spatial-merge-size`` on ``rope axes`` and ``rope identify-axes`` (with ``--tokens``).

Qwen2-VL's get_rope_index merges an image grid's H and W by the vision config's
spatial_merge_size. The ids below are written out by hand from that rule; the cache from
Qwen2-VL's map (T×16 H×24 W×24 pairs, half-split, θ 1e6, ω_j = θ^(−2j/128)) in float64.
"""

from __future__ import annotations

import numpy as np
import pytest

TOKENS = "text:2 image:1,4,6 text:1"


def hand_ids(merge: int) -> np.ndarray:
    """(seq, 3): text 0, 1; the image at t = 2, h = 2 + row, w = 2 + col; text after it."""
    rows, cols = 4 // merge, 6 // merge
    image = [(2, 2 + r, 2 + c) for r in range(rows) for c in range(cols)]
    after = max(max(i) for i in image) + 1
    return np.array([(0, 0, 0), (1, 1, 1), *image, (after,) * 3], dtype=np.float64)


def hand_cos(ids: np.ndarray) -> np.ndarray:
    axis = np.array([0] * 16 + [1] * 24 + [2] * 24)
    omega = 1e6 ** (-2 * np.arange(64) / 128)
    return np.cos(ids[:, axis] * omega)


@pytest.mark.parametrize("merge", [1, 2])
def test_axes_merges_the_grid_by_the_option(run_cli, tmp_path, merge):
    out = tmp_path / "cos.npy"
    args = ("--preset", "qwen2-vl", "--tokens", TOKENS, "--form", "half", "--part", "cos")
    result = run_cli("rope", "axes", *args, "--spatial-merge-size", str(merge), "-o", str(out))
    assert result.exit_code == 0, result.output
    table, expected = np.load(out), hand_cos(hand_ids(merge))
    assert table.shape == expected.shape  # merge 1: 2 + 24 + 1 tokens; merge 2: 2 + 6 + 1
    np.testing.assert_allclose(table, expected, atol=2**-24)


def test_identify_takes_the_merge_size(run_cli, tmp_path):
    ids = hand_ids(1)
    cos = hand_cos(ids)
    axis = np.array([0] * 16 + [1] * 24 + [2] * 24)
    sin = np.sin(ids[:, axis] * 1e6 ** (-2 * np.arange(64) / 128))
    path = tmp_path / "cache.npy"
    np.save(path, np.concatenate([cos, cos, sin, sin], axis=1).astype(np.float32))
    args = ("rope", "identify-axes", str(path), "--preset", "qwen2-vl", "--tokens", TOKENS)
    merged = run_cli(*args, "--spatial-merge-size", "1")
    assert merged.exit_code == 0 and "qwen2-vl: matches" in merged.stdout, merged.output
    assert run_cli(*args).exit_code == 2  # merge 2: 9 tokens, not the cache's 27 rows


@pytest.mark.parametrize("value", ["0", "-1"])
def test_bad_or_lone_merge_size_is_refused(run_cli, tmp_path, value):
    out = tmp_path / "x.npy"
    args = ("rope", "axes", "--preset", "qwen2-vl", "-o", str(out), "--spatial-merge-size", value)
    bad = run_cli(*args, "--tokens", TOKENS)
    assert bad.exit_code == 2 and "--spatial-merge-size" in bad.stderr and not out.exists()
    lone = run_cli("rope", "axes", "--preset", "flux", "--grid", "2x2", "--spatial-merge-size", "2")
    assert (
        lone.exit_code == 2 and "--spatial-merge-size" in lone.stderr and "--tokens" in lone.stderr
    )
