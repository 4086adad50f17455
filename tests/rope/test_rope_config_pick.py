"""Which rope parameters a config's reading takes, and the exponent of an absolute rotated width.

transformers 5 keeps ``rope_parameters`` either whole (one set for every layer) or per layer
type (``{"full_attention": {...}, "sliding_attention": {...}}``). pecli's reader takes the one
set there is, the set of the layer type asked for, the whole set for any layer type, and
refuses to guess between two. With an absolute rotated width (``rotary_dim``) the exponent runs
over that width (``θ^(-2k/rotary_dim)``), except for ``proportional``, whose exponent runs over
the whole head and whose pairs past the rotated ones turn at ω = 0
(``_compute_proportional_rope_parameters``). The numbers are θ^(-2k/D) by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from pecli.core.errors import ParameterError
from pecli.core.rope import rope_frequencies
from pecli.core.rope.config import read_rope

PER_TYPE = {
    "full_attention": {"rope_type": "default", "rope_theta": 5e5},
    "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
}


def test_a_single_layer_type_is_taken_without_naming_it():
    config = {"head_dim": 64, "rope_parameters": {"full_attention": PER_TYPE["full_attention"]}}
    assert read_rope(config).spec.theta == 5e5


def test_a_whole_set_serves_any_layer_type():
    config = {"head_dim": 64, "rope_parameters": PER_TYPE["sliding_attention"]}
    assert read_rope(config, "full_attention").spec.theta == 1e4


def test_two_layer_types_are_named_and_an_unknown_one_refused():
    config = {"head_dim": 64, "rope_parameters": PER_TYPE}
    assert read_rope(config, "sliding_attention").spec.theta == 1e4
    assert read_rope(config, "full_attention").spec.theta == 5e5
    with pytest.raises(ParameterError, match="per layer type; pass one of them"):
        read_rope(config)
    with pytest.raises(ParameterError, match="no rope parameters for 'chunked_attention'"):
        read_rope(config, "chunked_attention")


def test_an_absolute_rotated_width_sets_the_exponent_except_for_proportional():
    config = {"head_dim": 128, "rotary_dim": 64, "rope_parameters": {"rope_theta": 1e4}}
    default = rope_frequencies(read_rope(config).spec).inv_freq
    k = np.arange(32)
    np.testing.assert_allclose(default, 1e4 ** (-2 * k / 64), rtol=1e-15)
    config["rope_parameters"]["rope_type"] = "proportional"
    reading = read_rope(config)
    proportional = rope_frequencies(reading.spec).inv_freq
    assert proportional.shape == (64,) and reading.rotated == 128
    np.testing.assert_allclose(proportional[:32], 1e4 ** (-2 * k / 128), rtol=1e-15)
    assert not proportional[32:].any()


def test_a_lone_label_serves_every_layer_but_two_labels_must_name_the_layers_type():
    """The layer plan: one rope set (labelled ``main`` here) is taken for every layer, whatever
    its type; ``main`` beside ``full_attention`` has no set for a sliding layer (only
    DeepSeek V4's pair ``main`` and ``compress`` maps sliding to main), so it is refused."""
    from pecli.core.rope.config.plans import layer_plan

    main = {"rope_type": "default", "rope_theta": 1e4}
    config = {"num_hidden_layers": 2, "head_dim": 64, "rope_parameters": {"main": main}}
    config["layer_types"] = ["full_attention", "sliding_attention"]
    rows, _ = layer_plan(config)
    assert [(r.label, r.theta) for r in rows] == [("main", 1e4), ("main", 1e4)]
    config["rope_parameters"] = {"main": main, "full_attention": PER_TYPE["full_attention"]}
    with pytest.raises(ParameterError, match="no rope parameters for layer type 'sliding_"):
        layer_plan(config)
