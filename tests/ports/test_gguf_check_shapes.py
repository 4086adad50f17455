"""``gguf check`` of frequency tensors of the wrong length (Phi-3's committed fixture).

phi3.config.json holds 48 long and 48 short factors (``d/2`` of a 96-wide head). A file whose
``rope_factors_long`` has 47 values is no swap of the lists: the check names its shape, and
the short tensor, the config's own, agrees.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

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
    that list (the short one 1 float32 step up in its first value, within the 16 ulps the
    check allows): each tensor agrees, and no swap is named (a swap of two equal lists is no
    mistake)."""
    config = json.loads((HERE / "phi3.config.json").read_text())
    config["rope_scaling"]["short_factor"] = list(config["rope_scaling"]["long_factor"])
    long = np.array(config["rope_scaling"]["long_factor"], np.float32)
    short = long.copy()
    short[0] = np.nextafter(short[0], np.float32(np.inf))
    meta = read_gguf(str(HERE / "phi3.gguf")).metadata
    tensors = {"rope_factors_long.weight": long, "rope_factors_short.weight": short}
    rows = {f.item: f.status for f in check_gguf(config, "phi3", meta, tensors)}
    assert rows["rope_factors_long.weight"] == rows["rope_factors_short.weight"] == "agree"
    assert "differ" not in rows.values() and "missing" not in rows.values()
