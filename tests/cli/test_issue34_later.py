"""Issue 34, items 11-19 and the newcomer's frictions: each case failed before its fix.

Every refusal is one line on stderr naming the option and the rule, status 2, nothing written;
the expected values are hand-derived (T5 span limits, file systems in the mount table, …).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest


def _refused(result, tmp_path=None, keep=(), *parts):
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert "internal error" not in lines[0], lines[0]
    if tmp_path is not None:
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(keep)
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


# item 11: rope permute --config … --tensor …: --tensor was silently ignored, exit 0


@pytest.fixture
def checkpoint(tmp_path):
    from safetensors.numpy import save_file

    q, k = "model.layers.0.self_attn.q_proj.weight", "model.layers.0.self_attn.k_proj.weight"
    save_file(
        {q: np.ones((64, 64), np.float32), k: np.ones((32, 64), np.float32)},
        str(tmp_path / "in.safetensors"),
    )
    config = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2}
    (tmp_path / "config.json").write_text(json.dumps(config))
    return tmp_path


@pytest.mark.parametrize(
    ("extra", "named"), [(["--tensor", "foo"], "--tensor"), (["--head-dim", "16"], "--head-dim")]
)
def test_permute_with_config_refuses_the_options_it_would_ignore(run_cli, checkpoint, extra, named):
    args = [
        "--config",
        str(checkpoint / "config.json"),
        "--input",
        str(checkpoint / "in.safetensors"),
    ]
    result = run_cli("rope", "permute", *args, *extra, "-o", str(checkpoint / "out.safetensors"))
    _refused(result, checkpoint, ["config.json", "in.safetensors"], named, "--config")


# item 12: t5-buckets --max-distance 5000000 blamed --span, which was not given


def test_t5_default_span_overflow_names_max_distance(run_cli):
    line = _refused(run_cli("t5-buckets", "--max-distance", "5000000"))
    assert line.startswith("Invalid value for '--max-distance'") or "'--max-distance'" in line
    assert "--span" in line and "(got 5000000)" in line


def test_t5_largest_default_span_still_works(run_cli):
    # 2^22 - 8 + 8 = 2^22: the last relative position written is 4194304, in the last bucket
    result = run_cli("t5-buckets", "--max-distance", str((1 << 22) - 8), "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().splitlines()[-1] == "4194304,31"


# item 13: a 1-D .npy of values (the help says "one column or row"), and spaces for commas


@pytest.mark.parametrize("shape", [(3,), (3, 1), (1, 3)])
def test_timestep_reads_a_vector_of_values(run_cli, tmp_path, shape):
    source = tmp_path / "v.npy"
    np.save(source, np.array([0.5, 0.25, 0.125]).reshape(shape))
    result = run_cli("timestep", "-i", str(source), "--d", "2", "--format", "csv")
    assert result.exit_code == 0, result.output
    # flux, d = 2: one pair, ω_0 = 10000^0 = 1, of t·1000: cos 1000t, sin 1000t
    rows = [list(map(float, r.split(","))) for r in result.stdout.splitlines()[1:]]
    expected = [[np.cos(1000 * t), np.sin(1000 * t)] for t in (0.5, 0.25, 0.125)]
    np.testing.assert_allclose(rows, expected, rtol=1e-6)


def test_spaces_between_numbers_are_not_a_header(run_cli):
    result = run_cli("alibi", "identify", "-", input="0.5 0.25 0.125\n")
    _refused(result, None, (), "comma-separated", "spaces")


# item 14: an unreadable input was status 1 "Permission denied: F" in most commands, 2 with the
# option in gguf show; now one rule: a usage error naming the option or argument


def _without_read_rights(pecli_cmd):
    """Run as a user the file's mode 000 stops: root keeps uid 0 but loses the DAC bypass."""
    import os
    import shutil

    if os.geteuid() != 0:
        return list(pecli_cmd)
    if shutil.which("setpriv") is None:
        pytest.skip("root without setpriv reads any file")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *pecli_cmd]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["identify", "u.npy"], "'FILE'"),
        (["diff", "v.npy", "u.npy"], "'B'"),
        (["timestep", "-i", "u.npy"], "'--input'"),
        (["rope", "cache", "--positions", "u.npy"], "'--positions'"),
        (["gguf", "show", "u.npy"], "'FILE'"),
        (["rope", "config", "cfg"], "'FILE'"),
    ],
)
def test_an_unreadable_input_is_a_usage_error_naming_it(pecli_cmd, tmp_path, args, named):
    import subprocess

    np.save(tmp_path / "v.npy", np.ones((2, 4)))
    (tmp_path / "u.npy").write_bytes(b"")
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "config.json").write_text("{}")
    for name in ("u.npy", "cfg/config.json"):
        (tmp_path / name).chmod(0)
    result = subprocess.run(
        [*_without_read_rights(pecli_cmd), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert f"Invalid value for {named}: cannot be read (Permission denied)" in result.stderr


# item 15: an empty .npz (a zip of no member: only its end record, "PK\x05\x06") was read as a
# .safetensors file with a header of 101010256 bytes (those four bytes, little-endian)


@pytest.mark.parametrize(
    "args",
    [
        ["identify", "F"],
        ["rope", "identify", "F"],
        ["rope", "identify-axes", "F"],
        ["diff", "F", "F"],
        ["add", "F"],
    ],
)
def test_an_empty_npz_is_named_as_one(run_cli, tmp_path, args):
    source = tmp_path / "e.npz"
    np.savez(source)
    assert source.read_bytes()[:4] == b"PK\x05\x06"
    result = run_cli(*(str(source) if a == "F" else a for a in args))
    line = _refused(result, tmp_path, ["e.npz"])
    assert ".npz archive" in line and "101010256" not in line and ".safetensors" not in line


# item 16 and item 19's duplicate s=: s=-1 was refused with the grid rule (its echo dropped
# s=-1), s=1,s=2 silently took the last, s=.. was an internal error, gap=1.5 became 1


@pytest.mark.parametrize(
    ("video", "rule"),
    [
        ("video:2,4,4,s=-1", "takes s= as a finite number of seconds >= 0"),
        ("video:2,4,4,s=..", "takes s= as a finite number of seconds >= 0"),
        ("video:2,4,4,s=1e999", "takes s= as a finite number of seconds >= 0"),
        ("video:2,4,4,s=1,s=2", "gives s= once per video"),
    ],
)
def test_a_bad_seconds_knob_is_named_with_its_word(run_cli, video, rule):
    args = ["--model", "qwen2.5-vl", "--tokens", f"text:2 {video}"]
    _refused(run_cli("rope", "mrope-ids", *args), None, (), rule, f"(got {video})")


def test_a_fractional_gap_is_refused(run_cli):
    args = ["--model", "qwen3-vl", "--tokens", "text:2 video:2,4,4,gap=1.5"]
    _refused(run_cli("rope", "mrope-ids", *args), None, (), "gap= as a whole number")


# item 17: identify-axes with --grid and --ids said "fits no preset … (got none)"; rope axes
# names the conflict. Both now name it before any preset is tried.


@pytest.mark.parametrize(
    ("extra", "rule"),
    [
        (["--grid", "4x4", "--text", "3"], "goes without --grid"),
        (["--text", "3"], "goes without --text"),
    ],
)
def test_identify_axes_names_a_second_source_of_ids(run_cli, tmp_path, extra, rule):
    cache = tmp_path / "c.npy"
    np.save(cache, np.zeros((19, 256), np.float32))
    (tmp_path / "ids.csv").write_text("1,2\n")
    result = run_cli(
        "rope", "identify-axes", str(cache), *extra, "--ids", str(tmp_path / "ids.csv")
    )
    _refused(result, None, (), "'--ids'", rule)


# item 18: -o /sys/kernel/x.npy or /proc/x.npy: "not enough room … 0 bytes free", status 1;
# a folder no file can be created in is a usage error (2), as an unwritable folder is


def _mount_type(point):
    with open("/proc/self/mountinfo") as table:
        for line in table:
            fields, _, tail = line.partition(" - ")
            if fields.split()[4] == point:
                return tail.split()[0]
    return None


@pytest.mark.parametrize(
    ("output", "mount"), [("/proc/x.npy", "/proc"), ("/sys/kernel/x.csv", "/sys")]
)
def test_an_output_on_a_kernel_file_system_is_a_usage_error(run_cli, output, mount):
    kind = _mount_type(mount)
    if kind not in ("proc", "sysfs"):
        pytest.skip(f"{mount} is not mounted as the kernel's file system here")
    line = _refused(run_cli("compute", "--d", "4", "--n", "2", "-o", output))
    assert "'--output'" in line and f"{kind} file system ({mount})" in line


def test_an_output_on_a_read_only_mount_is_a_usage_error(monkeypatch):
    from mountinfo import fake_mountinfo

    from pecli.io import paths

    table = (
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
        "40 27 0:40 / /media/disk ro,relatime - ext4 /dev/vdb ro\n"
        "41 27 0:41 / /media/disk\\040two rw,relatime - ext4 /dev/vdc rw\n"
    )
    fake_mountinfo(monkeypatch, table)
    assert (
        paths.file_system_problem("/media/disk/out")
        == "is on a read-only file system (/media/disk)"
    )
    assert paths.file_system_problem("/media/disk two/out") is None  # \040: a space


# item 19: --grid 4x4x was read as 4x4; gguf show --format json wrote a stored NaN as null


@pytest.mark.parametrize("grid", ["4x4x", "x4x4", "4xx4", "4,,4"])
def test_a_grid_with_an_empty_size_is_refused(run_cli, grid):
    result = run_cli("rope", "axes", "--preset", "flux", "--grid", grid, "--format", "csv")
    _refused(result, None, (), "'--grid'", f"(got {grid})")


def _text(text: str) -> bytes:
    import struct

    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def test_gguf_show_json_spells_a_stored_nan(run_cli, tmp_path):
    import struct

    kvs = [
        _text("general.architecture") + struct.pack("<I", 8) + _text("llama"),
        _text("llama.rope.freq_base") + struct.pack("<If", 6, float("nan")),  # 6: FLOAT32
        _text("llama.rope.scaling.factor") + struct.pack("<If", 6, float("-inf")),
        _text("llama.rope.dimension_count") + struct.pack("<II", 4, 6),  # 4: UINT32
    ]
    tensor = _text("rope_freqs.weight") + struct.pack("<IQIQ", 1, 3, 0, 0)  # 1-D, 3, F32, at 0
    head = b"GGUF" + struct.pack("<IQQ", 3, 1, len(kvs)) + b"".join(kvs) + tensor
    data = struct.pack("<3f", 1.0, float("nan"), float("inf"))
    (tmp_path / "m.gguf").write_bytes(head + b"\0" * (-len(head) % 32) + data)
    result = run_cli("gguf", "show", str(tmp_path / "m.gguf"), "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["keys"]["llama.rope.freq_base"] == "NaN"
    assert report["keys"]["llama.rope.scaling.factor"] == "-Infinity"
    assert report["keys"]["llama.rope.dimension_count"] == 6
    assert report["tensors"]["rope_freqs.weight"] == [1.0, "NaN", "Infinity"]


# item 19: rope axis-map --widths 65536,65536 as a table took 85 s and 412 MB (CSV 0.6 s)


def test_axis_map_table_of_too_many_pairs_is_refused_csv_is_not(run_cli):
    args = ["rope", "axis-map", "--widths", "4096,4098", "--theta", "10000"]  # 2048 + 2049 pairs
    _refused(run_cli(*args), None, (), "'--widths'", "--format csv", "(got 4097 pairs)")
    result = run_cli(*args, "--format", "csv")
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 1 + 4097


# friction: pecli --help cut every summary with "..." at ~45 characters


@pytest.mark.parametrize("group", [[], ["rope"], ["alibi"], ["gguf"]])
def test_help_lists_each_command_with_its_whole_first_sentence(run_cli, group):
    result = run_cli(*group, "--help", terminal_width=100)
    assert result.exit_code == 0, result.output
    listing = result.stdout.split("Commands:\n", 1)[1].splitlines()
    assert all(len(line) <= 100 for line in listing)
    summaries: list[str] = []
    for line in listing:  # a new command's row starts at column 2, its wrapped lines further in
        if line[2:3].strip():
            summaries.append(line.split(None, 1)[1])
        else:
            summaries[-1] += " " + line.strip()
    assert summaries and all(s.endswith(".") and not s.endswith("...") for s in summaries)


# friction: identify config.json said "must hold numbers only"; a figure got the text of a
# missing file ("binary data" at best); a folder the text of a missing file


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        (
            "config.json",
            '{\n "rope_theta": 10000.0,\n "head_dim": 64\n}\n',
            "not JSON: pecli rope config",
        ),
        ("f.png", b"\x89PNG\r\n\x1a\n" + bytes(32), "not a PNG image"),
        ("f.pdf", b"%PDF-1.4\n" + bytes(32), "not a PDF document"),
        ("m.gguf", b"GGUF" + bytes(32), "not a GGUF file (pecli gguf show"),
    ],
)
def test_identify_names_the_kind_of_file_it_cannot_read(run_cli, tmp_path, name, content, said):
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    _refused(run_cli("identify", str(path)), tmp_path, [name], "'FILE'", said)


def test_identify_tells_a_folder_from_a_missing_file(run_cli, tmp_path):
    folder = _refused(run_cli("identify", str(tmp_path)))
    missing = _refused(run_cli("identify", str(tmp_path / "missing.npy")))
    missing_rule = missing.split(" (got ")[0]  # the path itself says "folder" here
    assert "not a folder" in folder and "folder" not in missing_rule
    assert "must be an existing" in missing_rule


# friction: columns were 1-based in timestep (cos_1), 0-based in rope axes (cos_0), with no
# rule written down; docs/cli.md now states one per family, and each command keeps it


def _first_index(run_cli, args):
    result = run_cli(*args, "--format", "csv")
    assert result.exit_code == 0, result.output
    header, first = result.stdout.splitlines()[:2]
    if header.startswith("pair,"):
        return int(first.split(",")[0])
    return int(re.search(r"(\d+)$", header.split(",")[0])[1])  # sin_1, cos_0, ch0_pair0


ONE_BASED = {
    "compute": ["compute", "--d", "4", "--n", "1"],
    "grid": ["grid", "1", "1", "--d", "8"],
    "fourier": ["fourier", "--k", "2", "0.5"],
    "wavelengths": ["wavelengths", "--d", "4"],
    "timestep": ["timestep", "--d", "4", "0.5"],
}
ZERO_BASED = {
    "rope cache": ["rope", "cache", "--head-dim", "4", "--n", "1", "--theta", "10000"],
    "rope axes": ["rope", "axes", "--preset", "flux", "--grid", "1x1"],
    "rope freqs": ["rope", "freqs", "--head-dim", "4", "--theta", "10000"],
    "rope axis-map": ["rope", "axis-map", "--preset", "flux"],
    "xpos": ["xpos", "--head-dim", "4", "--n", "1"],
}


def test_column_numbering_is_the_rule_docs_cli_states(run_cli):
    from pathlib import Path

    docs = (Path(__file__).resolve().parent.parent.parent / "docs" / "cli.md").read_text()
    rule = docs.split("* Column names count pairs", 1)[1].split("\n* ", 1)[0]
    one, zero = rule.split("**1-based**")
    for name, args in ONE_BASED.items():
        assert f"`{name}`" in one, name
        assert _first_index(run_cli, args) == 1, name
    for name, args in ZERO_BASED.items():
        assert f"`{name}`" in zero, name
        assert _first_index(run_cli, args) == 0, name


# friction: the README said make figures "rebuilds only the figures whose code or pinned
# versions changed"; make compares times, so a fresh clone redraws them all


def test_readme_says_how_make_figures_decides_and_counts_the_figures():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent.parent
    readme = " ".join((root / "README.md").read_text().split())
    figures = re.search(r"^FIGS\s*:=(.*?)(?<!\\)\n", (root / "Makefile").read_text(), re.S | re.M)
    count = len(figures[1].replace("\\", " ").split())
    assert count == 20
    assert "rebuilds only the figures whose code or pinned versions changed" not in readme
    assert "ten figures (twenty files, PNG and SVG)" in readme and "a fresh clone" in readme
    rules = re.findall(r"^figures/\S+ figures/\S+: (.*)$", (root / "Makefile").read_text(), re.M)
    assert len(rules) == 10 and all(r.startswith("$(FIGURE_STAMP)") for r in rules)


# … and then made it so: the figures depend on a stamp whose time moves with the inputs' content


def _git(folder, *args):
    import subprocess

    subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=folder,
        check=True,
        capture_output=True,
        timeout=60,
    )


def test_figure_stamp_moves_only_with_content(tmp_path, monkeypatch):
    import shutil
    import sys
    import time
    from pathlib import Path

    if shutil.which("git") is None:
        pytest.skip("needs git")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "tools"))
    import figure_stamp

    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "f.png").write_bytes(b"png")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "c")
    monkeypatch.chdir(tmp_path)
    stamp = tmp_path / "stamp"
    assert figure_stamp.update(stamp, ["a.py"]) == "trusted"  # a fresh clone: as committed
    assert stamp.stat().st_mtime == 0  # older than the checked-out figures: none redrawn
    (tmp_path / "a.py").write_text("x = 1\n")  # saved again, same bytes
    assert figure_stamp.update(stamp, ["a.py"]) == "kept" and stamp.stat().st_mtime == 0
    (tmp_path / "a.py").write_text("x = 2\n")
    assert figure_stamp.update(stamp, ["a.py"]) == "rewritten"
    assert stamp.stat().st_mtime > time.time() - 600  # newer than the figures: redrawn
    stamp.unlink()  # a new .venv over an edited tree: nothing to trust
    assert figure_stamp.update(stamp, ["a.py"]) == "rewritten"


# friction: the docs' Wan example passed the latent size (21x60x104: 4x the tokens, silently)


def test_the_docs_wan_example_gives_patches():
    from pathlib import Path

    docs = Path(__file__).resolve().parent.parent.parent / "docs"
    cli = (docs / "cli.md").read_text()
    assert "--preset wan --grid 21x60x104" not in cli
    assert "--preset wan --grid 21x30x52" in cli  # 480 / 8 / 2 = 30, 832 / 8 / 2 = 52
    assert "Grids count patches, not latent pixels" in (docs / "multiaxis.md").read_text()


# friction: text after a video reused the video's t ids under the 5.24 rule, without a word


def test_mrope_ids_notes_text_that_reuses_a_video_s_t_ids(run_cli):
    # text:1 at t 0; a video of 8 frames, 2x2 patches merged to 1x1, at t 1 … 8; 5.24 goes on
    # at start + max(h, w)/2 = 1 + 1 = 2, so the three text tokens take t 2, 3, 4 (all used)
    args = ["rope", "mrope-ids", "--model", "qwen2-vl", "--tokens", "text:1 video:8,2,2 text:3"]
    result = run_cli(*args, "--format", "csv")
    assert result.exit_code == 0, result.output
    t = [int(row.split(",")[0]) for row in result.stdout.splitlines()[1:]]
    assert t == [0, 1, 2, 3, 4, 5, 6, 7, 8, 2, 3, 4]
    assert "note: 3 text token(s) after a video take t ids the video used already" in result.stderr
    after = run_cli(*args, "--release", "4", "--format", "csv")  # goes on at 9: nothing reused
    assert after.exit_code == 0 and "note:" not in after.stderr


# friction: alibi identify refused BLOOM's real (batch·heads, 1, keys) tensor (read as 8 heads
# of a wrong series). Built here as transformers' build_alibi_tensor does, by hand: slopes
# 2^(-8h/H), positions ((mask.cumsum - 1) * mask), rows reshaped to batch·heads


def test_alibi_identify_reads_bloom_s_batched_tensor(run_cli, tmp_path):
    heads = 4
    slopes = 2.0 ** (-8.0 * np.arange(1, heads + 1) / heads)  # 1/4, 1/16, 1/64, 1/256
    mask = np.array([[1, 1, 1, 1, 1, 1], [0, 0, 0, 1, 1, 1]], np.float64)
    positions = ((mask.cumsum(-1) - 1) * mask)[:, None, :]
    alibi = (slopes[None, :, None] * positions).reshape(2 * heads, 1, 6).astype(np.float32)
    np.save(tmp_path / "b.npy", alibi)
    result = run_cli("alibi", "identify", str(tmp_path / "b.npy"), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["convention"] == "bloom" and report["batch"] == 2
    assert report["batch_padding"] == [0, 3]
    assert report["slopes"] == [0.25, 0.0625, 0.015625, 0.00390625]
    assert report["slope_fit"]["heads"] == heads and report["slope_fit"]["max_bias"] == 8.0


# friction: timestep --model flux --input-dtype bfloat16 0.3 showed no difference from exact:
# FLUX in bf16 computes the table in float32 and casts it to bf16 before linear_1. The
# expected tables are diffusers 0.42.1's own (tests/fixtures/libraries/timestep_dtypes/)


def _network_run(run_cli, tmp_path, fixture, network_dtype):
    values = [repr(v) for v in fixture.params["values"]]
    dtype = fixture.params["model_dtype"]
    out = tmp_path / "t.npy"
    args = ["--model", "flux", "--d", "256", "--input-dtype", dtype]
    result = run_cli("timestep", *args, "--network-dtype", network_dtype, "-o", str(out), *values)
    assert result.exit_code == 0, result.output
    return np.load(out)


def test_timestep_network_dtype_is_what_flux_linear_1_receives_in_bfloat16(run_cli, tmp_path):
    import library_fixtures

    fixtures = {f.name: f for f in library_fixtures.load("timestep_dtypes")}
    fixture = fixtures["flux_bfloat16_linear_1"]
    table = _network_run(run_cli, tmp_path, fixture, "bfloat16")
    np.testing.assert_array_equal(table, fixture.table)  # all 2048 values, bit for bit
    values = [repr(v) for v in fixture.params["values"]]
    args = ["--model", "flux", "--input-dtype", "bfloat16", "-o", str(tmp_path / "e.npy")]
    exact = run_cli("timestep", *args, *values)  # rounded once from exact: not what it receives
    assert exact.exit_code == 0 and (np.load(tmp_path / "e.npy") != fixture.table).any()


def test_timestep_network_dtype_float32_is_within_one_ulp_of_diffusers(run_cli, tmp_path):
    import library_fixtures

    fixtures = {f.name: f for f in library_fixtures.load("timestep_dtypes")}
    fixture = fixtures["flux_float32_linear_1"]
    table = _network_run(run_cli, tmp_path, fixture, "float32")
    assert table.dtype == np.float32
    # torch's float32 exp, cos and sin are not all correctly rounded: an angle's frequency may
    # be 1 ulp off, so the bound grows with the angle (as test_library_fixtures_timestep_dtypes)
    t = np.float32(np.array(fixture.params["values"], np.float32) * np.float32(1000))
    angles = np.abs(t.astype(np.float64)[:, None] * np.exp(-np.log(1e4) * np.arange(128) / 128))
    bound = 2.0**-24 * ((np.log(1e4) + 4) * np.tile(angles, 2) + 4)
    assert np.all(np.abs(table.astype(np.float64) - fixture.table) <= bound)
    assert (table == fixture.table).mean() > 0.9  # most values bit for bit


def test_timestep_network_dtype_names_the_models_it_knows(run_cli):
    line = _refused(run_cli("timestep", "--model", "dit", "--network-dtype", "bfloat16", "0.3"))
    assert "'--network-dtype'" in line and "--model flux" in line


def test_a_choice_of_another_option_is_named_as_such(run_cli):
    # timestep --dtype bfloat16 answered "did you mean 'float64'?"
    line = _refused(run_cli("timestep", "--dtype", "bfloat16", "0.3"))
    assert "'bfloat16' is not one of float32, float64" in line and "--network-dtype" in line
    assert "did you mean" not in line


# friction: alibi bias --left-padding 3,0 (one padding per sequence of a batch) was refused


def test_alibi_bias_builds_bloom_s_batch_with_a_padding_per_sequence(run_cli, tmp_path):
    result = run_cli(
        "alibi",
        "bias",
        "--heads",
        "4",
        "--n",
        "6",
        "--convention",
        "bloom",
        "--left-padding",
        "0,3",
        "-o",
        str(tmp_path / "b.npy"),
    )
    assert result.exit_code == 0, result.output
    slopes = 2.0 ** (-8.0 * np.arange(1, 5) / 4)  # by hand, as build_alibi_tensor (above)
    mask = np.array([[1, 1, 1, 1, 1, 1], [0, 0, 0, 1, 1, 1]], np.float64)
    positions = ((mask.cumsum(-1) - 1) * mask)[:, None, :]
    expected = (slopes[None, :, None] * positions).reshape(8, 1, 6)
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), expected)
    line = _refused(run_cli("alibi", "bias", "--heads", "4", "--left-padding", "0,0"))
    assert "'--left-padding'" in line and "bloom or falcon" in line
