"""pecli's own cache metadata (``rope cache -o NAME.safetensors``) read back against values.

The metadata says how many rows (``n``) the cache has; values with another count are not the
cache it describes. Metadata that lacks a field pecli needs describes no cache at all.
"""

from __future__ import annotations

import numpy as np

from pecli.analysis.rope.metadata import AGREES, cache_metadata, metadata_findings
from pecli.core.rope import RopeSpec, rope_frequencies
from pecli.core.rope.cache import CacheSpec, rope_cache


def written(n):
    """A cache of θ 10^4, 16 channels, n rows, and the metadata pecli writes beside it."""
    spec = CacheSpec(rope_frequencies(RopeSpec(theta=1e4, head_dim=16)), n)
    cos, sin = rope_cache(spec)
    return {"cos": cos, "sin": sin}, cache_metadata(spec, version="0")


def test_the_cache_pecli_wrote_agrees_bit_for_bit():
    arrays, metadata = written(8)
    (finding,) = metadata_findings(arrays, metadata)
    assert finding.startswith(AGREES + ": the cache it describes (rope_type default, theta 10000.0")


def test_one_row_fewer_than_the_metadata_says_disagrees():
    """8 rows said, the first 7 kept (each still bit for bit the cache's): not the cache."""
    arrays, metadata = written(8)
    fewer = {k: v[:7] for k, v in arrays.items()}
    findings = metadata_findings(fewer, metadata)
    assert findings[0].startswith("pecli's metadata disagrees with the values: it says ")


def test_metadata_without_the_row_count_describes_no_cache():
    """No ``n``: nothing to rebuild; the finding quotes the error (the missing key)."""
    arrays, metadata = written(8)
    del metadata["n"]
    (finding,) = metadata_findings(arrays, metadata)
    assert finding == (
        "pecli's metadata describes no cache pecli can rebuild ('n'): it says "
        "rope_type default, theta 10000.0, layout half-split, start 0"
    )


def test_a_cache_of_several_blocks_agrees_bit_for_bit():
    """Rebuilt block by block: head_dim 2048 (1024 pairs) gives blocks of 2^20 / 1024 = 1024
    rows, so 1025 rows are two blocks, the second of one row; each is compared with its own
    rows of the values, and the whole cache agrees."""
    spec = CacheSpec(rope_frequencies(RopeSpec(theta=1e4, head_dim=2048)), 1025)
    cos, sin = rope_cache(spec)
    (finding,) = metadata_findings({"cos": cos, "sin": sin}, cache_metadata(spec, version="0"))
    assert finding.startswith(AGREES + ": ")


def test_one_value_one_float32_step_away_disagrees():
    """The row count is right, but sin at the last row moved one float32 step: not the cache."""
    arrays, metadata = written(8)
    arrays["sin"][-1, 0] = np.nextafter(arrays["sin"][-1, 0], np.float32(2))
    findings = metadata_findings(arrays, metadata)
    assert findings[0].startswith("pecli's metadata disagrees with the values: it says ")
