"""Blocks from a ring of buffers (``reuse=k``) are the same table as fresh blocks.

compute, grid and rope cache write .npy from ``reuse=AHEAD + 2`` buffers so that no block
costs fresh pages; a reused buffer must hold every value of its new block (nothing of the
old one left), and it is overwritten only k blocks later.
"""

from __future__ import annotations

import numpy as np
import pytest

from pecli.core.grids import grid_blocks
from pecli.core.rope import RopeSpec, rope_frequencies
from pecli.core.rope.cache import CacheSpec, cache_blocks
from pecli.core.sinusoidal.encoding import table_blocks
from pecli.core.threads import AHEAD, computed_ahead

MAKERS = {
    "compute": lambda **kw: table_blocks(d=10, n=23, start=0, **kw),
    "grid": lambda **kw: grid_blocks((5, 5), d=16, preset="mocov3", **kw),
    "rope cache": lambda **kw: cache_blocks(
        CacheSpec(rope_frequencies(RopeSpec(head_dim=8, theta=500000.0)), 23, start=7, **kw)
    ),
    "rope cache, scaled": lambda **kw: cache_blocks(
        CacheSpec(
            rope_frequencies(
                RopeSpec(
                    rope_type="yarn", head_dim=8, factor=4.0, original_max_position_embeddings=16
                )
            ),
            23,
            **kw,
        )
    ),
}


@pytest.mark.parametrize("name", MAKERS)
@pytest.mark.parametrize("reuse", [1, 2, AHEAD + 2])
def test_reused_blocks_are_the_fresh_table(name, reuse):
    fresh = np.concatenate([b.copy() for b in MAKERS[name](rows=4)])
    blocks = [b.copy() for b in MAKERS[name](rows=4, reuse=reuse)]
    assert np.array_equal(np.concatenate(blocks), fresh)
    assert fresh.shape[0] > 4 * (reuse + 1)  # the ring went round


@pytest.mark.parametrize("name", MAKERS)
def test_a_ring_of_k_buffers_is_taken_in_turn(name):
    blocks = list(MAKERS[name](rows=4, reuse=2))
    assert np.shares_memory(blocks[0], blocks[2]) and not np.shares_memory(blocks[0], blocks[1])


@pytest.mark.parametrize("name", MAKERS)
def test_the_writer_never_sees_a_block_overwritten(name):
    """computed_ahead holds AHEAD + 1 blocks at most: AHEAD + 2 buffers are enough."""
    fresh = np.concatenate([b.copy() for b in MAKERS[name](rows=2)])
    seen = [b.copy() for b in computed_ahead(MAKERS[name](rows=2, reuse=AHEAD + 2))]
    assert np.array_equal(np.concatenate(seen), fresh)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_add_writes_its_blocks_into_reused_buffers(dtype):
    from pecli.cli.sinusoidal.apply import _sums
    from pecli.core.sinusoidal.apply import add_encoding

    x = np.random.default_rng(5).standard_normal((23, 6))
    blocks = [(first, x[first : first + 4]) for first in range(0, 23, 4)]
    fresh = add_encoding(x, start=3, dtype=dtype)
    sums = list(_sums(iter(blocks), 3, 10000.0, np.dtype(dtype), reuse=2))
    assert np.shares_memory(sums[0], sums[2]) and not np.shares_memory(sums[0], sums[1])
    sums = [s.copy() for s in _sums(iter(blocks), 3, 10000.0, np.dtype(dtype), reuse=AHEAD + 2)]
    assert np.array_equal(np.concatenate(sums), fresh)


def test_add_encoding_into_out_checks_it():
    from pecli.core.errors import ParameterError
    from pecli.core.sinusoidal.apply import add_encoding

    out = np.full((2, 4), np.nan, np.float32)
    assert add_encoding(np.zeros((2, 4)), start=0, out=out) is out
    assert np.array_equal(out, add_encoding(np.zeros((2, 4)), start=0))
    with pytest.raises(ParameterError, match="out"):
        add_encoding(np.zeros((2, 4)), out=np.empty((2, 4), np.float64))


@pytest.mark.parametrize(
    ("part", "reuse", "rows"), [("both", 2, 2048), ("cos", 1, 4096), ("sin", 0, 32768)]
)
def test_a_rope_block_holds_a_megabyte_of_float32_with_reuse(part, reuse, rows):
    """With ``reuse`` and no ``rows``, a rope cache block holds 2^18 values (1 MB of float32,
    the ring that stays in cache): head_dim 64 is 64 columns a part, 128 for cos | sin, so
    2^18 / 128 = 2048 rows of both, 4096 of one part. Fresh blocks (reuse 0) hold 2^20
    (row, pair) cells: 2^20 / 32 pairs = 32768 rows. The last block holds the rest."""
    freqs = rope_frequencies(RopeSpec(head_dim=64))
    spec = CacheSpec(freqs, rows + 1, part=part, reuse=reuse, dtype="float32")
    width = 128 if part == "both" else 64
    assert [b.shape for b in cache_blocks(spec)] == [(rows, width), (1, width)]


@pytest.mark.parametrize(("reuse", "shape", "rows"), [(0, (64, 65), 4096), (1, (4, 65), 256)])
def test_a_grid_block_holds_4m_values_fresh_and_256k_with_reuse(reuse, shape, rows):
    """grid_blocks' documented heights: without ``rows``, blocks of about 4 M values (2^22),
    256 K (2^18) from a ring of buffers; at d = 1024 that is 4096 and 256 rows. The last
    block holds the rest (4160 − 4096 = 64 and 260 − 256 = 4 tokens)."""
    blocks = grid_blocks(shape, d=1024, reuse=reuse)
    assert [b.shape for b in blocks] == [(rows, 1024), (shape[0], 1024)]


def test_closing_the_consumer_stops_the_producer_after_its_current_block():
    """computed_ahead's promise: once the consumer stops, the thread ends after its current
    block. So at most 1 taken + AHEAD queued + 1 in hand = AHEAD + 2 of 1000 blocks are made."""
    made = []

    def blocks():
        for k in range(1000):
            made.append(k)
            yield k

    ahead = computed_ahead(blocks())
    assert next(ahead) == 0
    ahead.close()  # waits for the thread to end
    assert len(made) <= AHEAD + 2
