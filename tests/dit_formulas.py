"""float64 references for the multi-axis rotary fixtures of diffusers' DiTs (no pecli inside).

``angle = id · θ^(−2k/D)`` per axis of width ``D``, and a tolerance for what the model's own
arithmetic costs: ``|Δ| ≤ 2^-24 · (a · |angle| + b)`` with ``(a, b)`` = ``F64`` (0, 1) for the
models that work in float64 and round once, ``F64_ANGLE`` (1, 2) for a float64 angle rounded to
float32 before a float32 cos, and ``F32`` (ln θ + 4, 4) for float32 frequencies, products, cos.
"""

from __future__ import annotations

import math

import library_fixtures
import numpy as np

EPS = 2.0**-24
F64, F64_ANGLE, F32 = (0.0, 1.0), (1.0, 2.0), None


def grid_ids(*sizes: int) -> np.ndarray:
    """Row-major ids of a grid, one column per axis."""
    mesh = np.meshgrid(*(np.arange(n, dtype=np.float64) for n in sizes), indexing="ij")
    return np.stack([m.ravel() for m in mesh], axis=1)


def per_axis(ids: np.ndarray, widths: list[int], thetas: list[float]) -> np.ndarray:
    """Angles (tokens, pairs): each axis its own schedule θ^(−2k/D), axes one after another."""
    blocks = []
    for axis, (width, theta) in enumerate(zip(widths, thetas, strict=True)):
        omega = theta ** (-np.arange(0, width, 2) / width)
        blocks.append(ids[:, axis : axis + 1] * omega[None, :])
    return np.concatenate(blocks, axis=1)


def bound(angles: np.ndarray, theta: float, arithmetic: tuple[float, float] | None) -> np.ndarray:
    """The tolerance of each value (see the module docstring)."""
    a, b = arithmetic if arithmetic is not None else (math.log(theta) + 4, 4.0)
    return EPS * (a * np.abs(angles) + b)


class Tables:
    """The fixtures of one area, and checks of them against float64 angles."""

    def __init__(self, area: str) -> None:
        self.fixtures = {f.name: f for f in library_fixtures.load(area)}

    def check(self, name: str, expected: np.ndarray, tolerance: np.ndarray | float) -> None:
        """The fixture equals ``expected`` within ``tolerance`` everywhere."""
        got = self.fixtures[name].table
        assert got.shape == expected.shape, name
        excess = np.abs(got.astype(expected.dtype) - expected) - tolerance
        where = np.unravel_index(excess.argmax(), excess.shape)
        assert excess.max() <= 0, f"{name}: {excess.max()} over at {where}"

    def interleaved(self, name: str, angles: np.ndarray, theta: float, arithmetic) -> None:
        """``name_cos`` / ``name_sin``: each angle on channels 2j and 2j+1."""
        tol = np.repeat(bound(angles, theta, arithmetic), 2, axis=1)
        self.check(f"{name}_cos", np.repeat(np.cos(angles), 2, axis=1), tol)
        self.check(f"{name}_sin", np.repeat(np.sin(angles), 2, axis=1), tol)

    def half_split(self, name: str, angles: np.ndarray, theta: float, arithmetic) -> None:
        """``name_cos`` / ``name_sin``: the angles, then the same angles again."""
        twice = np.concatenate([angles, angles], axis=1)
        tol = bound(twice, theta, arithmetic)
        self.check(f"{name}_cos", np.cos(twice), tol)
        self.check(f"{name}_sin", np.sin(twice), tol)

    def matrix(self, name: str, angles: np.ndarray, theta: float, arithmetic) -> None:
        """2 × 2 rotations ``[[cos, −sin], [sin, cos]]`` per pair."""
        cos, sin = np.cos(angles), np.sin(angles)
        rotation = np.stack([np.stack([cos, -sin], -1), np.stack([sin, cos], -1)], -2)
        self.check(name, rotation, bound(angles, theta, arithmetic)[..., None, None])

    def complex(self, name: str, angles: np.ndarray, theta: float, arithmetic) -> None:
        """``cos + i·sin`` per pair."""
        expected = np.cos(angles) + 1j * np.sin(angles)
        self.check(name, expected, 2 * bound(angles, theta, arithmetic))
