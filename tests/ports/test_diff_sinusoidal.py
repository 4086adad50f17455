"""pecli diff on two sinusoidal tables: each read as its convention, and how the two differ.

The tables are written here from each convention's definition (docs/conventions.md), not by
``pecli compute``: row ``r`` holds position ``p = start + r``, pair ``j`` the angle
``p·ω_j`` with ``ω_j = C^(−j/(d/2 − s))`` (the paper's ``C^(−2j/d)`` at ``s = 0``,
tensor2tensor's ``C^(−j/(d/2 − 1))`` at ``s = 1``), laid out interleaved ``(sin, cos)`` per
pair, or all sines then all cosines; fairseq's row ``padding_idx`` (1) is zeros. float64
NumPy, rounded once to float32. Before diff read sinusoidal tables every reading was "none".
"""

from __future__ import annotations

import numpy as np
import pytest
from diff_reports import both_reports

#: What every reading of a float32 table of 50 positions and 16 channels at C = 10000 ends with.
VASWANI = "sinusoidal table, vaswani: interleaved, paper schedule, C = 10000, first position 1"
T2T_SCHEDULE = (
    "schedule paper in A (ω_j = C^(−2j/d), d = 16), tensor2tensor in B "
    "(ω_j = C^(−j/(d/2 − 1)), d/2 − 1 = 7)"
)


def sinusoids(
    n: int = 50,
    d: int = 16,
    *,
    start: int = 0,
    base: float = 10000.0,
    shift: float = 0.0,
    layout: str = "interleaved",
    padding_row: int | None = None,
) -> np.ndarray:
    """Positions ``start … start + n − 1``, ``ω_j = C^(−j/(d/2 − s))``, float32."""
    p = np.arange(start, start + n, dtype=np.float64)[:, None]
    angle = p * base ** (-np.arange(d // 2) / (d / 2 - shift))
    sin, cos = np.sin(angle), np.cos(angle)
    if layout == "interleaved":
        table = np.stack([sin, cos], axis=2).reshape(n, d)
    else:
        table = np.hstack([sin, cos] if layout == "sin-cos" else [cos, sin])
    if padding_row is not None:
        table[padding_row] = 0.0
    return table.astype(np.float32)


_diff = both_reports  # the text report and the JSON one, each with status 1


def test_vaswani_against_tensor2tensor_names_schedule_layout_and_start(run_cli, tmp_path):
    """The paper's table against tensor2tensor's: three fields of their records differ."""
    a, b = sinusoids(start=1), sinusoids(shift=1, layout="sin-cos")
    text, found = _diff(run_cli, tmp_path, a, b)
    cause = (
        f"sinusoidal conventions differ (A vaswani, B tensor2tensor): {T2T_SCHEDULE}; "
        "layout interleaved in A, sin-cos in B; first position 1 in A, 0 in B"
    )
    assert text.splitlines()[-3:] == [
        f"reading of A: {VASWANI}, float32",
        "reading of B: sinusoidal table, tensor2tensor (or diffusers, whisper, lucidrains): "
        "sin-cos, tensor2tensor schedule, C = 10000, first position 0, float32",
        f"likely cause: {cause}",
    ]
    assert found["causes"] == [cause] and found["transformations"] == ["convention"]
    assert found["closest"] is None
    ra, rb = found["reading_a"], found["reading_b"]
    assert (ra["kind"], ra["convention"], ra["schedule"], ra["layout"], ra["start"]) == (
        "sinusoidal",
        "vaswani",
        "paper",
        "interleaved",
        1,
    )
    assert (rb["convention"], rb["schedule"], rb["layout"], rb["start"], rb["base"]) == (
        "tensor2tensor",
        "tensor2tensor",
        "sin-cos",
        0,
        10000.0,
    )
    assert rb["presets"] == ["tensor2tensor", "diffusers", "whisper", "lucidrains"]


def test_vaswani_against_pytorch_is_the_first_position_of_their_conventions(run_cli, tmp_path):
    """Positions from 1 against from 0: the convention's start first, then the rows' offset."""
    text, found = _diff(run_cli, tmp_path, sinusoids(start=1), sinusoids(start=0))
    assert found["causes"] == [
        "sinusoidal conventions differ (A vaswani, B pytorch): first position 1 in A, 0 in B",
        "first position off by 1: B's row 1 is A's row 0 (A starts 1 position later)",
    ]
    assert found["transformations"] == ["convention", "start"]
    assert (
        "reading of B: sinusoidal table, pytorch (or distilbert, positional-encodings): "
        "interleaved, paper schedule, C = 10000, first position 0, float32"
    ) in text.splitlines()
    assert "sinusoidal conventions differ (A vaswani, B pytorch)" in text


def test_the_same_convention_at_another_base_names_the_base(run_cli, tmp_path):
    """vaswani at C = 500: the same convention, one field of the record (the base) apart."""
    text, found = _diff(run_cli, tmp_path, sinusoids(start=1), sinusoids(start=1, base=500.0))
    assert found["causes"] == [
        "sinusoidal conventions differ (both vaswani): base C 10000 in A, 500 in B"
    ]
    assert found["transformations"] == ["convention"]
    assert found["reading_b"]["base"] == 500.0
    assert (
        "reading of B: sinusoidal table, vaswani: interleaved, paper schedule, C = 500, "
        "first position 1, float32"
    ) in text.splitlines()


def test_fairseq_adds_its_padding_row_to_tensor2tensor_fields(run_cli, tmp_path):
    """fairseq: tensor2tensor's schedule and sin-cos blocks from position 0, row 1 zeros."""
    b = sinusoids(shift=1, layout="sin-cos", padding_row=1)
    text, found = _diff(run_cli, tmp_path, sinusoids(start=1), b)
    assert found["causes"] == [
        f"sinusoidal conventions differ (A vaswani, B fairseq): {T2T_SCHEDULE}; layout "
        "interleaved in A, sin-cos in B; first position 1 in A, 0 in B; padding row (0-based) "
        "none in A, 1 in B"
    ]
    assert (found["reading_b"]["padding_idx"], found["reading_b"]["padding_rows"]) == (1, [1])
    assert (
        "reading of B: sinusoidal table, fairseq: sin-cos, tensor2tensor schedule, C = 10000, "
        "first position 0, padding row 1 (0-based), float32"
    ) in text.splitlines()


def test_pytorch_against_hf_marian_is_the_layout_alone(run_cli, tmp_path):
    """The paper's frequencies from 0, interleaved against all sines then all cosines."""
    _, found = _diff(run_cli, tmp_path, sinusoids(), sinusoids(layout="sin-cos"))
    assert found["causes"][0] == (
        "sinusoidal conventions differ (A pytorch, B hf-marian): layout interleaved in A, "
        "sin-cos in B"
    )
    assert found["transformations"] == ["convention", "layout"]
    assert found["reading_b"]["presets"] == ["hf-marian", "diffusers --downscale-freq-shift 0"]


@pytest.mark.parametrize("swap", [False, True])
def test_one_convention_stored_in_float16_is_the_storage_cause(run_cli, tmp_path, swap):
    """The same vaswani table, once in float16: no convention differs, the storage does."""
    a = sinusoids(start=1)
    pair = (a.astype(np.float16), a) if swap else (a, a.astype(np.float16))
    text, found = _diff(run_cli, tmp_path, *pair, "--ulps", "0")
    names = ("A", "B") if swap else ("B", "A")
    assert found["causes"] == [f"stored in fp16: {names[0]} is {names[1]} rounded once to float16"]
    assert found["transformations"] == ["storage"]
    readings = [
        f"reading of {name}: {VASWANI}, float{16 if name == names[0] else 32}" for name in "AB"
    ]
    assert [line for line in text.splitlines() if line.startswith("reading of")] == readings


def test_odd_widths_word_each_schedule_over_its_own_halving(run_cli, tmp_path):
    """d = 17: HF Marian's paper schedule over d (a last sine), tensor2tensor's over
    (d − 1)/2 − 1 with a zero last column."""
    p = np.arange(50.0)[:, None]
    marian = p * 10000.0 ** (-2 * np.arange(9) / 17)  # ceil(17/2) sines, 8 cosines
    a = np.hstack([np.sin(marian), np.cos(marian[:, :8])]).astype(np.float32)
    t2t = p * 10000.0 ** (-np.arange(8) / 7)
    b = np.hstack([np.sin(t2t), np.cos(t2t), np.zeros((50, 1))]).astype(np.float32)
    _, found = _diff(run_cli, tmp_path, a, b)
    assert found["causes"][0] == (
        "sinusoidal conventions differ (A hf-marian, B tensor2tensor): schedule paper in A "
        "(ω_j = C^(−2j/d), d = 17), tensor2tensor in B (ω_j = C^(−j/((d − 1)/2 − 1)), "
        "(d − 1)/2 − 1 = 7); odd d sine in A, zero in B"
    )
    assert found["reading_b"]["zero_components"] == [17]


def test_a_rope_cache_is_read_as_one_and_never_tried_as_a_sinusoidal_table(
    run_cli, tmp_path, monkeypatch
):
    """A rotary cache keeps rope identify's reading; the sinusoidal identify runs on B only."""
    import pecli.analysis.sinusoidal.identify as identify

    tables = []
    real = identify.identify_table
    monkeypatch.setattr(
        identify, "identify_table", lambda table: tables.append(table.shape) or real(table)
    )
    p = np.arange(50.0)[:, None] * 10000.0 ** (-np.arange(0, 8, 2) / 8)
    rope = np.hstack([np.cos(p), np.cos(p), np.sin(p), np.sin(p)]).astype(np.float32)
    _, found = _diff(run_cli, tmp_path, rope, sinusoids(start=1))
    assert found["reading_a"]["kind"] == "cache" and found["reading_b"]["kind"] == "sinusoidal"
    assert found["causes"] == [
        "not the same kind of table: A is a cos/sin cache, B a sinusoidal position-encoding table"
    ]
    assert tables == [(50, 16), (50, 16)]  # B's, once per run (text, then JSON): never A's


@pytest.mark.parametrize(
    ("start_a", "start_b", "options", "first"),
    [
        (1, 1, (), 1),  # both read from position 1: the rows are positions 1 …
        (7, 7, (), 7),
        (1, 4, (), 0),  # readings that disagree leave 0 (the offset is a cause)
        (1, 1, ("--start", "0"), 0),  # --start given wins over the readings
    ],
)
def test_rows_are_the_positions_the_readings_agree_on_unless_start_is_given(
    run_cli, tmp_path, start_a, start_b, options, first
):
    """A table of positions 1 … 50 (pecli's default) is reported from position 1, not 0.

    B's base C is 100: row 0 differs already (pair 1 turns at another rate), so the first
    difference is row 0, position ``first``.
    """
    a, b = sinusoids(start=start_a), sinusoids(start=start_b, base=100.0)
    text, found = _diff(run_cli, tmp_path, a, b, *options)
    assert found["start"] == first and found["first"]["row"] == 0
    assert f"first at row 0 (position {first}), column" in text
    spans = [(d["first"], d["last"]) for d in found["decades"]]
    assert spans[0][0] == first and spans[-1][1] == first + 49
