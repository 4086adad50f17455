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
