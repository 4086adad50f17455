"""GLM-4.xV and ERNIE 4.5 VL presets against transformers 5.25's own ids and cos / sin.

tests/fixtures/libraries/vl_ids holds each model's ``get_rope_index`` output and its text
rotary embedding's cos / sin on those ids (tools/library_fixtures/generate_vl_ids.py). The
channel maps below are written out from the issue's description, not from pecli.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from library_fixtures import load

from pecli.core.dtypes import ulps32
from pecli.core.multiaxis import AxesSpec, axes_cache
from pecli.core.multiaxis.plan import plan_frequencies
from pecli.core.multiaxis.resolve import any_preset, resolve_ids, resolve_plan

FIXTURES = {f.name: f for f in load("vl_ids")}
CASES = {  # fixture: preset, its --tokens
    "glm4v": ("glm-4.1v", "text:3 image:1,8,12 text:2 video:3,4,4,gap=2 text:2"),
    "glm46v": ("glm-4.1v", "text:3 image:1,8,12 text:2 video:3,4,4,gap=2 text:2"),
    "glm4v_moe": ("glm-4.5v", "text:3 image:1,8,12 text:2 video:3,4,4,gap=2 text:2"),
    "glm46v_moe": ("glm-4.5v", "text:3 image:1,8,12 text:2 video:3,4,4,gap=2 text:2"),
    "ernie4_5_vl": ("ernie-4.5-vl", "text:3 image:1,8,12 text:2 video:8,4,4 text:2"),
}


def test_strips_of_the_issue():
    glm = any_preset("glm-4.1v").plan()
    assert glm.strip() == "T" * 8 + "H" * 12 + "W" * 12 and glm.rotary_dim == 64  # + 64 pass
    assert glm.layout == "interleaved"
    ernie = any_preset("ernie-4.5-vl").plan()
    assert ernie.strip() == "HW" * 22 + "T" * 20 and ernie.layout == "interleaved"
    k = list(range(64))  # inv_freq_3d: even k then odd k, re-interleaved: k in order
    assert list(ernie.index) == k
    assert any_preset("glm-4.5v").plan().layout == "half-split"  # cat([freq, freq])
    omega = plan_frequencies(ernie)[0]
    mpmath.mp.dps = 40
    for j in (1, 43, 63):
        assert omega[j] == float(mpmath.power(500000, -mpmath.mpf(2 * k[j]) / 128))


@pytest.mark.parametrize("fixture", list(CASES))
def test_ids_are_get_rope_index(fixture):
    name, tokens = CASES[fixture]
    plan, preset = resolve_plan(name)
    ids = resolve_ids(plan, preset, grid=None, text=0, ids=None, tokens=tokens)
    assert np.array_equal(ids.rows(0, ids.n).T, FIXTURES[f"{fixture}_ids"].table)


@pytest.mark.parametrize("fixture", list(CASES))
def test_cache_is_the_library_s(fixture):
    name, _ = CASES[fixture]
    ids = FIXTURES[f"{fixture}_ids"].table.T.astype(np.float64)
    plan = any_preset(name).plan()
    for part in ("cos", "sin"):
        table = FIXTURES[f"{fixture}_{part}"].table
        model = axes_cache(AxesSpec(plan, ids, part=part, arithmetic="float32"))
        assert model.shape == table.shape and ulps32(model, table).max() <= 2
        exact = axes_cache(AxesSpec(plan, ids, part=part))
        assert np.abs(exact - table).max() <= 2.0**-22 * (1 + ids.max())


def test_the_qwen_layout_would_be_wrong_for_glm():
    """The same map half-split (Qwen-VL's layout) is what llama.cpp had to permute away."""
    import dataclasses

    plan = any_preset("glm-4.1v").plan()
    ids = FIXTURES["glm4v_ids"].table.T.astype(np.float64)
    wrong = dataclasses.replace(plan, layout="half-split")
    table = FIXTURES["glm4v_cos"].table
    assert np.abs(axes_cache(AxesSpec(wrong, ids, part="cos")) - table).max() > 0.5
