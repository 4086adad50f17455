"""BLOOM's and Falcon's ALiBi tensors on (batch, keys) masks (tests/fixtures/libraries/zoo).

No pecli code is under test: these checks keep the ``bias-mask`` fixtures honest for the
``--attention-mask`` work built on them (tools/library_fixtures/generate_zoo.py
``alibi_masks``). transformers' ``build_alibi_tensor`` is key-only: row ``b·heads + h`` of the
``(batch·heads, 1, keys)`` tensor is ``slope_h · ((cumsum(mask_b) − 1) · mask_b)``, so a
padded key gets 0 and the keys after a left padding or a hole restart or skip a position.
Slopes from mpmath (Press et al.'s series); BLOOM multiplies float32 slopes, Falcon bfloat16
ones in bfloat16; a bfloat16 output is rounded once more.
"""

from __future__ import annotations

import math

import library_fixtures
import mpmath
import numpy as np
import pytest

MASKED = [f for f in library_fixtures.load("zoo") if f.params["kind"] == "bias-mask"]


def powers(n: int) -> np.ndarray:
    """The power of the float32 base each slope is (``torch.pow(base, powers)``)."""
    p = 2 ** math.floor(math.log2(n))
    return np.array([h + 1 if h < p else 2 * (h - p) + 1 for h in range(n)], dtype=np.float64)


def slopes(n: int) -> np.ndarray:
    """Press et al.: 2^(−8(h+1)/P) for h < P = 2^⌊log2 n⌋, then 2^(−8(2(h−P)+1)/(2P))."""
    p = 2 ** math.floor(math.log2(n))
    exps = [
        mpmath.mpf(h + 1) / p if h < p else mpmath.mpf(2 * (h - p) + 1) / (2 * p) for h in range(n)
    ]
    return np.array([float(mpmath.power(2, -8 * e)) for e in exps])


def test_index_complete_with_provenance():
    names = {f.name for f in MASKED}
    expected = {
        f"{model}_bias_mask_{mask}_h{n}_{dtype}"
        for model in ("bloom", "falcon")
        for mask in ("right", "left_rows", "both", "hole")
        for n in (12, 32)
        for dtype in ("float32", "bfloat16")
    }
    assert names == expected
    for f in MASKED:
        assert (f.library, f.version, f.params["max_bias"]) == ("transformers", "5.25.0", 8.0)


@pytest.mark.parametrize("fixture", MASKED, ids=library_fixtures.ids(MASKED))
def test_key_only_bias_with_the_mask(fixture):
    mask = np.array(fixture.params["attention_mask"])
    heads = fixture.params["heads"]
    positions = (np.cumsum(mask, axis=1) - 1) * mask  # (batch, keys)
    expected = (slopes(heads)[None, :, None] * positions[:, None, :]).reshape(-1, 1, mask.shape[1])
    got = fixture.table.astype(np.float64)
    assert got.shape == (mask.shape[0] * heads, 1, mask.shape[1])
    assert np.all(
        got[np.broadcast_to(np.repeat(mask, heads, axis=0)[:, None, :], got.shape) == 0] == 0
    )
    bf16 = fixture.params["convention"] == "falcon" or fixture.params["output_dtype"] == "bfloat16"
    # a float32 base raised to the power k (k·2^-24), the product (2^-24); bfloat16 2^-8 each
    k = np.tile(powers(heads), mask.shape[0])[:, None, None]
    rel = 2.0**-7 + k * 2.0**-24 if bf16 else (k + 2) * 2.0**-24
    assert np.all(np.abs(got - expected) <= rel * np.abs(expected))
