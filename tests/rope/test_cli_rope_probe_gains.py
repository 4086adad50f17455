"""``pecli rope probe`` with positions as START:STOP and a gain on the whole vector.

The layer is made by hand: half-split RoPE (θ 10^4, transformers' rotate_half) on 32
channels, then every vector times 1.5 (a constant factor, no temperature). Positions 0:6 are
Python's range: 10:16 is 10 … 15, one per token.
"""

from __future__ import annotations

import numpy as np
from probe_rotations import half_split


def probe(run_cli, tmp_path, start):
    """The probe of the hand-made layer at positions ``start`` … ``start`` + 5 (a range)."""
    q = np.random.default_rng(3).standard_normal((6, 2, 32))
    p = np.arange(start, start + 6.0)
    post = 1.5 * half_split(q, p[:, None] * 1e4 ** (-np.arange(16) / 16))
    np.save(tmp_path / "pre.npy", q)
    np.save(tmp_path / "post.npy", post)
    args = ("rope", "probe", str(tmp_path / "pre.npy"), str(tmp_path / "post.npy"))
    return run_cli(*args, "--positions", f"{start}:{start + 6}")


def test_a_constant_factor_is_tabled_per_row_at_the_range_positions(run_cli, tmp_path):
    """Rows 0 … 5 at positions 10 … 15 (the range 10:16), each with gain 1.5."""
    result = probe(run_cli, tmp_path, 10)
    assert result.exit_code == 0, result.output
    assert "a factor 1.5 at every position (no temperature)" in result.output
    assert "gain of each vector (post / pre)" in result.output
    rows = [line.split() for line in result.output.splitlines()]
    gains = [r for r in rows if len(r) == 3 and r[2] == "1.5"]
    assert [(r[0], r[1]) for r in gains] == [(str(k), str(10 + k)) for k in range(6)]


def test_a_range_far_from_0_is_taken_when_it_is_short(run_cli, tmp_path):
    """The cap is on the COUNT STOP − START (2^26 positions), not on the values: 6 positions
    from 2^26 = 67108864 are read (the first row's position shown to 6 digits, 6.71089e+07)."""
    result = probe(run_cli, tmp_path, 2**26)
    assert "must be START:STOP" not in result.output
    assert "gain of each vector (post / pre)" in result.output
    assert any(line.split()[:2] == ["0", "6.71089e+07"] for line in result.output.splitlines())


def test_an_empty_range_is_refused_as_positions(run_cli, tmp_path):
    """5:5 holds no position (Python's range(5, 5) is empty): refused, as is 5:4."""
    for given in ("5:5", "5:4"):
        np.save(tmp_path / "x.npy", np.ones((6, 1, 2)))
        x = str(tmp_path / "x.npy")
        result = run_cli("rope", "probe", x, x, "--positions", given)
        assert result.exit_code == 2
        assert "must be START:STOP with integers START < STOP" in result.output


def test_pre_and_post_cannot_both_be_stdin(run_cli):
    """stdin is read once: a POST of - after a PRE of - would find it empty (as diff's B)."""
    result = run_cli("rope", "probe", "-", "-")
    assert result.exit_code == 2
    assert "'POST': cannot be stdin (-) as well as PRE" in result.stderr


def test_pairs_turned_at_other_positions_are_said_so_not_no_rotation(run_cli, tmp_path):
    """Half-split RoPE (θ 10^4) at positions 3, 17, 40, 41, 90, 200, probed as 0 … 5: the
    pairing is found (rope: yes), its angles fit no ω·p, so the closing error says that the
    pairs turn, not that no rotation explains the change; status 1."""
    q = np.random.default_rng(0).standard_normal((6, 2, 16))
    p = np.array([3.0, 17, 40, 41, 90, 200])
    np.save(tmp_path / "pre.npy", q)
    np.save(tmp_path / "post.npy", half_split(q, p[:, None] * 1e4 ** (-np.arange(8) / 8)))
    result = run_cli("rope", "probe", str(tmp_path / "pre.npy"), str(tmp_path / "post.npy"))
    assert result.exit_code == 1 and "rope: yes" in result.stdout
    assert "by angles no ω·position explains (--positions?)" in result.stderr
