"""An output that IS an input is refused before any work, however it is spelled (issue 23).

A symbolic link, a hard link, a link to the folder, ``/dev/fd/N`` on the input: each once
replaced the input with the output (``rope permute``, reports over ``--config``, ``add``).
What a file is (``st_dev``, ``st_ino``) decides, not its name. Each case runs the installed
``pecli`` and checks the input is byte for byte what it was.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from shell import bash

CONFIG = {"rope_theta": 500000.0, "head_dim": 8, "num_attention_heads": 1, "hidden_size": 8}


@pytest.fixture
def folder(tmp_path):
    from safetensors.numpy import save_file

    weights = {"wq": np.arange(32, dtype=np.float32).reshape(8, 4)}
    save_file(weights, str(tmp_path / "in.safetensors"))
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps(CONFIG))
    np.save(tmp_path / "x.npy", np.ones((3, 4), np.float32))
    return tmp_path


PERMUTE = "rope permute --heads 1 --tensor wq --input in.safetensors"
CASES = {
    "permute-symlink-out": f"ln -s in.safetensors o.safetensors; P {PERMUTE} -o o.safetensors",
    "permute-symlink-in": f"mv in.safetensors o.safetensors; ln -s o.safetensors in.safetensors;"
    f" P {PERMUTE} -o o.safetensors",
    "permute-hardlink": f"ln in.safetensors o.safetensors; P {PERMUTE} -o o.safetensors",
    "permute-folder-link": f"ln -s . d; P {PERMUTE} -o d/in.safetensors",
    "add-fd": "P add x.npy --format npy -o /dev/fd/3 3>>x.npy",
    "add-stdin": "ln x.npy y.npy; P add - --format npy -o y.npy < x.npy",
    "add-proc-cwd": "P add x.npy -o /proc/self/cwd/x.npy",
    "config-json": "P rope config m/config.json --format json -o m/config.json",
    "config-folder": "P rope config m --format json -o ./m/../m/config.json",
    "freqs-config": "P rope freqs --config m/config.json --format json -o m/config.json",
    "precision-config": "P rope precision --config m --n 10 --format json -o m/config.json",
    "cache-config": "P rope cache --config m --n 2 --format csv -o m/config.json",
    "cache-config-link": "ln -s m/config.json c.csv; P rope cache --config m --n 2 -o c.csv",
    "add-symlink": "ln -s x.npy y.npy; P add x.npy -o y.npy",
    "add-hardlink": "ln x.npy y.npy; P add -i x.npy -o y.npy",
    "fourier-input": "ln -s x.npy y.npy; P fourier -i y.npy --k 1 -o x.npy",
    "rope-identify": "P rope identify in.safetensors --tensor wq --format json -o in.safetensors",
}


def _snapshot(folder):
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


@pytest.mark.parametrize("script", CASES.values(), ids=CASES.keys())
def test_an_output_that_is_an_input_is_refused(pecli_cmd, folder, script):
    before = _snapshot(folder)
    prelude = f'P() {{ {" ".join(pecli_cmd)} "$@"; }}; '
    result = bash(prelude + script, cwd=folder, timeout=60)
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert result.stderr.count("\n") == 1, result.stderr
    assert "must not be the input" in result.stderr, result.stderr
    after = _snapshot(folder)  # the script's links and moves keep the same contents
    assert set(after.values()) == set(before.values())
    assert not [p for p in os.listdir(folder) if p.endswith(".part")]


def test_a_different_file_of_the_same_content_is_written(pecli_cmd, folder):
    """The guard compares files, not contents: a copy of the input is a fine output."""
    script = "cp in.safetensors o.safetensors; P rope permute --heads 1 --tensor wq "
    script += "--input in.safetensors -o o.safetensors"
    prelude = f'P() {{ {" ".join(pecli_cmd)} "$@"; }}; '
    result = bash(prelude + script, cwd=folder, timeout=60)
    assert result.returncode == 0, result.stderr
    assert (folder / "o.safetensors").read_bytes() != (folder / "in.safetensors").read_bytes()
