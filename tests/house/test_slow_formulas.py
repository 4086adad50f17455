"""The slow references (slow_formulas.py) against a second transcription and against pecli.

Two independent transcriptions of each library (slow loops here, vectorised NumPy in
libraries.py) must agree before either is trusted to judge pecli; then every preset of
pecli must build the table of the library it names.
"""

from __future__ import annotations

import libraries as lib
import numpy as np
import pytest
import slow_formulas as slow

from pecli import PRESETS, convention, encoding_table


def close(a, b, atol=1e-12):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), b, rtol=0, atol=atol)


@pytest.mark.parametrize("d", [4, 10, 64])
def test_the_loops_agree_with_the_vectorised_transcriptions(d):
    n = 50
    close(slow.pytorch_tutorial(n, d), lib.pytorch_tutorial(n, d))
    close(slow.tensor2tensor(n, d), lib.tensor2tensor(n, d))
    close(slow.tensor2tensor(n, d + 1), lib.tensor2tensor(n, d + 1))
    close(slow.fairseq(n, d + 1, padding_idx=1), lib.fairseq(n, d + 1, padding_idx=1))
    close(slow.hf_marian(n, d), lib.hf_marian(n, d))
    close(slow.hf_marian(n, d + 1), lib.hf_marian(n, d + 1))
    close(slow.whisper(n, d), lib.whisper(n, d))
    for flip in (False, True):
        for shift in (0, 1):
            close(
                slow.diffusers(range(n), d + 1, flip, shift),
                lib.diffusers(np.arange(n), d + 1, flip, shift),
            )


def test_the_article_loop_is_the_papers_formula_by_hand():
    # PE(pos, 2i) = sin(pos / 10000^(2i/d)) with 0-based i: at d = 4, position 1
    (row,) = slow.vaswani(1, 4)
    assert row == [np.sin(1.0), np.cos(1.0), np.sin(1 / 100), np.cos(1 / 100)]
    # the PyTorch tutorial is the same table, one position earlier
    close(slow.pytorch_tutorial(20, 16, start=1), slow.vaswani(20, 16))
    # HF Marian is the same numbers as sin-cos blocks
    marian = np.array(slow.hf_marian(20, 16))
    tutorial = np.array(slow.pytorch_tutorial(20, 16))
    close(marian, np.concatenate([tutorial[:, 0::2], tutorial[:, 1::2]], axis=1))


def test_odd_widths_follow_each_library():
    (t2t,) = slow.tensor2tensor(1, 5, start=1)
    assert len(t2t) == 5 and t2t[-1] == 0.0 and t2t[0] == np.sin(1.0)
    (marian,) = slow.hf_marian(1, 5, start=1)  # three sines, then two cosines, no zero
    assert marian[:3] == [np.sin(1.0), np.sin(1 / 10000 ** (2 / 5)), np.sin(1 / 10000 ** (4 / 5))]
    assert marian[3:] == [np.cos(1.0), np.cos(1 / 10000 ** (2 / 5))]
    with pytest.raises(AssertionError):
        slow.whisper(3, 5)


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize(("d", "base"), [(8, 10000.0), (64, 10000.0), (34, 500.0)])
def test_every_preset_builds_the_table_of_the_library_it_names(name, d, base):
    n = 40
    table = encoding_table(d=d, n=n, base=base, dtype="float64", **convention(name).table_kwargs())
    close(table, slow.preset_table(name, n, d, base), atol=1e-13)
    if convention(name).odd_d != "error":
        odd = encoding_table(
            d=d + 1, n=n, base=base, dtype="float64", **convention(name).table_kwargs()
        )
        close(odd, slow.preset_table(name, n, d + 1, base), atol=1e-13)


@pytest.mark.parametrize("flip", [False, True])
@pytest.mark.parametrize("shift", [0, 1, 0.5])
def test_diffusers_knobs_build_get_timestep_embedding(flip, shift):
    conv = convention("diffusers", flip_sin_to_cos=flip, downscale_freq_shift=shift)
    table = encoding_table(d=33, n=30, dtype="float64", **conv.table_kwargs())
    close(table, slow.diffusers(range(30), 33, flip, shift), atol=1e-13)
