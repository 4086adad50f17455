"""``gguf check`` of keys the file leaves out: llama.cpp's own defaults stand in for them.

llama.cpp's ``llama_model::load_hparams`` reads ``rope.freq_base`` with 10000 when absent,
``rope.scaling.factor`` 1 (no scaling), ``rope.scaling.yarn_beta_fast`` 32 and
``rope.scaling.yarn_beta_slow`` 1; a config asking for exactly those values agrees with a file
that omits the keys, and the finding shows the default as what was found.
"""

from __future__ import annotations

from pecli.analysis.ports.gguf import check_gguf

BASE = {
    "model_type": "llama",
    "hidden_size": 256,
    "num_attention_heads": 4,
    "max_position_embeddings": 4096,
    "rope_theta": 10000.0,
}
DEFAULT = "absent: llama.cpp's default"


def _rows(config: dict, meta: dict) -> dict[str, tuple]:
    found = check_gguf(config, "llama", {"llama.rope.dimension_count": 64, **meta}, {})
    return {f.item: (f.status, f.expected, f.found, f.detail) for f in found}


def test_an_absent_freq_base_is_10000():
    rows = _rows(BASE, {})
    assert rows["llama.rope.freq_base"] == ("agree", 10000.0, 10000.0, DEFAULT)
    assert rows["llama.rope.scaling.type"] == ("agree", "none", "none", DEFAULT)


def test_an_absent_scaling_factor_is_1():
    """A linear scaling of factor 1 asks for factor 1: the absent key's default, 1, agrees."""
    config = dict(BASE, rope_scaling={"rope_type": "linear", "factor": 1.0})
    assert _rows(config, {})["llama.rope.scaling.factor"] == ("agree", 1.0, 1.0, DEFAULT)


def test_absent_yarn_betas_are_32_and_1():
    """A yarn config without beta_fast / beta_slow (transformers' 32 and 1) against a file
    without the keys: both agree, found as llama.cpp's defaults 32 and 1."""
    config = dict(
        BASE,
        rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024},
    )
    meta = {
        "llama.rope.scaling.type": "yarn",
        "llama.rope.scaling.factor": 4.0,
        "llama.rope.scaling.original_context_length": 1024,
    }
    rows = _rows(config, meta)
    assert rows["llama.rope.scaling.yarn_beta_fast"] == ("agree", 32.0, 32.0, DEFAULT)
    assert rows["llama.rope.scaling.yarn_beta_slow"] == ("agree", 1.0, 1.0, DEFAULT)


def test_an_absent_dimension_count_without_a_head_count_is_not_found():
    """No rope.dimension_count, no attention.key_length: llama.cpp takes ``n_embd / n_head``,
    and a file with its width but no head count (or the other way round) gives no width."""
    for meta in ({"llama.embedding_length": 256}, {"llama.attention.head_count": 4}):
        rows = {f.item: f for f in check_gguf(BASE, "llama", meta, {})}
        row = rows["llama.rope.dimension_count"]
        assert (row.status, row.expected, row.found) == ("differ", 64, None), meta


def test_a_boolean_rope_key_gets_no_note():
    """``rope.scaling.finetuned`` (a BOOL llama.cpp reads) is no number the config implies:
    no note names it, while a stray float key (``rope.scaling.attn_factor`` 1.5) is noted."""
    meta = {
        "llama.rope.dimension_count": 64,
        "llama.rope.scaling.finetuned": True,
        "llama.rope.scaling.attn_factor": 1.5,
    }
    notes = [f.detail for f in check_gguf(BASE, "llama", meta, {}) if f.status == "note"]
    assert not [n for n in notes if "finetuned" in n]
    assert [n for n in notes if "llama.rope.scaling.attn_factor = 1.5 is in the file" in n]


def test_a_stray_sliding_theta_is_noted_with_what_llama_cpp_does_with_it():
    """A config with no sliding layers against a file with ``rope.freq_base_swa``: noted as
    the θ llama.cpp uses on the layers its sliding-window pattern marks."""
    meta = {"llama.rope.dimension_count": 64, "llama.rope.freq_base_swa": 10000.0}
    (note,) = [
        f.detail
        for f in check_gguf(BASE, "llama", meta, {})
        if f.status == "note" and "freq_base_swa" in f.detail
    ]
    assert note.startswith(
        "llama.rope.freq_base_swa = 10000 is in the file; the config implies no such key: "
        "llama.cpp uses it, in place of freq_base, on the layers its sliding-window pattern "
        "marks"
    )


def test_a_scaling_type_stored_as_a_number_differs():
    """``rope.scaling.type`` is a string ("none" for this config); a float in its place is
    no match, whatever its value."""
    rows = _rows(BASE, {"llama.rope.scaling.type": 0.0})
    assert rows["llama.rope.scaling.type"][:3] == ("differ", "none", 0.0)


def test_rope_freqs_are_read_with_the_default_freq_base_and_never_an_infinite_one():
    """identify's reading of a file's rope_freqs (all 1: ``θ^(-2j/d)`` itself) takes
    llama.cpp's default freq_base 10000 when the key is absent; an infinite one is no base."""
    from pecli.analysis.ports.gguf import identify_freqs

    ones, dims = [1.0] * 32, {"p.rope.dimension_count": 64}
    assert identify_freqs(ones, dims, "p.") == {"rope_type": "default", "theta": 10000.0}
    assert identify_freqs(ones, {**dims, "p.rope.freq_base": float("inf")}, "p.") is None


def test_sections_are_padded_to_four_with_zeros():
    """llama.cpp's converter pads ``mrope_section`` to the 4 ints of rope.dimension_sections
    with zeros: [8] is written [8, 0, 0, 0]."""
    from pecli.analysis.ports.gguf import expected_keys
    from pecli.core.rope.config import spec_from_config

    spec, _ = spec_from_config(BASE)
    keys = expected_keys(spec, {"rope_scaling": {"mrope_section": [8]}}, None)
    assert keys["rope.dimension_sections"] == [8, 0, 0, 0]


def test_a_nan_in_a_key_the_config_implies_none_of_differs():
    rows = _rows(BASE, {"llama.rope.scaling.attn_factor": float("nan")})
    status, expected, found, detail = rows["llama.rope.scaling.attn_factor"]
    assert (status, expected, detail) == ("differ", "absent", "the config implies no such key")
    assert found != found  # NaN
