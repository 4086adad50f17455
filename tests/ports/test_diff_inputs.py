"""What ``pecli diff`` reads from a file of several arrays, and how it refuses one.

Hand-built inputs with values written here; the expected refusals follow the documented rule
of :func:`pecli.analysis.ports.diff.one_table` (several tensors and no name: refused, naming
the tensors found, at most eight of them so the message stays one line).
"""

from __future__ import annotations

import numpy as np
import pytest

from pecli.analysis.ports.diff import one_table
from pecli.core.errors import ParameterError


def test_several_tensors_are_refused_naming_the_first_eight():
    """Ten arrays t0 … t9: the refusal counts 10 and lists t0 to t7, not t8."""
    arrays = {f"t{k}": np.ones((2, 2)) for k in range(10)}
    with pytest.raises(ParameterError) as refused:
        one_table(arrays, parameter="a", tensor_parameter="tensor_a")
    assert refused.value.rule == "holds 10 tensors: name one with `tensor_a`"
    assert refused.value.value == "t0, t1, t2, t3, t4, t5, t6, t7"


def test_cos_and_sin_of_one_2d_shape_are_read_as_cos_then_sin():
    """cos and sin of one 2-D shape make ``[cos | sin]``; other shapes are two tensors."""
    cos, sin = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[5.0, 6.0], [7.0, 8.0]])
    table = one_table({"cos": cos, "sin": sin}, parameter="a", tensor_parameter="t")
    assert table.tolist() == [[1.0, 2.0, 5.0, 6.0], [3.0, 4.0, 7.0, 8.0]]
    for pair in ({"cos": cos, "sin": sin[:1]}, {"cos": cos[0], "sin": sin[0]}):
        with pytest.raises(ParameterError, match="holds 2 tensors"):
            one_table(pair, parameter="a", tensor_parameter="t")


@pytest.mark.parametrize("shape", [(), (0,), (3, 0)])
def test_a_lone_array_of_no_values_is_refused_with_its_shape(shape):
    with pytest.raises(ParameterError) as refused:
        one_table({"x": np.zeros(shape)}, parameter="b", tensor_parameter="t")
    assert refused.value.rule == "must hold a vector or a table of at least one value"
    assert (refused.value.parameter, refused.value.value) == ("b", f"shape {shape}")


@pytest.mark.parametrize("shape", [(1,), (3,), (1, 1), (2, 3)])
def test_a_lone_array_of_values_is_the_table(shape):
    x = np.arange(float(np.prod(shape))).reshape(shape)
    assert one_table({"x": x}, parameter="b", tensor_parameter="t") is x


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.bool_])
def test_a_tensor_of_integers_is_no_table_of_a_port(dtype):
    """An int32 tensor (of an .npz) was read as bfloat16 arithmetic's, since small integers
    are bfloat16 numbers (a clean-clone helper): it is refused, naming its dtype."""
    with pytest.raises(ParameterError) as refused:
        one_table({"t": np.ones((2, 3), dtype)}, parameter="b", tensor_parameter="tensor_b")
    assert refused.value.parameter == "b"
    assert refused.value.rule == "must hold floating-point values"
    assert refused.value.value == f"dtype {np.dtype(dtype)}"


@pytest.mark.parametrize("suffix", [".npy", ".npz"])
def test_integers_are_refused_in_every_format_that_keeps_a_dtype(run_cli, tmp_path, suffix):
    """A .npy of int16 was turned into float64 by the reader, so ``diff`` compared it where
    the same values in an .npz were refused: both are refused now, as the argument, with the
    dtype, before any report (status 2)."""
    ints, floats = tmp_path / f"ints{suffix}", tmp_path / "floats.npy"
    values = np.arange(12, dtype=np.int16).reshape(3, 4)
    if suffix == ".npy":
        np.save(ints, values)
    else:
        np.savez(ints, t=values)
    np.save(floats, values.astype(np.float64))
    result = run_cli("diff", str(floats), str(ints))
    assert result.exit_code == 2
    assert "Invalid value for 'B': must hold floating-point values (got dtype int16)" in (
        result.output
    )
    assert "error per position decade" not in result.output
