"""The model-zoo corpus is whole and says what transformers computed.

The corpus is tests/fixtures/libraries/model_zoo.

tools/library_fixtures/generate_model_zoo.py ran every rotary module of transformers' model
zoo and saved its ``inv_freq`` and its cos/sin at a few positions. These tests need no library:

* the index lists every fixture file and every fixture file is in the index; every model type
  the index found is generated or carries the reason it is not;
* every fixture names transformers 5.25.0 (and torch) as its maker;
* every cos/sin table is what its own ``inv_freq`` gives: ``s·cos(p·ω)`` with ω the module's
  float32 frequency of that column (by the table's layout) and ``s`` its scale, within float32
  rounding: ``|Δ| <= s · 2^-24 · (3·|p·ω| + 4)`` — the product ``p·ω`` rounded once or twice
  (``|p·ω|·2^-24`` each), then cos/sin and the scale (an ulp each). The reference is float64.
  A module whose forward recomputes its frequencies differs from the buffer it holds: those are
  listed in :data:`RECOMPUTED` with the frequencies the forward uses instead.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "libraries" / "model_zoo"
INDEX = json.loads((FOLDER / "index.json").read_text(encoding="utf-8"))
NAMES = sorted(INDEX["fixtures"])
EPS32 = 2.0**-24

#: Modules whose forward does not use the ``inv_freq`` buffer the run saved after it:
#: PhimoeRotaryEmbedding.forward recomputes ``rope_init_fn(self.config)`` without ``seq_len``,
#: so it keeps the construction-time (short-factor) frequencies at every length, while the
#: ``dynamic_rope_update`` decorator has already moved the buffer to the long factors.
RECOMPUTED = {"PhimoeRotaryEmbedding": "inv_freq"}
#: Modules whose table holds the frequencies in another order than ``inv_freq``: Ernie 4.5 VL's
#: forward recomposes the M-RoPE sections (height and width interleaved, time last;
#: ``Ernie4_5_VLMoeTextRotaryEmbedding.recomposition_frequencies``). Each column's frequency is
#: then the ``inv_freq`` entry that gives its position-1 angle; every other row is checked.
REORDERED = {"Ernie4_5_VLMoeTextRotaryEmbedding"}


@cache
def fixture(name: str) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    doc = json.loads((FOLDER / f"{name}.json").read_text(encoding="utf-8"))
    with np.load(FOLDER / f"{name}.npz", allow_pickle=False) as arrays:
        return doc, {k: arrays[k] for k in arrays.files}


def _tables() -> list[tuple[str, int, int]]:
    found = []
    for name in NAMES:
        doc, _ = fixture(name)
        for m, module in enumerate(doc["modules"]):
            for t, table in enumerate(module["tables"]):
                if "cos" in table["arrays"] and "inv_freq" in table["arrays"]:
                    found.append((name, m, t))
    return found


TABLES = _tables()


def test_index_and_files_agree():
    on_disk = {p.stem for p in FOLDER.glob("*.json")} - {"index"}
    assert on_disk == set(NAMES)
    assert {p.stem for p in FOLDER.glob("*.npz")} == set(NAMES)
    listed = {f for entry in INDEX["model_types"].values() for f in entry.get("fixtures", [])}
    assert listed == set(NAMES)


def test_every_model_type_is_generated_or_says_why():
    for model_type, entry in INDEX["model_types"].items():
        assert entry["status"] in ("generated", "generated from a variant", "skipped"), model_type
        if entry["status"] == "skipped":
            assert entry["reason"], model_type
        else:
            assert entry["fixtures"], model_type


def test_the_corpus_is_large_and_covers_the_issue_families():
    generated = [t for t, e in INDEX["model_types"].items() if e["status"] != "skipped"]
    assert len(generated) >= 250
    for name in ("hub__deepseek_v3", "hub__minimax_m2", "hub__gemma3_4b_v5", "hub__smollm3_3b"):
        assert name in NAMES


@pytest.mark.parametrize("name", NAMES)
def test_provenance_names_transformers_5_25(name):
    doc, arrays = fixture(name)
    provenance = doc["provenance"]
    assert provenance["library"] == "transformers"
    assert provenance["version"] == "5.25.0"
    assert provenance["versions"]["torch"].startswith("2.13.0")
    assert list(arrays["positions"]) == doc["positions"]
    assert doc["name"] == name


def _frequencies(angle_1: np.ndarray, inv_freq: np.ndarray, layout: str) -> np.ndarray:
    """The frequency of each column of a table, by its layout (``angle_1``: row 1's angles)."""
    width = angle_1.shape[-1]
    if layout == "reordered":  # the entry nearest the column's angle at position 1
        return inv_freq[np.argmin(np.abs(inv_freq[None, :] - angle_1[:, None]), axis=1)]
    columns = np.arange(width)
    if layout == "halves":
        return inv_freq[columns % (width // 2)]
    if layout == "pairs":
        return inv_freq[columns // 2]
    return inv_freq[columns]


@pytest.mark.parametrize(("name", "m", "t"), TABLES, ids=[f"{n}-m{m}-t{t}" for n, m, t in TABLES])
def test_cos_and_sin_are_the_module_frequencies_in_float32(name, m, t):
    doc, arrays = fixture(name)
    module = doc["modules"][m]
    table = module["tables"][t]
    keys = table["arrays"]
    cos, sin = arrays[keys["cos"]].astype(np.float64), arrays[keys["sin"]].astype(np.float64)
    which = RECOMPUTED.get(module["class"], "inv_freq_after_forward")
    inv_freq = arrays[keys.get(which, keys["inv_freq"])].astype(np.float64)
    positions = np.asarray(table.get("positions", doc["positions"]), dtype=np.float64)
    assert positions[:2].tolist() == [0, 1]  # the layout check reads rows 0 and 1
    if cos.ndim != 2 or len(positions) != cos.shape[0]:
        pytest.skip(f"{module['class']}: a table of another form ({module['forward']})")
    layout = "reordered" if module["class"] in REORDERED else table["table_layout"]
    omega = _frequencies(np.arctan2(sin[1], cos[1]), inv_freq, layout)
    scale = table["scale_at_position_0"]
    angle = positions[:, None] * omega[None, :]
    bound = scale * EPS32 * (3 * np.abs(angle) + 4)
    assert np.all(np.abs(cos - scale * np.cos(angle)) <= bound)
    assert np.all(np.abs(sin - scale * np.sin(angle)) <= bound)


@pytest.mark.parametrize(("name", "m", "t"), TABLES, ids=[f"{n}-m{m}-t{t}" for n, m, t in TABLES])
def test_the_scale_of_the_table_is_the_attention_scaling(name, m, t):
    doc, _ = fixture(name)
    module = doc["modules"][m]
    table = module["tables"][t]
    scaling = table.get("attention_scaling_after_forward", table["attention_scaling"])
    if scaling is None or module["class"] in RECOMPUTED:
        pytest.skip("no attention_scaling attribute, or a forward that applies another scale")
    assert table["scale_at_position_0"] == pytest.approx(scaling, rel=2 * EPS32)
