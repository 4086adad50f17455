"""pecli reads every text rotary config of transformers 5.25's model zoo as transformers does.

The corpus (tests/fixtures/libraries/model_zoo, made by tools/library_fixtures/
generate_model_zoo.py in the fixture environment) holds, per model type, the config.json
transformers saves and, for hub-style files, the file as the hub writes it; and what each
rotary module computed: inv_freq, its attention scaling and cos/sin at positions up to
131071. For every table of a text rotary module (vision/audio 2-D modules are another
subject: ``pecli rope axes``), pecli's reader (:func:`pecli.core.rope.config.read_rope`, the
label being the table's layer type) must give the same rotated width, inv_freq within float32
rounding, the factor on cos/sin the forward applies, and cos/sin within float32 tolerance.

:data:`EXPECTED` lists the tables pecli does not reproduce, each with its reason; it may only
shrink (a listed table that starts passing fails the test until it is removed).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pecli.core.errors import ParameterError
from pecli.core.rope import rope_frequencies
from pecli.core.rope.config import read_rope

FOLDER = Path(__file__).resolve().parent.parent / "fixtures" / "libraries" / "model_zoo"
NAMES = sorted(json.loads((FOLDER / "index.json").read_text(encoding="utf-8"))["fixtures"])
EPS32 = 2.0**-24

_NOT_TEXT = "not a text model's 1-D RoPE"
_TRANSFORMERS_WRONG = "transformers is wrong, pecli right: "
#: (reading, fixture, module class, label) -> why pecli's reading differs.
EXPECTED = {
    ("saved", "default__glm4_moe", "Glm4MoeRotaryEmbedding", None): (
        "the class defaults give hidden 4096 over 96 heads: transformers floors to 42 and "
        "rotates an odd 21 channels (11 frequencies); pecli refuses the non-multiple"
    ),
    ("saved", "default__mlcd", "MLCDRotaryEmbedding", None): _NOT_TEXT + " (axial)",
    ("saved", "default__mlcd_vision_model", "MLCDRotaryEmbedding", None): _NOT_TEXT + " (axial)",
    ("saved", "default__sam3_vision_model", "Sam3ViTRotaryEmbedding", None): _NOT_TEXT,
    ("saved", "default__sam3_vit_model", "Sam3ViTRotaryEmbedding", None): _NOT_TEXT,
    **{
        ("saved", name, "Qwen3OmniMoeThinkerTextRotaryEmbedding", None): (
            "the class defaults give hidden 2048 over 28 heads: transformers floors to 73 and "
            "rotates 37 pairs over an exponent of 73; pecli refuses the non-multiple"
        )
        for name in (
            "default__qwen3_omni_moe",
            "default__qwen3_omni_moe_text",
            "default__qwen3_omni_moe_thinker",
        )
    },
    ("saved", "default__csm", "MimiRotaryEmbedding", None): (
        "the Mimi codec's rotary is built from a MimiEncoderConfig / MimiDecoderConfig the "
        "saved config.json does not hold (the corpus: 'not in the config tree')"
    ),
    **{
        ("saved", name, "MiniMaxM3VLRotaryEmbedding", None): (
            _TRANSFORMERS_WRONG + "the config says rotary_dim 64 of a 128-channel head; "
            "transformers 5.25's MiniMaxM3VLRotaryEmbedding computes 64 frequencies over all "
            "128 channels (θ^(-2k/128)), the mistake issue 31 found in MiniMax-M2"
        )
        for name in ("default__minimax_m3_vl", "default__minimax_m3_vl_text")
    },
    **{
        (which, "hub__minicpm3_4b", "MiniCPM3RotaryEmbedding", None): (
            "one forward over positions up to 131071 takes longrope's long factors (the "
            "table) while the saved inv_freq buffer holds the short ones; pecli reads one "
            "set per sequence length"
        )
        for which in ("saved", "given")
    },
    ("given", "hub__dbrx_instruct", "DbrxRotaryEmbedding", None): (
        _TRANSFORMERS_WRONG + "the hub file's attn_config.rope_theta 500000 is dropped by "
        "transformers 5.25's DbrxConfig (θ 10000 in its module)"
    ),
}


def _ernie_order(config: dict[str, Any], path: str | None, count: int) -> np.ndarray:
    """Ernie 4.5 VL's buffer: ``inv_freq_3d[:hw] = cat(inv_freq[:hw][0::2], inv_freq[:hw][1::2])``,
    the rest (t) as is, undone by ``recomposition_frequencies`` in the forward (transformers 5.25
    ``Ernie4_5_VLMoeTextRotaryEmbedding.compute_default_rope_parameters``): the table holds the
    frequencies in pair order, the buffer a permutation of them."""
    section = config.get(path, config) if path else config
    params = section.get("rope_parameters") or {}
    h, w, _ = params.get("mrope_section", [22, 22, 20])
    k = np.arange(count)
    return np.concatenate([k[: h + w][0::2], k[: h + w][1::2], k[h + w :]])


#: Rotary classes whose inv_freq buffer is a permutation of the frequencies (module class ->
#: the buffer's order as indices into the frequencies in pair order).
PRE_ROTATED = {"Ernie4_5_VLMoeTextRotaryEmbedding": _ernie_order}


@cache
def fixture(name: str) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    doc = json.loads((FOLDER / f"{name}.json").read_text(encoding="utf-8"))
    with np.load(FOLDER / f"{name}.npz", allow_pickle=False) as arrays:
        return doc, {k: arrays[k] for k in arrays.files}


def _text_module(module: dict[str, Any]) -> bool:
    path = module.get("config_path") or ""
    return "Vision" not in module["class"] and "vision" not in path


def _hub_file(doc: dict[str, Any]) -> bool:
    """A hub-style file that names its widths (not the class defaults' empty stand-in)."""
    given = doc.get("given_config") or {}
    inner = given.get("text_config") or given
    keys = ("head_dim", "hidden_size", "n_embd", "d_model", "kv_channels", "qk_rope_head_dim")
    return doc["kind"] in ("hub", "constructed") and any(k in inner for k in keys)


def _cases() -> list[tuple[str, str, int, int]]:
    found = []
    for name in NAMES:
        doc, _ = fixture(name)
        for m, module in enumerate(doc["modules"]):
            if not _text_module(module):
                continue
            for t, table in enumerate(module["tables"]):
                if "inv_freq" in table["arrays"] and "cos" in table["arrays"]:
                    found.append(("saved", name, m, t))
                    if _hub_file(doc):
                        found.append(("given", name, m, t))
    return found


CASES = _cases()


def _reproduces(which: str, name: str, m: int, t: int) -> str | None:
    """None if pecli reproduces the table; else what differs."""
    doc, arrays = fixture(name)
    module, table = doc["modules"][m], doc["modules"][m]["tables"][t]
    config = doc["config_json"] if which == "saved" else doc["given_config"]
    path = module.get("config_path") if which == "saved" else None
    try:
        reading = read_rope(config, table.get("label"), path=path)
        frequencies = rope_frequencies(reading.spec)
    except ParameterError as error:
        return f"refused: {error}"
    ref = arrays[table["arrays"]["inv_freq"]].astype(np.float64)
    if module["class"] in PRE_ROTATED:  # the buffer's order, undone (the table is in pair order)
        ref = ref[np.argsort(PRE_ROTATED[module["class"]](config, path, len(ref)))]
    if frequencies.inv_freq.shape != ref.shape:
        return f"width {frequencies.inv_freq.shape} against {ref.shape}"
    if not np.allclose(frequencies.inv_freq, ref, rtol=16 * EPS32, atol=0):
        return "inv_freq"
    scale = table.get("scale_at_position_0", table["attention_scaling"])
    if abs(frequencies.attention_factor - scale) > 4 * EPS32 * scale:
        return f"cos/sin factor {frequencies.attention_factor} against {scale}"
    return _tables_differ(frequencies, ref, arrays, table, scale)


def _tables_differ(frequencies: Any, ref: np.ndarray, arrays: dict, table: dict, scale: float):
    """cos/sin from pecli's frequencies against the module's, within float32 rounding of the
    module's own frequency (``|Δ| <= s·(p·|Δω| + 2^-24·(3|pω| + 4))``)."""
    positions = np.asarray(table["positions"], dtype=np.float64)[:, None]
    cos = arrays[table["arrays"]["cos"]].reshape(len(positions), -1).astype(np.float64)
    width = cos.shape[-1]
    columns = np.arange(width)
    layout = table.get("table_layout")
    pick = {"halves": columns % (width // 2), "pairs": columns // 2}.get(layout, columns)
    ours, theirs = frequencies.inv_freq[pick], ref[pick]
    bound = scale * (positions * np.abs(ours - theirs) + EPS32 * (3 * positions * ours + 4))
    if np.any(np.abs(scale * np.cos(positions * ours) - cos) > bound + 1e-12):
        return "cos"
    return None


@pytest.mark.parametrize(
    ("which", "name", "m", "t"), CASES, ids=[f"{w}-{n}-m{m}-t{t}" for w, n, m, t in CASES]
)
def test_pecli_reads_the_config_as_the_module_computes(which, name, m, t):
    doc, _ = fixture(name)
    module = doc["modules"][m]
    key = (which, name, module["class"], module["tables"][t].get("label"))
    differs = _reproduces(which, name, m, t)
    if key in EXPECTED:
        assert differs is not None, f"{key} now reads right: remove it from EXPECTED"
        pytest.xfail(EXPECTED[key])
    assert differs is None, differs


def test_the_corpus_is_read_and_the_exceptions_are_few():
    keys = {
        (
            w,
            n,
            fixture(n)[0]["modules"][m]["class"],
            fixture(n)[0]["modules"][m]["tables"][t].get("label"),
        )
        for w, n, m, t in CASES
    }
    assert set(EXPECTED) <= keys, set(EXPECTED) - keys
    assert len(CASES) >= 396 and len(EXPECTED) <= 14  # it may only shrink
