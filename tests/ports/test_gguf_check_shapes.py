"""``gguf check`` of frequency tensors of the wrong length or swapped (Phi-3's committed
fixture), and of a differing key beside no tensor.

phi3.config.json holds 48 long and 48 short factors (``d/2`` of a 96-wide head). A file whose
``rope_factors_long`` has 47 values is no swap of the lists: the check names its shape, and
the short tensor, the config's own, agrees.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pecli.analysis.ports.gguf import check_gguf
from pecli.io.ports.gguf import read_gguf

HERE = Path(__file__).parent.parent / "fixtures" / "libraries" / "gguf"


def test_a_long_factor_tensor_one_value_short_is_named_by_its_shape():
    config = json.loads((HERE / "phi3.config.json").read_text())
    long = np.array(config["rope_scaling"]["long_factor"], np.float32)
    short = np.array(config["rope_scaling"]["short_factor"], np.float32)
    assert long.shape == short.shape == (48,)
    meta = read_gguf(str(HERE / "phi3.gguf")).metadata
    for file_long, file_short in ((long[:47], short), (long[:47], long), (long, short[:47])):
        tensors = {"rope_factors_long.weight": file_long, "rope_factors_short.weight": file_short}
        rows = {f.item: f for f in check_gguf(config, "phi3", meta, tensors)}
        bad = {k: (f.expected, f.found) for k, f in rows.items() if f.status == "differ"}
        short_file = file_long.shape == (48,)
        name = "rope_factors_short.weight" if short_file else "rope_factors_long.weight"
        assert bad[name] == ("shape (48,)", "shape (47,)")
        assert "/".join(sorted(tensors)) not in rows  # no swap named


def test_equal_long_and_short_lists_are_never_named_swapped():
    """phi3.config.json with its short_factor set to its long_factor: the file's tensors hold
    that list (the long one 16 float32 steps up in its first value, just within the 16 ulps
    the check allows): each tensor agrees, and no swap is named (a swap of two equal lists is
    no mistake)."""
    config = json.loads((HERE / "phi3.config.json").read_text())
    config["rope_scaling"]["short_factor"] = list(config["rope_scaling"]["long_factor"])
    short = np.array(config["rope_scaling"]["long_factor"], np.float32)
    long = short.copy()
    long[0] = (long[:1].view(np.int32) + 16).view(np.float32)[0]  # positive: 16 steps up
    meta = read_gguf(str(HERE / "phi3.gguf")).metadata
    tensors = {"rope_factors_long.weight": long, "rope_factors_short.weight": short}
    rows = {f.item: f.status for f in check_gguf(config, "phi3", meta, tensors)}
    assert rows["rope_factors_long.weight"] == rows["rope_factors_short.weight"] == "agree"
    assert "differ" not in rows.values() and "missing" not in rows.values()


@pytest.mark.parametrize("which", ["long", "short"])
@pytest.mark.parametrize(("steps", "swapped"), [(16, True), (17, False)])
def test_a_swap_is_named_within_16_ulps_of_the_other_list(steps, swapped, which):
    """The file's long tensor is the config's short_factor, its short tensor the long_factor,
    the first value of one of them moved ``steps`` float32 steps up: 16 steps is within the
    16 ulps the check allows (the swap is named), 17 is not (the elements are)."""
    config = json.loads((HERE / "phi3.config.json").read_text())
    long = np.array(config["rope_scaling"]["short_factor"], np.float32)  # swapped
    short = np.array(config["rope_scaling"]["long_factor"], np.float32)
    moved = long if which == "long" else short
    moved[0] = (moved[:1].view(np.int32) + steps).view(np.float32)[0]  # positive: steps up
    meta = read_gguf(str(HERE / "phi3.gguf")).metadata
    tensors = {"rope_factors_long.weight": long, "rope_factors_short.weight": short}
    rows = {f.item: f.status for f in check_gguf(config, "phi3", meta, tensors)}
    name = "rope_factors_long.weight/rope_factors_short.weight"
    assert (rows.get(name) == "differ") == swapped
    assert (f"rope_factors_{which}.weight[0]" in rows) != swapped


def test_a_differing_freq_base_without_tensors_is_named_as_it_is():
    """A default-rope config (θ 10^4) against a file of freq_base 5·10^5 and no frequency
    tensor: the key differs, with no reading of a rope_freqs tensor beside it."""
    config = {
        "model_type": "llama",
        "hidden_size": 256,
        "num_attention_heads": 4,
        "rope_theta": 10000.0,
    }
    meta = {"llama.rope.freq_base": 500000.0, "llama.rope.dimension_count": 64}
    rows = {f.item: f for f in check_gguf(config, "llama", meta, {})}
    row = rows["llama.rope.freq_base"]
    assert (row.status, row.expected, row.found, row.detail) == ("differ", 10000.0, 500000.0, "")


def test_rope_freqs_read_as_another_rope_type_get_no_reading_beside_them():
    """llama31.gguf's keys with a rope_freqs of 64 twos: ``θ^(-2j/d) / 2`` is a linear scaling
    of factor 2, not llama3's: the differing tensor is named with its counts only (a reading
    is put beside it only when it is the config's rope type, llama3)."""
    config = json.loads((HERE / "llama31.config.json").read_text())
    meta = read_gguf(str(HERE / "llama31.gguf")).metadata
    tensors = {"rope_freqs.weight": np.full(64, 2.0, np.float32)}
    bad = [f for f in check_gguf(config, "llama", meta, tensors) if f.status == "differ"]
    assert [(f.item, f.expected, f.found) for f in bad] == [("rope_freqs.weight[0]", 1.0, 2.0)]
    assert bad[0].detail.startswith("64 of 64 values differ by more than 16 float32 ulps")
