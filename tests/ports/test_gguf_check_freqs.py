"""``gguf check`` on a llama3 config against hand-made ``rope_freqs`` tensors.

llama.cpp's convert_hf_to_gguf.py (LlamaModel.generate_extra_tensors) writes, per pair j of
``freq = θ^(−2j/d)``, wavelength ``2π/freq``: 1 below ``L/high_freq_factor``, ``factor`` above
``L/low_freq_factor``, else ``1 / ((1 − s)/factor + s)`` with
``s = (L/wavelength − low)/(high − low)``. The config: θ 5·10^5, d 64, factor 8, low 1,
high 4, L 8192 (Llama 3.1's scaling on a small head).
"""

from __future__ import annotations

import math

import numpy as np
from rope_reference import LLAMA31_SCALING

from pecli.analysis.ports.gguf import check_gguf

CONFIG = {
    "model_type": "llama",
    "hidden_size": 256,
    "num_attention_heads": 4,
    "rope_theta": 500000.0,
    "max_position_embeddings": 131072,
    "rope_scaling": dict(LLAMA31_SCALING),
}
META = {"llama.rope.freq_base": 500000.0, "llama.rope.dimension_count": 64}


def factors(low: float, d: int = 64, length: int = 8192, factor: float = 8.0) -> np.ndarray:
    """The converter's rope_freqs for low_freq_factor ``low`` (high 4), float32."""
    out = []
    for j in range(d // 2):
        wavelength = 2 * math.pi / 500000.0 ** (-2 * j / d)
        if wavelength < length / 4.0:
            out.append(1.0)
        elif wavelength > length / low:
            out.append(factor)
        else:
            s = (length / wavelength - low) / (4.0 - low)
            out.append(1 / ((1 - s) / factor + s))
    return np.array(out, np.float32)


def freqs_findings(tensors):
    return [f for f in check_gguf(CONFIG, "llama", META, tensors) if "rope_freqs" in f.item]


def test_the_converters_factors_agree():
    (finding,) = freqs_findings({"rope_freqs.weight": factors(1.0)})
    assert (finding.item, finding.status) == ("rope_freqs.weight", "agree")


def test_the_converters_factors_agree_within_0_ulps():
    """The converter's float32 factors are the ones the config implies, to the bit: 0 ulps."""
    (finding,) = freqs_findings({"rope_freqs.weight": factors(1.0)})
    assert finding.detail == "32 values within 0 ulps"


def test_a_llama3_file_without_rope_freqs_misses_its_32_values():
    """d 64: 32 pairs, one factor each, which the converter writes."""
    (finding,) = freqs_findings({})
    assert (finding.item, finding.status, finding.expected) == (
        "rope_freqs.weight",
        "missing",
        "32 values",
    )
    assert finding.detail == "the converter writes it"


def test_factors_of_another_low_freq_factor_differ_without_a_reading_to_name():
    """Made with low_freq_factor 2: pairs 15 … 17 (wavelengths between 4096 and 8192) are
    smoothed instead of divided by 8: 3 of 32 differ, first at [15]."""
    (finding,) = freqs_findings({"rope_freqs.weight": factors(2.0)})
    assert (finding.item, finding.status) == ("rope_freqs.weight[15]", "differ")
    assert finding.detail.startswith("3 of 32 values differ by more than 16 float32 ulps")


def test_factors_that_are_no_rope_type_differ_without_a_reading():
    """32 values drawn from 3 … 9: no llama3 ladder (pair 0 is not 1): every value differs."""
    noise = np.random.default_rng(0).uniform(3, 9, 32).astype(np.float32)
    (finding,) = freqs_findings({"rope_freqs.weight": noise})
    assert (finding.item, finding.status) == ("rope_freqs.weight[0]", "differ")
    assert finding.detail.startswith("32 of 32 values differ by more than 16 float32 ulps;")


def test_one_factor_113_ulps_off_differs_though_it_reads_as_the_configs_llama3():
    """Pair 16 times (1 + 10^-5) (about 113 float32 ulps at 2.69): the file still reads as
    llama3 factor 8, L 8192, high 4 (the config's), so no reading is named; the value differs."""
    tensor = factors(1.0)
    tensor[16] *= np.float32(1 + 1e-5)
    (finding,) = freqs_findings({"rope_freqs.weight": tensor})
    assert (finding.item, finding.status) == ("rope_freqs.weight[16]", "differ")
    assert finding.detail == (
        "1 of 32 values differ by more than 16 float32 ulps; first at [16], largest at [16]: "
        "113 ulps"
    )


def test_rope_freqs_of_half_the_pairs_differ_in_shape():
    """16 factors where d 64 has 32 pairs: the shapes are named, (32,) expected, (16,) found."""
    (finding,) = freqs_findings({"rope_freqs.weight": factors(1.0)[:16]})
    assert (finding.item, finding.status) == ("rope_freqs.weight", "differ")
    assert (finding.expected, finding.found) == ("shape (32,)", "shape (16,)")
