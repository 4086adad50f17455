"""Reading checks every value of a large file, not only the first block it is checked in."""

from __future__ import annotations

import numpy as np
import pytest

from pecli.core.errors import ParameterError
from pecli.io.reading import read_array, read_table

N = (1 << 20) + 8  # past the first 2^20 values


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, ">f4"])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_table_refuses_a_value_past_the_first_block(tmp_path, bad, dtype):
    values = np.zeros((N // 8, 8), dtype)  # float16's largest finite value is 65504
    values[-1, -1] = bad
    np.save(tmp_path / "t.npy", values)
    with pytest.raises(ParameterError, match="finite numbers only") as caught:
        read_table(tmp_path / "t.npy")
    assert f"{float(bad)} at [{N // 8 - 1}, 7]" in str(caught.value)  # the first bad value


def test_float16_at_its_largest_finite_value_is_a_number(tmp_path):
    values = np.full((N // 8, 8), 65504, np.float16)
    np.save(tmp_path / "t.npy", values)
    assert read_table(tmp_path / "t.npy").dtype == np.float16


def test_an_array_takes_infinities_but_not_nan_past_the_first_block(tmp_path):
    values = np.zeros((2, N // 16, 8), np.float32)
    values[1, -1, -1] = -np.inf
    np.save(tmp_path / "a.npy", values)
    assert read_array(tmp_path / "a.npy").shape == values.shape
    values[1, -1, -2] = np.nan
    np.save(tmp_path / "a.npy", np.asfortranarray(values))
    with pytest.raises(ParameterError, match="infinities allowed") as caught:
        read_array(tmp_path / "a.npy")
    assert f"nan at [1, {N // 16 - 1}, 6]" in str(caught.value)


@pytest.mark.parametrize(("fortran", "first"), [(False, "[0, 0, 1]"), (True, "[1, 0, 0]")])
def test_the_first_nan_is_named_by_its_index_in_the_file_s_order(tmp_path, fortran, first):
    values = np.zeros((2, 3, 4), np.float32)
    values[1, 0, 0] = values[0, 0, 1] = np.nan  # C order meets [0, 0, 1] first, Fortran [1, 0, 0]
    np.save(tmp_path / "a.npy", np.asfortranarray(values) if fortran else values)
    with pytest.raises(ParameterError) as caught:
        read_array(tmp_path / "a.npy")
    assert str(caught.value).endswith(f"a.npy: nan at {first}')")


def test_read_array_takes_one_to_four_axes_and_refuses_five(tmp_path):
    np.save(tmp_path / "four.npy", np.ones((2, 1, 3, 2), np.float32))
    np.save(tmp_path / "five.npy", np.ones((2, 1, 3, 2, 1), np.float32))
    assert read_array(tmp_path / "four.npy").shape == (2, 1, 3, 2)
    with pytest.raises(ParameterError, match="1-D to 4-D"):
        read_array(tmp_path / "five.npy")


@pytest.mark.parametrize(("values", "refused"), [(1 << 26, False), ((1 << 26) + 1, True)])
def test_a_npy_of_exactly_2_to_the_26_values_is_read_and_one_more_is_refused(
    tmp_path, values, refused
):
    """The cap is "at most 2^26 values": a sparse float16 file (128 MiB of zeros, no disk)."""
    from pecli.io.reading.npy import load_keeping_dtype

    path = tmp_path / "big.npy"
    with open(path, "wb") as handle:
        np.lib.format.write_array_header_1_0(
            handle, {"descr": "<f2", "fortran_order": False, "shape": (values,)}
        )
        handle.truncate(handle.tell() + 2 * values)
    if refused:
        with pytest.raises(ParameterError, match=r"at most 67108864 values"):
            load_keeping_dtype(str(path), "big.npy", "FILE")
    else:
        table = load_keeping_dtype(str(path), "big.npy", "FILE")
        assert table.shape == (values,) and table.dtype == np.float16 and not table.any()


@pytest.mark.parametrize(("bad", "said"), [(np.nan, "nan"), (-np.inf, "-inf")])
def test_activations_take_no_infinity_and_say_so_for_nan_too(tmp_path, bad, said):
    """q or k activations hold no mask: an infinity is refused as NaN is, under one rule.
    NaN had been "must hold numbers (infinities allowed)", then an infinity refused anyway."""
    from pecli.io.reading.activations import read_activations

    values = np.ones((3, 2, 4), np.float32)
    values[1, 0, 2] = bad
    np.save(tmp_path / "q.npy", values)
    with pytest.raises(ParameterError, match="must hold finite numbers only") as caught:
        read_activations(str(tmp_path / "q.npy"))
    assert str(caught.value).endswith(f"q.npy: {said} at [1, 0, 2]')")
