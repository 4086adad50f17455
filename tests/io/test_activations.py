"""Activations read from a .safetensors file (rope probe's q and k dumps): the named tensor."""

from __future__ import annotations

import numpy as np
import pytest
from safetensors.numpy import save_file

from pecli.core.errors import ParameterError
from pecli.io.reading.activations import read_activations


def test_a_safetensors_dump_gives_the_named_tensor_as_stored(tmp_path):
    rng = np.random.default_rng(0)
    q = rng.standard_normal((5, 2, 8)).astype(np.float32)
    k = rng.standard_normal((5, 2, 8)).astype(np.float16)
    path = str(tmp_path / "dump.safetensors")
    save_file({"q": q, "k": k}, path)
    got = read_activations(path, tensor="q")
    assert got.dtype == np.float32 and np.array_equal(got, q)
    assert np.array_equal(read_activations(path, tensor="k"), k.astype(got.dtype))
    with pytest.raises(ParameterError):
        read_activations(path, tensor="v")  # a name the file lacks


@pytest.mark.parametrize(("values", "refused"), [(1 << 26, False), ((1 << 26) + 1, True)])
def test_a_tensor_of_exactly_2_to_the_26_values_is_read_and_one_more_is_refused(
    tmp_path, values, refused
):
    """ "At most 2^26 values": a .safetensors file written by hand (its format: 8 bytes of
    header length, the JSON header, the data), sparse float16 zeros (128 MiB, no disk)."""
    import json
    import struct

    header = json.dumps({"h": {"dtype": "F16", "shape": [values], "data_offsets": [0, 2 * values]}})
    path = tmp_path / "big.safetensors"
    with open(path, "wb") as handle:
        handle.write(struct.pack("<Q", len(header)) + header.encode())
        handle.truncate(handle.tell() + 2 * values)
    if refused:
        with pytest.raises(ParameterError, match=r"at most 67108864 values"):
            read_activations(str(path), tensor="h")
    else:
        array = read_activations(str(path), tensor="h")
        assert array.shape == (values,) and array.dtype == np.float16 and not array.any()


def test_a_dump_of_one_tensor_needs_no_name_and_one_of_many_is_asked_for(tmp_path):
    """One tensor is the one read; of ten, the message lists eight and counts the rest."""
    one = str(tmp_path / "one.safetensors")
    q = np.arange(12, dtype=np.float32).reshape(3, 4)
    save_file({"q": q}, one)
    assert np.array_equal(read_activations(one), q)
    many = str(tmp_path / "many.safetensors")
    save_file({f"t{i}": q for i in range(10)}, many)
    listed = "t0, t1, t2, t3, t4, t5, t6, t7, … and 2 more"
    with pytest.raises(ParameterError) as caught:
        read_activations(many, parameter="pre")
    assert caught.value.parameter == "tensor"  # the option to add (rope probe's --tensor-pre)
    assert f"must name one of the 10 tensors of {many} ({listed})" in str(caught.value)
    with pytest.raises(ParameterError) as caught:
        read_activations(many, tensor="v")
    assert caught.value.parameter == "tensor"
    assert f"must name a tensor of {many} (it has: {listed})" in str(caught.value)


def test_eight_tensors_are_all_listed_with_nothing_counted(tmp_path):
    path = str(tmp_path / "eight.safetensors")
    save_file({f"t{i}": np.zeros(2, dtype=np.float32) for i in range(8)}, path)
    with pytest.raises(ParameterError) as caught:
        read_activations(path)
    assert "the 8 tensors of " in str(caught.value)
    assert "(t0, t1, t2, t3, t4, t5, t6, t7) (got 'nothing')" in str(caught.value)
