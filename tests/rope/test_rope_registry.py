"""The rope type records (pecli/core/rope/registry.py) against the docs and transformers' rules.

* docs/rope.md's table of rope types and docs/cli.md's option table say what the records say;
* the fields each type needs, reads and defaults are transformers 5.24's, written out here by
  hand from ``transformers/modeling_rope_utils.py`` (``_validate_<type>_rope_parameters``,
  ``_compute_<type>_parameters``), and the checks, the config reader and the formulas obey them;
* dynamic's rotated width of at least 4, against a value derived by hand.
"""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

import numpy as np
import pytest

from pecli.core.errors import ParameterError
from pecli.core.rope import RopeSpec, rope_frequencies
from pecli.core.rope.config import spec_from_config
from pecli.core.rope.framework import FRAMEWORK_TYPES
from pecli.core.rope.frequencies import unscaled_inv_freq
from pecli.core.rope.registry import FACTOR_AT_LEAST_ONE, RECORDS, ROPE_TYPES, default_of

DOCS = Path(__file__).resolve().parent.parent.parent / "docs"

#: A complete spec of each type (every field it needs), small enough to check by hand.
COMPLETE = {
    "default": RopeSpec("default", 10000.0, 8),
    "linear": RopeSpec("linear", 10000.0, 8, factor=2.0),
    "dynamic": RopeSpec("dynamic", 10000.0, 8, factor=2.0, max_position_embeddings=64),
    "yarn": RopeSpec("yarn", 10000.0, 8, factor=4.0, original_max_position_embeddings=64),
    "longrope": RopeSpec(
        "longrope",
        10000.0,
        8,
        original_max_position_embeddings=64,
        factor=2.0,
        short_factor=(1.0,) * 4,
        long_factor=(2.0,) * 4,
    ),
    "llama3": RopeSpec(
        "llama3",
        10000.0,
        8,
        factor=8.0,
        low_freq_factor=1.0,
        high_freq_factor=4.0,
        original_max_position_embeddings=64,
    ),
    "proportional": RopeSpec("proportional", 10000.0, 8, partial_rotary_factor=0.5),
}
#: transformers 5.24's required keys, without rope_type / rope_theta (yarn's factor may come
#: from max/original; dynamic also needs max_position_embeddings, a top-level field).
REQUIRED = {
    "default": (),
    "linear": ("factor",),
    "dynamic": ("factor", "max_position_embeddings"),
    "yarn": ("original_max_position_embeddings",),
    "longrope": ("original_max_position_embeddings", "short_factor", "long_factor"),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
    "proportional": (),
}
#: The keys each type reads from rope_parameters (required and optional keys of its
#: validator; proportional's compute function reads ``factor``, default 1.0).
READS = {
    "default": set(),
    "linear": {"factor"},
    "dynamic": {"factor"},
    "yarn": {
        "factor",
        "original_max_position_embeddings",
        "attention_factor",
        "beta_fast",
        "beta_slow",
        "mscale",
        "mscale_all_dim",
        "truncate",
    },
    "longrope": {
        "factor",
        "original_max_position_embeddings",
        "attention_factor",
        "short_factor",
        "long_factor",
    },
    "llama3": {"factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"},
    "proportional": {"factor"},
}


def frequencies_table() -> list[list[str]]:
    """The cells of the rope type table under docs/rope.md's "## Frequencies"."""
    section = (DOCS / "rope.md").read_text(encoding="utf-8").split("## Frequencies", 1)[1]
    rows = [line for line in section.split("\n## ", 1)[0].splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows[2:]]


def test_the_docs_table_lists_every_rope_type_in_order():
    names = [re.match(r"`([a-z0-9_]+)`", row[0])[1] for row in frequencies_table()]
    assert names == list(ROPE_TYPES) == list(REQUIRED)


@pytest.mark.parametrize("row", frequencies_table(), ids=lambda row: row[0])
def test_each_docs_row_is_its_record(row):
    name = re.match(r"`([a-z0-9_]+)`", row[0])[1]
    kind = RECORDS[name]
    assert row[0] == f"`{name}`" + (f" {kind.label}" if kind.label else "")
    assert row[1:4] == [kind.omega, kind.attention, kind.per_pair]
    assert re.findall(r"`([^`]+)`", row[4]) == [kind.source]


def test_cli_md_option_table_agrees_with_the_records():
    text = (DOCS / "cli.md").read_text(encoding="utf-8").split("## pecli rope\n", 1)[1]
    rows = {line.split(" | ")[0].strip("| "): line for line in text.splitlines() if "|" in line}
    rope_type = rows["`--rope-type`"].split(" | ")[2]  # the one table of rope types, no copy
    assert "](rope.md#frequencies)" in rope_type, rope_type
    assert not set(re.findall(r"`([a-z0-9]+)`", rope_type)) & set(ROPE_TYPES), rope_type
    factor = rows["`--factor`"].split("at least 1 for ")[1]
    assert re.findall(r"`([a-z0-9]+)`", factor) == list(FACTOR_AT_LEAST_ONE)
    arithmetic = text.split("## pecli rope cache", 1)[1].split("`--arithmetic`", 1)[1]
    framework = arithmetic.splitlines()[0].split("cos/sin (", 1)[1].split(";")[0]
    assert re.findall(r"`([a-z0-9]+)`", framework) == list(FRAMEWORK_TYPES)
    betas = rows["`--beta-fast`, `--beta-slow`"].split(" | ")[1]
    assert betas == f"{default_of('beta_fast'):g}, {default_of('beta_slow'):g}" == "32, 1"


@pytest.mark.parametrize("name", list(REQUIRED))
def test_the_records_are_transformers(name):
    kind = RECORDS[name]
    assert kind.required == REQUIRED[name]
    assert set(kind.reads) == READS[name]
    assert set(kind.defaults) <= set(kind.reads)
    # transformers' float32 steps are repeated for these four (tests/rope/test_rope_framework.py)
    assert (kind.float32 is not None) == (name in ("default", "linear", "yarn", "llama3"))


@pytest.mark.parametrize(
    ("name", "field"), [(n, f) for n, fields in REQUIRED.items() for f in fields]
)
def test_a_missing_required_field_is_named(name, field):
    rope_frequencies(COMPLETE[name])  # complete: no error
    with pytest.raises(ParameterError) as error:
        rope_frequencies(dataclasses.replace(COMPLETE[name], **{field: None}))
    assert (error.value.parameter, error.value.rule) == (
        field,
        f"is required by rope_type {name!r}",
    )


@pytest.mark.parametrize("name", list(REQUIRED))
def test_a_factor_below_one(name):
    spec = dataclasses.replace(COMPLETE[name], factor=0.5)
    if name in ("default", "proportional"):  # transformers warns for the five others only
        assert rope_frequencies(spec).spec.factor == 0.5
        return
    with pytest.raises(ParameterError, match=f"must be >= 1 for rope_type '{name}'"):
        rope_frequencies(spec)


@pytest.mark.parametrize("style", ["rope_scaling", "rope_parameters"])
@pytest.mark.parametrize("name", list(REQUIRED))
def test_the_config_reader_takes_the_fields_of_the_type(name, style):
    spec = COMPLETE[name]
    params = {
        k: list(v) if isinstance(v, tuple) else v
        for k, v in spec.given().items()
        if k in READS[name]
    }
    config = {
        "head_dim": 8,
        "max_position_embeddings": 64,
        style: {"rope_type": name, "unused_key": 1, **params},
    }
    if style == "rope_parameters":  # transformers 5: θ inside
        config[style]["rope_theta"] = 10000.0
    else:
        config["rope_theta"] = 10000.0
    if name == "proportional":
        config["partial_rotary_factor"] = 0.5
    read, notes = spec_from_config(config)
    assert read.rope_type == name and read.factor == spec.factor and read.theta == 10000.0
    assert [n for n in notes if "is not used" in n] == [
        f"unused_key is not used by rope_type {name!r} (ignored)"
    ]
    older = any("a parser that knows only type/factor (linear, dynamic)" in n for n in notes)
    assert older == (name not in ("default", "linear", "dynamic"))


@pytest.mark.parametrize("name", list(REQUIRED))
def test_a_top_level_original_length_is_read_by_the_types_that_use_it(name):
    # transformers' standardize_rope_params: the top-level value (Phi-3) wins, for the types
    # whose validator takes original_max_position_embeddings
    params = {
        k: list(v) if isinstance(v, tuple) else v
        for k, v in COMPLETE[name].given().items()
        if k in READS[name]
    }
    config = {
        "head_dim": 8,
        "max_position_embeddings": 64,
        "rope_theta": 10000.0,
        "original_max_position_embeddings": 32,
        "rope_scaling": {"type": name, **params},
    }
    if name == "proportional":
        config["partial_rotary_factor"] = 0.5
    read, notes = spec_from_config(config)
    uses = "original_max_position_embeddings" in READS[name]
    assert (read.original_max_position_embeddings == 32) == uses
    assert any("read from the top level" in n for n in notes) == uses


def test_yarn_and_longrope_take_the_factor_from_the_lengths():
    for name in ("yarn", "longrope"):
        spec = dataclasses.replace(COMPLETE[name], factor=None, max_position_embeddings=2048)
        assert rope_frequencies(spec).notes["factor"] == 32.0  # 2048 / 64
        with pytest.raises(ParameterError, match="or max_position_embeddings, to take max/orig"):
            rope_frequencies(dataclasses.replace(spec, max_position_embeddings=None))


@pytest.mark.parametrize(
    ("fields", "named", "rule"),
    [
        ({"factor": 1.0}, None, None),  # a factor of exactly 1 is allowed (transformers: < 1 warns)
        ({"high_freq_factor": 1.0}, None, None),  # Llama 4 Scout: low = high = 1 (transformers too)
        ({"high_freq_factor": 0.5}, "high_freq_factor", "must be >= low_freq_factor"),
        ({"low_freq_factor": 0.0}, "low_freq_factor", "must be > 0"),
    ],
)
def test_llama3_rules(fields, named, rule):
    spec = dataclasses.replace(COMPLETE["llama3"], **fields)
    if named is None:
        assert rope_frequencies(spec).spec == spec
        return
    with pytest.raises(ParameterError) as error:
        rope_frequencies(spec)
    assert error.value.parameter == named and rule in error.value.rule


@pytest.mark.parametrize(
    ("fields", "named", "rule"),
    [
        ({"short_factor": (1.0,) * 3}, "short_factor", "must hold rotary_dim/2 = 4 numbers"),
        ({"long_factor": (1.0,) * 5}, "long_factor", "must hold rotary_dim/2 = 4 numbers"),
        ({"long_factor": (1.0, 1.0, 0.0, 1.0)}, "long_factor", "must be a finite number > 0"),
    ],
)
def test_longrope_factor_lists(fields, named, rule):
    with pytest.raises(ParameterError) as error:
        rope_frequencies(dataclasses.replace(COMPLETE["longrope"], **fields))
    assert error.value.parameter == named and rule in error.value.rule


def test_equal_betas_are_read_and_reversed_betas_refused():
    # Kimi K2 ships beta_fast = beta_slow = 1; transformers' ramp adds 0.001 to the top
    # (the model-zoo corpus, hub__kimi_k2_beta1, checks the values)
    equal = dataclasses.replace(COMPLETE["yarn"], beta_fast=8.0, beta_slow=8.0)
    assert rope_frequencies(equal).spec.beta_fast == 8.0
    with pytest.raises(ParameterError, match="must be >= beta_slow = 8"):
        rope_frequencies(dataclasses.replace(COMPLETE["yarn"], beta_fast=4.0, beta_slow=8.0))


def test_yarn_defaults_are_transformers_32_and_1():
    # transformers: beta_fast = … or 32, beta_slow = … or 1; find_correction_dim
    # c(r) = dim·ln(L/(2π·r))/(2·ln θ)
    spec = dataclasses.replace(COMPLETE["yarn"], head_dim=64, original_max_position_embeddings=4096)
    notes = rope_frequencies(spec).notes

    def c(rotations):
        return 64 * math.log(4096 / (2 * math.pi * rotations)) / (2 * math.log(10000.0))

    assert notes["correction_low"] == pytest.approx(c(32), rel=1e-14)
    assert notes["correction_high"] == pytest.approx(c(1), rel=1e-14)
    assert (notes["ramp_low"], notes["ramp_high"]) == (math.floor(c(32)), math.ceil(c(1)))


def test_proportional_factor_defaults_to_one():
    # θ = 10000, head_dim 8, partial 0.5: int(0.5·8 // 2) = 2 pairs 1/θ^(2k/8), then 2 zeros
    freqs = rope_frequencies(COMPLETE["proportional"])
    np.testing.assert_allclose(freqs.inv_freq, [1.0, 0.1, 0.0, 0.0], rtol=1e-15)
    assert freqs.scaling == ("unchanged", "unchanged", "pass-through", "pass-through")
    halved = dataclasses.replace(COMPLETE["proportional"], factor=2.0)
    np.testing.assert_allclose(rope_frequencies(halved).inv_freq, [0.5, 0.05, 0, 0], rtol=1e-15)
    np.testing.assert_allclose(unscaled_inv_freq(halved), [1.0, 0.1, 0.0, 0.0], rtol=1e-15)


def test_dynamic_needs_a_rotated_width_of_four():
    # θ' = θ·(f·S/M − (f − 1))^(dim/(dim−2)) = 10000·(2·20/10 − 1)^2 = 90000; ω = 1, 1/300
    spec = RopeSpec("dynamic", 10000.0, 4, factor=2.0, max_position_embeddings=10, seq_len=20)
    freqs = rope_frequencies(spec)
    np.testing.assert_allclose(freqs.inv_freq, [1.0, 1 / 300], rtol=1e-15)
    assert freqs.notes["theta_effective"] == 90000.0
    with pytest.raises(ParameterError) as error:  # dim/(dim − 2) = 2/0 was an internal error
        rope_frequencies(dataclasses.replace(spec, head_dim=2))
    assert error.value.parameter == "head_dim" and "at least 4" in error.value.rule
