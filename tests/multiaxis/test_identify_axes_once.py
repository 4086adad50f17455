"""identify-axes' shared work: each pairing read once for all candidates; a port's own ω.

The port screen evaluates each distinct position's angles once and gathers them per token
(a grid repeats each position thousands of times); the caches here are written out by hand
as torch builds them in float32, with one pair's ``ω32`` moved a few float32 steps (another
engine's ``pow``).
"""

from __future__ import annotations

import numpy as np
import pytest

import pecli.analysis.multiaxis.identify as identify_module
from pecli.analysis.multiaxis.compare import compare_to_plan
from pecli.analysis.multiaxis.identify import cache_pairs, identify_axes
from pecli.analysis.multiaxis.reading import pair_values, read_axes
from pecli.core.multiaxis import axis_preset

F32 = np.float32
PLAN = axis_preset("wan").plan()  # interleaved, t 44, h 42, w 42 channels at head 128, θ 1e4
#: 3 × 40 × 50 tokens: more than the 1,024 screened rows, positions up to 49.
IDS = np.array([(t, h, w) for t in range(3) for h in range(40) for w in range(50)], float)
WIDTHS = (44, 42, 42)


def torch_float32_pairs(moved_pair: int, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-pair cos and sin as torch's float32 builds Wan's, pair ``moved_pair``'s ω32 moved.

    ω32 = 1 / θ^(2j/D_a) rounded to float32 per axis; angle = float32(id) · ω32 rounded to
    float32; cos and sin of it (float64) rounded to float32.
    """
    omega, axis = [], []
    for a, width in enumerate(WIDTHS):
        for j in range(width // 2):
            omega.append(F32(1.0 / 1e4 ** (2 * j / width)))
            axis.append(a)
    omega32 = np.array(omega, dtype=F32)
    for _ in range(abs(steps)):
        omega32[moved_pair] = np.nextafter(omega32[moved_pair], F32(np.sign(steps) * np.inf))
    angles = (IDS[:, axis].astype(F32) * omega32).astype(np.float64)
    return np.cos(angles).astype(F32).astype(np.float64), np.sin(angles).astype(F32).astype(
        np.float64
    )


@pytest.mark.parametrize(
    ("steps", "arithmetic"), [(0, "float32"), (3, "float32"), (-4, "float32"), (6, "none")]
)
def test_a_port_whose_pow_lands_a_few_steps_off_is_still_float32(steps, arithmetic):
    first_h = WIDTHS[0] // 2  # ω = 1 on the h axis: each step moves angle 39 by 39 · 2^-23
    cos, sin = torch_float32_pairs(first_h, steps)
    layout, c, s = pair_values(np.repeat(cos, 2, axis=1), np.repeat(sin, 2, axis=1))
    verdict = compare_to_plan(read_axes(c, s, IDS, layout=layout), PLAN, IDS, (c, s))
    assert verdict.arithmetic == arithmetic


def test_every_candidate_shares_one_pairing_check_and_one_reading_per_ids(monkeypatch):
    cos, sin = torch_float32_pairs(0, 0)
    table = np.concatenate([np.repeat(cos, 2, axis=1), np.repeat(sin, 2, axis=1)], axis=1)
    calls = {"paired_layouts": 0, "read_axes": []}

    def counted_layouts(*args):
        calls["paired_layouts"] += 1
        return paired_layouts(*args)

    def counted_read(c, s, ids, *, layout):
        calls["read_axes"].append((layout, ids.tobytes()))
        return read_axes(c, s, ids, layout=layout)

    paired_layouts = identify_module.paired_layouts
    monkeypatch.setattr(identify_module, "paired_layouts", counted_layouts)
    monkeypatch.setattr(identify_module, "read_axes", counted_read)
    found = identify_axes(
        cache_pairs({"table": table}),
        preset=None,
        head_dim=None,
        ids=None,
        grid=(3, 40, 50),
        text=0,
    )
    assert len(found.verdicts) > 3  # several presets of width 128 take a 3-axis grid
    assert found.verdicts["wan"].matches and found.verdicts["wan"].arithmetic == "float32"
    assert calls["paired_layouts"] == 1
    assert len(calls["read_axes"]) == len(set(calls["read_axes"]))  # none read twice
    assert found.reading.strip(PLAN.axes) == "T" * 22 + "H" * 21 + "W" * 21


@pytest.mark.parametrize(("ulps", "arithmetic"), [(0, "float32"), (2, "float32"), (3, "none")])
def test_one_late_entry_a_few_ulps_off_is_counted_past_the_equality_check(ulps, arithmetic):
    cos, sin = torch_float32_pairs(0, 0)
    row, pair = IDS.shape[0] - 7, 30  # not among the screened rows' equal values alone
    value = F32(sin[row, pair])
    for _ in range(ulps):
        value = np.nextafter(value, F32(np.inf))
    sin[row, pair] = float(value)
    layout, c, s = pair_values(np.repeat(cos, 2, axis=1), np.repeat(sin, 2, axis=1))
    verdict = compare_to_plan(read_axes(c, s, IDS, layout=layout), PLAN, IDS, (c, s))
    assert verdict.arithmetic == arithmetic


@pytest.mark.parametrize("ulps", [0, 2])
def test_a_float32_table_is_held_as_stored_and_read_as_its_float64_copy(ulps):
    """Pairs kept float32 (no whole-cache float64 copy): the same verdict and bits of ω.

    Wan's exact cache rounded once to float32; its float64 copy (equal values) is the
    reference. A late entry 2 float32 steps off is no longer the exact arithmetic's (its
    bound is 1 step): the float32-to-float32 equality check must see every row.
    """
    from pecli.core.multiaxis.cache import AxesSpec, axes_cache

    both = axes_cache(AxesSpec(PLAN, IDS, form="half", part="both")).astype(F32)
    cos, sin = both[:, : PLAN.pairs], both[:, PLAN.pairs :]
    row, pair = IDS.shape[0] - 7, 30  # between the screened rows
    for _ in range(ulps):
        sin[row, pair] = np.nextafter(sin[row, pair], F32(np.inf))
    table = np.concatenate([np.repeat(cos, 2, axis=1), np.repeat(sin, 2, axis=1)], axis=1)
    found = {}
    for dtype in (F32, np.float64):
        cache = cache_pairs({"table": table.astype(dtype)})
        assert cache[0].dtype == dtype and cache[3] == np.dtype(dtype).name
        found[dtype] = identify_axes(
            cache, preset="wan", head_dim=None, ids=None, grid=(3, 40, 50), text=0
        )
    held, widened = found[F32].verdicts["wan"], found[np.float64].verdicts["wan"]
    assert held.arithmetic == widened.arithmetic
    assert (held.arithmetic == "exact") == (ulps == 0)
    assert found[F32].reading.omega.tobytes() == found[np.float64].reading.omega.tobytes()
    assert found[F32].reading.theta == found[np.float64].reading.theta


def test_cos_and_sin_tensors_of_two_shapes_are_no_cache():
    """A sin with 4 more rows than cos, or 4 more columns: refused as ``file`` before any
    preset is tried (each pair of the cache is row r of cos with row r of sin)."""
    from pecli.core.errors import ParameterError

    cos = np.ones((32, 96), np.float32)
    for sin in (np.zeros((36, 96), np.float32), np.zeros((32, 100), np.float32)):
        with pytest.raises(ParameterError) as caught:
            cache_pairs({"cos": cos, "sin": sin})
        assert caught.value.parameter == "file"


def test_an_alias_read_from_a_long_step_is_never_faster_than_one_radian_a_position():
    """ids 7.5 apart (CogVideoX's step) alias the fast pairs; a RoPE pair turns at most 1 rad
    per position (θ > 1), so no alias above 1 is taken, even where the two slower pairs'
    geometric guess overshoots it (ω = 1, 0.9, 0.6, 0.3: a guess of 0.9²/0.6 = 1.35)."""
    positions = np.arange(6) * 7.5
    angles = positions[:, None] * np.array([1.0, 0.9, 0.6, 0.3])
    cos, sin = np.hstack([np.cos(angles)] * 2), np.hstack([np.sin(angles)] * 2)
    reading = read_axes(cos, sin, positions[:, None], layout="half-split")
    assert reading.omega[0] == pytest.approx(1.0, rel=1e-12)  # the alias (2π + 7.5 − 2π)/7.5
    assert np.all(reading.omega <= 1 + 1e-3)
