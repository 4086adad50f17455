"""The rotated channels' layout pecli reads from a config is the one transformers' attention uses.

Oracle: tests/fixtures/libraries/layouts/rotate_half.json, made in the fixture environment by
tools/library_fixtures/generate_layouts.py: each transformers 5.25 model family's own rotate
function (``rotate_half_text``, ``rotate_half_llm`` or ``rotate_half``) applied to
``arange(8)``: ``pairs`` mixes channels (2j, 2j+1), ``halves`` channels (j, j + d/2). Every
text rotary table of the model-zoo corpus is read by pecli and its layout compared with its
family's. A family whose config (or class) sets ``rope_interleave`` stores its checkpoint's
channels in pairs and regroups them before a halves rotation (DeepSeek V3): interleaved too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pecli.core.errors import ParameterError
from pecli.core.rope.config import read_rope
from pecli.core.rope.config.families import INTERLEAVE_BY_DEFAULT

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "libraries"
ROTATES = json.loads((ROOT / "layouts" / "rotate_half.json").read_text("utf-8"))["families"]
ZOO = ROOT / "model_zoo"
#: Families whose pairwise rotate function is not the text model's (their text model is
#: another family's) or not a rotation of either layout.
OTHER = {
    "musicflamingo": "the pairwise rotate is its audio tower's; the text model is Qwen2's",
    "nanochat": "rotates (x2, −x1): neither layout",
}


def _cases() -> list[tuple[str, int]]:
    names = json.loads((ZOO / "index.json").read_text("utf-8"))["fixtures"]
    found = []
    for name in sorted(names):
        doc = json.loads((ZOO / f"{name}.json").read_text("utf-8"))
        for m, module in enumerate(doc["modules"]):
            text = "Vision" not in module["class"] and "vision" not in (
                module.get("config_path") or ""
            )
            if text and module["tables"]:
                found.append((name, m))
    return found


CASES = _cases()


@pytest.mark.parametrize(("name", "m"), CASES, ids=[f"{n}-m{m}" for n, m in CASES])
def test_the_layout_is_the_families_rotation(name, m):
    doc = json.loads((ZOO / f"{name}.json").read_text("utf-8"))
    module = doc["modules"][m]
    family = module["module"].split(".")[2]
    if family not in ROTATES or family in OTHER:
        pytest.skip(OTHER.get(family, "the family's rotate function was not recorded"))
    try:
        reading = read_rope(
            doc["config_json"], module["tables"][0].get("label"), path=module.get("config_path")
        )
    except ParameterError as error:
        pytest.skip(f"pecli refuses the config: {error}")
    section = doc["config_json"]
    for key in [k for k in (module.get("config_path") or "").split(".") if k]:
        section = section[key]
    regrouped = section.get("rope_interleave", section.get("model_type") in INTERLEAVE_BY_DEFAULT)
    pairs = ROTATES[family]["rotates"] == "pairs" or regrouped is True
    assert reading.layout == ("interleaved" if pairs else "half-split"), family
