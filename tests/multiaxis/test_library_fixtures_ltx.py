"""LTX-Video and LTX-2 tables made by diffusers 0.42.1 (tests/fixtures/libraries/ltx).

No pecli code is under test here: these checks keep the fixtures honest for the presets built
on them. Each table is recomputed in NumPy float64 from the formula read in diffusers'
``transformer_ltx.py: LTXVideoRotaryPosEmbed.forward`` and ``transformer_ltx2.py:
LTX2AudioVideoRotaryPosEmbed.forward`` (tools/library_fixtures/generate_ltx.py):

* the ladder ``φ_k = θ^(k/(n−1)) · π/2``, ``n = dim // (2 · axes)``, θ = 1e4;
* the coordinates ``u = 2x − 1`` (LTX-Video: ``x_t = f · (8/fps) / 20``, ``x_h = r · 32 /
  2048``; LTX-2: patch midpoints in pixels and seconds over 20 s and 2048 pixels);
* the channels: ``dim % (2 · axes)`` padding channels first (cos 1, sin 0), then frequency-
  major, axis-minor, each angle on two neighbouring channels (interleaved); ``split`` puts the
  padding first in the ``dim/2`` angles and hands each head a contiguous slice of them.

Within the library's float32 rounding: the ladder (float32 linspace and pow for LTX-Video, a
float64 pow cast once for LTX-2), the angle ``u · φ`` rounded once, torch's cos and sin.
"""

from __future__ import annotations

import math

import library_fixtures
import numpy as np
import pytest

FIXTURES = {f.name: f for f in library_fixtures.load("ltx")}
EPS = 2.0**-24
LTX2_MODULES = {"video": 3, "audio": 1, "cross_video": 1, "cross_audio": 1}


def _expected_names() -> set[str]:
    names = {f"ltxv_d{d}_{p}" for d in (2048, 4096) for p in ("cos", "sin", "ladder")}
    names |= {"ltxv_d2048_x", "ltxv_d2048_u", "ltxv_condition_coords", "ltxv_condition_u"}
    names |= {f"ltxv_condition_d2048_{p}" for p in ("cos", "sin")}
    for module in LTX2_MODULES:
        names |= {
            f"ltx2_{module}_{t}_{p}" for t in ("interleaved", "split") for p in ("cos", "sin")
        }
        names |= {f"ltx2_{module}_ladder", f"ltx2_{module}_u"}
    names |= {"ltx2_video_bounds", "ltx2_audio_bounds"}
    names |= {f"ltx2_connector_{t}_{p}" for t in ("interleaved", "split") for p in ("cos", "sin")}
    return names


def test_index_complete_with_provenance():
    assert set(FIXTURES) == _expected_names()
    for fixture in FIXTURES.values():
        assert (fixture.library, fixture.version) == ("diffusers", "0.42.1")
        assert fixture.call and fixture.params["model"].startswith("ltx")


def ladder(n: int) -> np.ndarray:
    """φ_k = θ^(k/(n−1)) · π/2 in float64."""
    return 10000.0 ** (np.arange(n) / (n - 1)) * (math.pi / 2)


def table(ladder32: np.ndarray, u: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """cos, sin (tokens, dim) in LTX's interleaved layout, angles rounded once to float32."""
    angles = (u[:, None, :] * ladder32[None, :, None].astype(np.float64)).astype(np.float32)
    flat = angles.reshape(len(u), -1).astype(np.float64)  # frequency-major, axis-minor
    pad = dim - 2 * flat.shape[1]
    cos = np.concatenate([np.ones((len(u), pad)), np.repeat(np.cos(flat), 2, axis=1)], axis=1)
    sin = np.concatenate([np.zeros((len(u), pad)), np.repeat(np.sin(flat), 2, axis=1)], axis=1)
    return cos, sin


def assert_table(name: str, cos: np.ndarray, sin: np.ndarray, bound: np.ndarray) -> None:
    for part, expected in (("cos", cos), ("sin", sin)):
        got = FIXTURES[f"{name}_{part}"].table.astype(np.float64)
        assert got.shape == expected.shape
        assert np.all(np.abs(got - expected) <= bound), f"{name}_{part}"


def _bound(ladder32: np.ndarray, u: np.ndarray, dim: int) -> np.ndarray:
    angle = np.abs(u[:, None, :] * ladder32[None, :, None]).reshape(len(u), -1)
    per_angle = np.repeat(angle * EPS + 2 * EPS, 2, axis=1)
    return np.concatenate([np.zeros((len(u), dim - per_angle.shape[1])), per_angle], axis=1)


@pytest.mark.parametrize("dim", [2048, 4096])
def test_ltx_video_ladder(dim):
    got = FIXTURES[f"ltxv_d{dim}_ladder"].table
    n = dim // 6
    assert got.shape == (n,) and got.dtype == np.float32
    exact = ladder(n)
    # float32 linspace, θ ** e (error ln θ · δe), × π, / 2
    assert np.all(np.abs(got - exact) <= exact * EPS * (2 * math.log(1e4) + 4))


def test_ltx_video_issue_values():
    phi = FIXTURES["ltxv_d2048_ladder"].table
    np.testing.assert_allclose(phi[:3], [1.57079633, 1.61392959, 1.65824726], rtol=2e-7)
    np.testing.assert_allclose(phi[340], 15707.9633, rtol=2e-7)
    u = FIXTURES["ltxv_d2048_u"].table
    token = 1 * 12 + 1 * 4 + 1  # (f, r, c) = (1, 1, 1) of the 2 × 3 × 4 grid
    assert u[token].tolist() == np.float32([-0.968, -0.96875, -0.96875]).tolist()
    cos = FIXTURES["ltxv_d2048_cos"].table
    k0 = [-1.52053084, -1.52170894, -1.52170894]
    np.testing.assert_allclose(cos[token, 2:8:2], np.cos(k0), atol=4 * EPS)
    # the origin: cos(−fl32(π/2)), which is 0 exactly, is −4.371139e-8 in the model
    origin = np.float32(np.cos(np.float64(np.float32(math.pi / 2))))
    assert origin == np.float32(-4.371139e-8)
    assert np.all(cos[0, 2:8] == origin)  # pair k = 0 of each axis: angle −fl32(π/2)
    assert cos[0, :2].tolist() == [1.0, 1.0]


def test_ltx_video_coordinates():
    x = FIXTURES["ltxv_d2048_x"].table.astype(np.float64)
    f, r, c = np.meshgrid(np.arange(2), np.arange(3), np.arange(4), indexing="ij")
    expected = np.stack([f.ravel() * (8 / 25) / 20, r.ravel() * 32 / 2048, c.ravel() * 32 / 2048])
    np.testing.assert_allclose(x, expected.T, atol=2 * EPS * 0.1)
    np.testing.assert_allclose(FIXTURES["ltxv_d2048_u"].table, 2 * expected.T - 1, atol=2 * EPS)


@pytest.mark.parametrize("dim", [2048, 4096])
def test_ltx_video_table_layout(dim):
    phi = FIXTURES[f"ltxv_d{dim}_ladder"].table
    u = FIXTURES["ltxv_d2048_u"].table.astype(np.float64)
    cos, sin = table(phi, u, dim)
    assert_table(f"ltxv_d{dim}", cos, sin, _bound(phi, u, dim))
    assert dim - 2 * 3 * len(phi) == {2048: 2, 4096: 4}[dim]


def test_ltx_video_condition_pipeline():
    """LTXConditionPipeline: pixel frames (8f + 1 − 8)⁺ / fps, so frame 1 is 1/25 s, not 8/25."""
    coords = FIXTURES["ltxv_condition_coords"].table.astype(np.float64)
    f, r, c = (a.ravel() for a in np.meshgrid(*map(np.arange, (2, 3, 4)), indexing="ij"))
    expected = np.stack([np.maximum(8 * f + 1 - 8, 0) / 25, 32.0 * r, 32.0 * c])
    np.testing.assert_allclose(coords, expected, atol=2 * EPS * 0.05)
    u = FIXTURES["ltxv_condition_u"].table.astype(np.float64)
    np.testing.assert_allclose(u, (2 * expected / [[20], [2048], [2048]] - 1).T, atol=2 * EPS)
    phi = FIXTURES["ltxv_d2048_ladder"].table
    cos, sin = table(phi, u, 2048)
    assert_table("ltxv_condition_d2048", cos, sin, _bound(phi, u, 2048))


@pytest.mark.parametrize("module", list(LTX2_MODULES))
def test_ltx2_ladder_float64_cast_once(module):
    got = FIXTURES[f"ltx2_{module}_ladder"].table
    dim = FIXTURES[f"ltx2_{module}_ladder"].params["dim"]
    exact = ladder(dim // (2 * LTX2_MODULES[module]))
    assert len(got) == {"video": 682}.get(module, 1024)
    assert np.all(np.abs(got - exact) <= np.spacing(np.float32(exact)))  # 1 ulp
    assert np.mean(got == exact.astype(np.float32)) > 0.99  # correctly rounded but near ties


def test_ltx2_coordinates():
    bounds = FIXTURES["ltx2_video_bounds"].table.astype(np.float64)
    f, r, c = (a.ravel() for a in np.meshgrid(*map(np.arange, (2, 2, 3)), indexing="ij"))
    starts = np.stack([np.maximum(8 * f + 1 - 8, 0) / 24, 32.0 * r, 32.0 * c])
    ends = np.stack([np.maximum(8 * (f + 1) + 1 - 8, 0) / 24, 32.0 * (r + 1), 32.0 * (c + 1)])
    np.testing.assert_allclose(bounds, np.stack([starts, ends], axis=-1), rtol=EPS, atol=0)
    u = FIXTURES["ltx2_video_u"].table
    np.testing.assert_allclose(u[0], [-0.997916667, -0.984375, -0.984375], atol=2 * EPS)
    np.testing.assert_allclose(u[6, 0], -0.979166667, atol=2 * EPS)  # latent frame 1
    audio = FIXTURES["ltx2_audio_bounds"].table[0].astype(np.float64)
    k = np.arange(9)
    mel = np.stack([np.maximum(4 * k + 1 - 4, 0), np.maximum(4 * (k + 1) + 1 - 4, 0)], axis=-1)
    np.testing.assert_allclose(audio, mel * 160 / 16000, rtol=2 * EPS)  # hop 160 at 16 kHz
    np.testing.assert_allclose(
        FIXTURES["ltx2_audio_u"].table[:, 0], audio.mean(axis=1) / 10 - 1, atol=2 * EPS
    )


@pytest.mark.parametrize("module", list(LTX2_MODULES))
def test_ltx2_interleaved_and_split(module):
    phi = FIXTURES[f"ltx2_{module}_ladder"].table
    u = FIXTURES[f"ltx2_{module}_u"].table.astype(np.float64)
    dim = FIXTURES[f"ltx2_{module}_ladder"].params["dim"]
    cos, sin = table(phi, u, dim)
    bound = _bound(phi, u, dim)
    assert_table(f"ltx2_{module}_interleaved", cos, sin, bound)
    heads = 32

    def split(full: np.ndarray) -> np.ndarray:  # one value per angle, padding first, per head
        return full[:, ::2].reshape(len(u), heads, -1).transpose(1, 0, 2)

    assert_table(f"ltx2_{module}_split", split(cos), split(sin), split(bound))
    if module == "video":
        assert dim == 4096 and FIXTURES["ltx2_video_split_cos"].table[0, :, :2].min() == 1.0


@pytest.mark.parametrize("rope_type", ["interleaved", "split"])
def test_ltx2_connector(rope_type):
    """1-D: positions p / 4096 of the text tokens, n = 3840 // 2 angles, 30 heads."""
    phi = ladder(1920).astype(np.float32)
    u = (2 * (np.arange(6) / 4096) - 1)[:, None]
    cos, sin = table(phi, u, 3840)
    bound = _bound(phi, u, 3840) + EPS  # the ladder rounded here, once, as the module does
    if rope_type == "split":
        cos, sin, bound = (
            a[:, ::2].reshape(6, 30, -1).transpose(1, 0, 2) for a in (cos, sin, bound)
        )
    assert_table(f"ltx2_connector_{rope_type}", cos, sin, bound)
