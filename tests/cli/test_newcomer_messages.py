"""A newcomer's first mistakes get a message that says what was meant (issue 23).

Each message is one line on stderr with status 2, and says what to type instead: the option
with two dashes, the option after its command, the separator of a list, the closest name
(not the whole list), the tensors a file holds, what rope identify reads, in plain words.
"""

from __future__ import annotations

import numpy as np
import pytest


def _line(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_one_dash_suggests_the_long_option(run_cli):
    line = _line(run_cli("compute", "-d", "512"))
    assert "No such option '-d'" in line and "Did you mean '--d'?" in line
    assert "two dashes" in line


@pytest.mark.parametrize(
    ("args", "word"),
    [  # click reads -dtype as -d -t …: it said "'-d'. Did you mean '--d'?", the wrong one
        (("compute", "-dtype", "float64"), "-dtype"),
        (("compute", "--d", "4", "-start", "3"), "-start"),  # was a bare "No such option '-s'"
        (("compute", "-key", "pe"), "-key"),
        (("compute", "-dtype=float64"), "-dtype"),
        (("rope", "axes", "-ids", "0,1"), "-ids"),
        (("rope", "cache", "-dtype", "float16"), "-dtype"),
        (("rope", "identify", "-key", "w"), "-key"),
        (("alibi", "bias", "-dtype", "float16"), "-dtype"),
        (("xpos", "-layout", "half-split"), "-layout"),
    ],
)
def test_a_long_name_with_one_dash_suggests_its_two_dash_option(run_cli, args, word):
    line = _line(run_cli(*args))
    assert line.endswith(
        f"No such option '{word}'. Did you mean '-{word}'? Long options take two dashes."
    )


def test_a_long_name_with_one_dash_read_as_a_short_option_and_its_value(
    run_cli, tmp_path, monkeypatch
):
    """-output: click reads -o utput, and the 3 after it is left over; -offset alike."""
    monkeypatch.chdir(tmp_path)
    line = _line(run_cli("compute", "-output", "3"))
    assert "unexpected extra argument (3)" in line and "Did you mean '--output'?" in line
    line = _line(run_cli("xpos", "-offset", "3"))
    assert "'-offset' is read as '-o ffset'" in line and "Did you mean '--offset'?" in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "word"),
    [  # these commands take values that may start with a dash: the word was read as one
        (("timestep", "-dtype", "float64", "0.5"), "-dtype"),
        (("timestep", "-linspace", "0", "1", "3"), "-linspace"),
        (("fourier", "--k", "3", "-dtype", "float32", "0.5"), "-dtype"),
    ],
)
def test_a_long_name_with_one_dash_read_as_a_value_is_not_said_split(run_cli, args, word):
    """None of these commands has a short option -d or -l: no "'-dtype' is read as '-d type'"."""
    line = _line(run_cli(*args))
    assert f"Did you mean '-{word}'? Long options take two dashes." in line
    assert "is read as" not in line, line


@pytest.mark.parametrize(
    ("args", "option"),
    [  # values may be negative numbers here, so -d was refused as a value, with no hint
        (("timestep", "-d", "8", "0.5"), "--d"),
        (("fourier", "-k", "3", "0.5"), "--k"),
    ],
)
def test_one_dash_read_as_a_value_suggests_the_long_option(run_cli, args, option):
    line = _line(run_cli(*args))
    assert f"'{option[1:]}' is neither a number nor an option" in line
    assert line.endswith(f". Did you mean '{option}'? Long options take two dashes."), line


def test_one_dash_of_an_option_that_does_not_exist_adds_nothing(run_cli):
    line = _line(run_cli("compute", "-z", "512"))
    assert line.endswith("No such option '-z'.")


@pytest.mark.parametrize(
    ("args", "example"),
    [
        (("--d", "512", "compute"), "pecli compute --d …"),
        (("rope", "--theta", "3", "cache"), "pecli rope cache --theta …"),
        (("-d", "512", "compute"), "pecli compute --d …"),  # both mistakes at once
    ],
)
def test_an_option_before_its_command_says_options_go_after_it(run_cli, args, example):
    line = _line(run_cli(*args))
    assert "options go after the command" in line and f"({example})" in line
    assert "--help" not in line  # not click's guess "Did you mean '--help'?"


def test_an_option_no_command_has_gets_no_such_hint(run_cli):
    line = _line(run_cli("--zz", "compute"))
    assert "options go after" not in line


def test_a_list_given_with_spaces_names_the_separator(run_cli, tmp_path):
    out = tmp_path / "w.png"
    line = _line(run_cli("plot-waves", "--pairs", "1", "10", "50", "-o", str(out)))
    assert "comma-separated" in line and "--pairs 1,10,50" in line
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "meant", "not_listed"),
    [
        (("compute", "--convention", "pytorc"), "pytorch", "whisper"),
        (("compute", "--layout", "interleave"), "interleaved", "sin-cos"),
        (("compute", "--convention", "PyTorch"), "pytorch", "whisper"),
        (
            ("rope", "cache", "--layout", "interleave", "--head-dim", "4", "--n", "2"),
            "interleaved",
            "gptj",
        ),
    ],
)
def test_a_name_one_letter_off_gets_the_closest_name_not_the_list(run_cli, args, meant, not_listed):
    line = _line(run_cli(*args))
    assert f"did you mean '{meant}'?" in line
    assert not_listed not in line


def test_a_name_like_none_still_gets_the_list(run_cli):
    line = _line(run_cli("compute", "--convention", "zzzz"))
    assert "'whisper'" in line and "did you mean" not in line


@pytest.fixture
def model(run_cli, tmp_path):
    path = tmp_path / "m.safetensors"
    assert run_cli("compute", "--d", "4", "--n", "8", "-o", str(path), "-q").exit_code == 0
    return str(path)


@pytest.mark.parametrize(
    "command",
    [
        ("rope", "identify", "{file}", "--tensor", "foo"),
        (
            "rope",
            "permute",
            "--input",
            "{file}",
            "--tensor",
            "foo",
            "--heads",
            "1",
            "--head-dim",
            "4",
            "-o",
            "{out}",
        ),
    ],
)
def test_a_wrong_tensor_lists_the_names_the_file_has(run_cli, model, tmp_path, command):
    out = tmp_path / "out.safetensors"
    line = _line(run_cli(*(part.format(file=model, out=out) for part in command)))
    assert "'--tensor'" in line and "(it has: positional_encoding)" in line
    assert not out.exists()


@pytest.mark.parametrize("flag", ["--tensor", "--key"])
def test_an_option_of_two_names_is_named_as_typed(run_cli, model, flag):
    """rope identify --key "" FILE said '--tensor', a name the user had not typed."""
    for spelled in ([flag, ""], [f"{flag}=foo"]):
        line = _line(run_cli("rope", "identify", model, *spelled))
        assert f"Invalid value for '{flag}'" in line and "(it has: positional_encoding)" in line


@pytest.mark.parametrize("flag", ["--positions", "--ids"])
def test_rope_probe_names_positions_as_typed(run_cli, tmp_path, flag):
    """Three tokens and two positions: the count is refused, naming the option typed."""
    data = tmp_path / "q.csv"
    np.savetxt(data, np.ones((3, 4)), delimiter=",")
    line = _line(run_cli("rope", "probe", str(data), str(data), "--head-dim", "4", flag, "1,2"))
    assert f"Invalid value for '{flag}': must hold one position per token (3)" in line


def test_rope_identify_of_plain_data_says_what_it_reads(run_cli, tmp_path):
    data = tmp_path / "x.csv"  # the README's sample data: random numbers, no RoPE
    np.savetxt(data, np.random.default_rng(0).normal(size=(100, 64)), delimiter=",")
    line = _line(run_cli("rope", "identify", str(data)))
    assert "inv_freq vector (one row or column) or a cos/sin cache" in line
    assert "none equal to its partner" in line
    assert "neither fits" not in line and "repeated columns" not in line


def test_rope_identify_of_a_tiny_table_says_what_it_reads(run_cli, tmp_path):
    np.save(tmp_path / "t.npy", np.ones((2, 4)))
    line = _line(run_cli("rope", "identify", str(tmp_path / "t.npy")))
    assert "or a cos/sin cache (at least 3 rows" in line and "(got cos: 2 × 2, sin: 2 × 2)" in line


def test_rope_identify_names_the_shape_of_one_table_and_the_place_of_a_bad_frequency(
    run_cli, tmp_path
):
    """A 5-D array is no cos table; a NaN in an inv_freq vector is named where it sits."""
    np.save(tmp_path / "five.npy", np.ones((2, 2, 2, 2, 2)))
    line = _line(run_cli("rope", "identify", str(tmp_path / "five.npy")))
    assert line.endswith("(got 2 × 2 × 2 × 2 × 2)") and "cos:" not in line
    for index, bad, shown in ((2, np.nan, "nan"), (3, -1e-3, "-0.001")):
        vector = 1 / 10000.0 ** (np.arange(0, 8, 2) / 8)
        vector[index] = bad
        np.save(tmp_path / "inv.npy", vector)
        line = _line(run_cli("rope", "identify", str(tmp_path / "inv.npy")))
        assert line.endswith(f"the first > 0 (got inv_freq[{index}] = {shown})"), line
    np.save(tmp_path / "inv.npy", np.array([0.0, 0.1, 0.01]))
    assert _line(run_cli("rope", "identify", str(tmp_path / "inv.npy"))).endswith("[0] = 0)")


def test_piped_precision_keeps_its_title_on_one_line(run_cli):
    result = run_cli("precision", "--d", "16", "--n", "100", "-q")
    assert result.exit_code == 0, result.output
    first, second = result.stdout.splitlines()[:2]
    assert first == "Max |error| per position range, float32 arithmetic vs float64"
    assert second.startswith("positions")
