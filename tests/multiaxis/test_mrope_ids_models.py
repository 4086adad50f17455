"""``pecli rope mrope-ids --model`` for GLM-4.xV, ERNIE 4.5 VL and the Omni models.

The expected ids and rope_deltas are transformers 5.25's own ``get_rope_index`` outputs
(tests/fixtures/libraries/vl_ids and omni_ids, with their provenance), in the dtype
transformers gives them (int64; Qwen3-Omni float32).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from library_fixtures import load
from test_mrope_omni import tokens_of
from test_mrope_vl_presets import CASES as VL_CASES

VL = {f.name: f for f in load("vl_ids")}
OMNI = {f.name: f for f in load("omni_ids")}
OMNI_CASES = sorted(n[: -len("_ids")] for n in OMNI if n.endswith("_ids") and "pps25" not in n)


def _ids(run_cli, tmp_path, model: str, tokens: str) -> tuple[np.ndarray, dict]:
    path, record = tmp_path / "ids.npy", tmp_path / "ids.json"
    for out in (path, record):
        result = run_cli("rope", "mrope-ids", "--model", model, "--tokens", tokens, "-o", str(out))
        assert result.exit_code == 0, result.output
    return np.load(path), json.loads(record.read_text())


@pytest.mark.parametrize("fixture", list(VL_CASES))
def test_vl_models_give_their_get_rope_index(run_cli, tmp_path, fixture):
    model, tokens = VL_CASES[fixture]
    ids, record = _ids(run_cli, tmp_path, model, tokens)
    expected = VL[f"{fixture}_ids"].table
    assert ids.dtype == np.int64 and np.array_equal(ids, expected)
    assert record["position_ids"] == expected.tolist()
    assert record["rope_deltas"] == int(expected.max()) + 1 - expected.shape[1]


@pytest.mark.parametrize("name", OMNI_CASES)
def test_omni_models_give_their_get_rope_index(run_cli, tmp_path, name):
    params = OMNI[f"{name}_ids"].params
    ids, record = _ids(run_cli, tmp_path, params["model"], tokens_of(params))
    expected = OMNI[f"{name}_ids"].table
    assert ids.dtype == expected.dtype  # int64; Qwen3-Omni's float32 (fixture's provenance)
    assert np.array_equal(ids, expected)
    assert record["rope_deltas"] == round(float(OMNI[f"{name}_deltas"].table.ravel()[0]))


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("--model", "qwen2.5-omni", "--tokens-per-second", "4"), "--tokens-per-second"),
        (("--model", "qwen3-omni", "--release", "4"), "--release"),
    ],
)
def test_omni_refuses_the_qwen_vl_knobs(run_cli, tmp_path, args, option):
    out = tmp_path / "ids.npy"
    result = run_cli("rope", "mrope-ids", *args, "--tokens", "text:2 audio:100", "-o", str(out))
    assert result.exit_code == 2 and option in result.stderr and not out.exists()
    assert "Traceback" not in result.output
