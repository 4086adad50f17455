"""``pecli rope identify-axes``: the libraries' own caches named (and in which arithmetic), and a
cache built with each of the (a)–(f) mistakes told apart from its preset."""

from __future__ import annotations

import json

import numpy as np
import pytest
from library_fixtures import load

from pecli.analysis.multiaxis.compare import compare_to_plan
from pecli.analysis.multiaxis.reading import pair_values, read_axes
from pecli.core.multiaxis import AxesSpec, axes_cache, axis_preset, per_axis

MULTI = {f.name: f for f in load("multiaxis")}
MROPE = {f.name: f for f in load("mrope")}
QWEN25 = "text:5 image:1,8,12 text:3 video:6,4,4,s=0.75 text:4 video:3,4,8,s=0.4 text:2"


def _save(tmp_path, cos, sin):
    path = tmp_path / "cache.npy"
    np.save(path, np.concatenate([cos, sin], axis=1))
    return str(path)


@pytest.mark.parametrize(
    ("fixture", "args", "preset", "arithmetic"),
    [
        ("hunyuanvideo_3x4x5", ["--grid", "3x4x5"], "hunyuanvideo", "float32"),
        ("wan_d128_3x4x5", ["--grid", "3x4x5"], "wan", "exact"),
        ("flux_text3_4x5", ["--grid", "4x5", "--text", "3"], "flux", "exact"),
        ("flux2_text2_3x4", ["--grid", "3x4", "--text", "2"], "flux2", "exact"),
        ("pixtral_3x5", ["--grid", "3x5"], "pixtral", "float32"),
        ("cosmos_3x4x5_fps30", ["--grid", "3x4x5", "--fps", "30"], "cosmos", "float32"),
        ("cosmos_3x4x5_fpsNone", ["--grid", "3x4x5"], "cosmos", "float32"),
    ],
)
def test_library_caches_are_named(run_cli, tmp_path, fixture, args, preset, arithmetic):
    path = _save(tmp_path, MULTI[f"{fixture}_cos"].table, MULTI[f"{fixture}_sin"].table)
    result = run_cli("rope", "identify-axes", path, *args, "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    named = [name for name, v in report["presets"].items() if v["matches"]]
    assert named == [preset] and report["presets"][preset]["arithmetic"] == arithmetic


def test_qwen_cache_from_transformers_is_named_with_its_section(run_cli, tmp_path):
    path = _save(tmp_path, MROPE["qwen2.5-vl_cos"].table, MROPE["qwen2.5-vl_sin"].table)
    result = run_cli("rope", "identify-axes", path, "--tokens", QWEN25, "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["presets"]["qwen2.5-vl"]["matches"] and report["schedule"] == "shared"
    assert report["channel_axis"].startswith("T" * 16 + "H" * 24 + "W" * 11)
    assert report["theta"]["t"] == pytest.approx(1e6, rel=1e-4)


WAN = axis_preset("wan")
PLAN = WAN.plan()
IDS = np.array([(t, h, w) for t in range(3) for h in range(4) for w in range(5)], float)
F32 = np.float32


def hand_cache(pairs, ids, part, layout="interleaved", arithmetic="exact"):
    """A rotary cache written out, as diffusers builds Wan's (``WanRotaryPosEmbed``).

    ``pairs``: (axis, θ, j, D) of each pair, ω = θ^(-2j/D); the angle id·ω, its cos or sin in
    both of the pair's columns, (2j, 2j + 1) or (j, j + d/2). In float32 arithmetic, torch's:
    ``1.0 / θ ** (arange(0, D, 2) / D)`` in float32 (the power rounded once), the id rounded,
    their product rounded once, cos and sin rounded.
    """
    axis = [a for a, _, _, _ in pairs]
    if arithmetic == "float32":
        omega = np.array([F32(1) / F32(t ** float(F32(2 * j) / F32(d))) for _, t, j, d in pairs])
        angles = (ids[:, axis].astype(F32) * omega.astype(F32)).astype(np.float64)
    else:
        omega = np.array([t ** (-2 * j / d) for _, t, j, d in pairs])
        angles = ids[:, axis] * omega
    values = (np.cos if part == "cos" else np.sin)(angles)
    if arithmetic == "float32":
        values = values.astype(F32)
    if layout == "interleaved":
        return np.repeat(values, 2, axis=1)
    return np.concatenate([values, values], axis=1)


def per_axis_pairs(widths, thetas):
    """Each axis its own schedule: ω_j = θ_a^(-2j/w_a) for its w_a/2 pairs."""
    return [
        (a, theta, j, width)
        for a, (width, theta) in enumerate(zip(widths, thetas, strict=True))
        for j in range(width // 2)
    ]


WAN_PAIRS = per_axis_pairs([44, 42, 42], [1e4] * 3)  # d − 4(d//6), 2(d//6), 2(d//6) at 128


def test_the_hand_cache_is_diffusers_wan():
    for part in ("cos", "sin"):
        table = MULTI[f"wan_d128_3x4x5_{part}"].table
        assert np.max(np.abs(hand_cache(WAN_PAIRS, IDS, part) - table)) <= 2**-25  # rounded


@pytest.mark.parametrize(
    ("pairs", "ids", "layout", "arithmetic", "expected"),
    [
        (WAN_PAIRS, IDS, "interleaved", "exact", []),
        (WAN_PAIRS, IDS, "interleaved", "float32", []),
        (  # (a): one schedule over the head, θ^(-2i/128), pairs 0-21 t, 22-42 h, 43-63 w
            [(0 if i < 22 else 1 if i < 43 else 2, 1e4, i, 128) for i in range(64)],
            IDS,
            "interleaved",
            "exact",
            ["(a)"],
        ),
        (per_axis_pairs([42, 44, 42], [1e4] * 3), IDS, "interleaved", "exact", ["(b/d)"]),
        (WAN_PAIRS, IDS, "half-split", "exact", ["(c)"]),
        (
            per_axis_pairs([44, 42, 42], [1e4, 1.05e4, 1e4]),
            IDS,
            "interleaved",
            "exact",
            ["θ of axis h"],
        ),
        (WAN_PAIRS, IDS + np.array([0.0, 1.0, 0.0]), "interleaved", "exact", ["(e)"]),
    ],
)
def test_each_mistake_is_named(pairs, ids, layout, arithmetic, expected):
    cos = hand_cache(pairs, ids, "cos", layout, arithmetic)
    sin = hand_cache(pairs, ids, "sin", layout, arithmetic)
    layout, c, s = pair_values(cos, sin)
    verdict = compare_to_plan(read_axes(c, s, IDS, layout=layout), PLAN, IDS, (c, s))
    assert [
        d.split(":")[0].split(" ")[0] if d.startswith("(") else d.split(":")[0]
        for d in verdict.differences
    ] == expected
    assert verdict.matches == (not expected)
    assert verdict.arithmetic == ("none" if expected and expected != ["(c)"] else arithmetic)


def test_a_sine_of_minus_zero_is_still_the_exact_arithmetic():
    """-0.0 for 0.0 (torch's sin of -0.0) is 0 ulps away, not 2^31 across the sign bit."""
    cos, sin = (axes_cache(AxesSpec(PLAN, IDS, part=p, arithmetic="exact")) for p in ("cos", "sin"))
    layout, c, s = pair_values(cos, sin)
    assert np.count_nonzero(s == 0) > 0
    s = np.where(s == 0, -0.0, s)
    verdict = compare_to_plan(read_axes(c, s, IDS, layout=layout), PLAN, IDS, (c, s))
    assert verdict.matches and verdict.arithmetic == "exact"


BIG_IDS = np.array([(t, h, w) for t in range(4) for h in range(20) for w in range(20)], float)


@pytest.mark.parametrize("row", [2, 799, 1598])
def test_one_entry_off_anywhere_in_a_large_cache_is_seen(row):
    """1,600 rows: the arithmetic is screened on some rows, but one entry 3 float32 ulps off
    in any row still fails every arithmetic (the matching one is checked on every row)."""
    cos = hand_cache(WAN_PAIRS, BIG_IDS, "cos")
    sin = hand_cache(WAN_PAIRS, BIG_IDS, "sin").astype(F32)
    layout, c, s = pair_values(cos, sin)
    verdict = compare_to_plan(read_axes(c, s, BIG_IDS, layout=layout), PLAN, BIG_IDS, (c, s))
    assert verdict.matches and verdict.arithmetic == "exact"
    s = s.copy()
    s[row, 40] = float(
        np.nextafter(np.nextafter(np.nextafter(F32(s[row, 40]), F32(2)), F32(2)), F32(2))
    )
    verdict = compare_to_plan(read_axes(c, s, BIG_IDS, layout=layout), PLAN, BIG_IDS, (c, s))
    assert not verdict.matches and verdict.arithmetic == "none"


def test_a_port_s_own_omega_is_within_2_ulps_and_one_entry_3_ulps_off_is_not():
    """torch's float32 recipe (diffusers' Wan, 60 rows, every one screened) with pair 0's
    ω = 1 taken 3 float32 steps up, as a port's own ``pow`` may: the float32 port's arithmetic.
    One sine of that pair 3 ulps further up (row 59, t = 2) is past the port's 2 ulps."""
    cos = hand_cache(WAN_PAIRS, IDS, "cos", arithmetic="float32").astype(F32)
    sin = hand_cache(WAN_PAIRS, IDS, "sin", arithmetic="float32").astype(F32)
    omega = np.nextafter(np.nextafter(np.nextafter(F32(1), F32(2)), F32(2)), F32(2))
    angle = (IDS[:, 0].astype(F32) * omega).astype(np.float64)  # axis t's ids
    cos[:, 0:2], sin[:, 0:2] = (f(angle).astype(F32)[:, None] for f in (np.cos, np.sin))
    layout, c, s = pair_values(cos, sin)
    verdict = compare_to_plan(read_axes(c, s, IDS, layout=layout), PLAN, IDS, (c, s))
    assert verdict.matches and verdict.arithmetic == "float32"
    s[59, 0] = np.nextafter(np.nextafter(np.nextafter(F32(s[59, 0]), F32(2)), F32(2)), F32(2))
    verdict = compare_to_plan(read_axes(c, s, IDS, layout=layout), PLAN, IDS, (c, s))
    assert not verdict.matches and verdict.arithmetic == "none"


def test_a_port_s_entry_off_in_a_row_the_screen_skips_is_still_found():
    """As above on a 12 × 10 × 10 grid, 1200 rows: the screen takes 1024 of them (0, 1.17,
    2.35 … truncated), so a sine 3 ulps off in a row it skips (with t > 0) is left to the
    check of the whole cache, which must still find it."""
    ids = np.array([(t, h, w) for t in range(12) for h in range(10) for w in range(10)], float)
    cos = hand_cache(WAN_PAIRS, ids, "cos", arithmetic="float32").astype(F32)
    sin = hand_cache(WAN_PAIRS, ids, "sin", arithmetic="float32").astype(F32)
    omega = np.nextafter(np.nextafter(np.nextafter(F32(1), F32(2)), F32(2)), F32(2))
    angle = (ids[:, 0].astype(F32) * omega).astype(np.float64)
    cos[:, 0:2], sin[:, 0:2] = (f(angle).astype(F32)[:, None] for f in (np.cos, np.sin))
    skipped = sorted(set(range(1200)) - set(np.linspace(0, 1199, 1024).astype(np.int64)))
    row = next(r for r in skipped if ids[r, 0] > 0)  # t > 0: sin t·ω is not 0
    layout, c, s = pair_values(cos, sin)
    verdict = compare_to_plan(read_axes(c, s, ids, layout=layout), PLAN, ids, (c, s))
    assert verdict.matches and verdict.arithmetic == "float32"
    s[row, 0] = np.nextafter(np.nextafter(np.nextafter(F32(s[row, 0]), F32(2)), F32(2)), F32(2))
    verdict = compare_to_plan(read_axes(c, s, ids, layout=layout), PLAN, ids, (c, s))
    assert not verdict.matches and verdict.arithmetic == "none"


def test_a_cache_that_differs_exits_1_with_the_reasons(run_cli, tmp_path):
    made = per_axis([44, 42, 42], theta=[1e4, 2e4, 2e4])
    path = _save(
        tmp_path,
        axes_cache(AxesSpec(made, IDS, part="cos")),
        axes_cache(AxesSpec(made, IDS, part="sin")),
    )
    result = run_cli("rope", "identify-axes", path, "--preset", "wan", "--grid", "3x4x5")
    assert result.exit_code == 1
    assert "wan: differs" in result.stdout and "θ of axis h: 20000 here, 10000" in result.stdout


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--grid", "3x4"], "'FILE'"),  # rows do not fit any preset
        (["--preset", "wan", "--grid", "3x4"], "--grid"),
        (["--preset", "nope", "--grid", "3x4x5"], "--preset"),
    ],
)
def test_refusals(run_cli, tmp_path, args, option):
    path = _save(
        tmp_path,
        axes_cache(AxesSpec(PLAN, IDS, part="cos")),
        axes_cache(AxesSpec(PLAN, IDS, part="sin")),
    )
    result = run_cli("rope", "identify-axes", path, *args)
    assert result.exit_code == 2, result.output
    assert option in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "option", "rule"),
    [
        (["--grid", "3x4x5", "--text", "-3"], "--text", "from 0 to 2^40 (got -3)"),
        (["--grid", "3x4x5", "--text", str(2**40 + 1)], "--text", "from 0 to 2^40 (got 1099511"),
        (["--grid", "0x4x5"], "--grid", "sizes must be integers >= 1"),
        (["--grid", "3x4x5", "--head-dim", "-4"], "--head-dim", "from 4 to 65536 (got -4)"),
        (["--grid", "3x4x5", "--head-dim", "127"], "--head-dim", "must be even"),
        (["--grid", "3x4x5", "--fps", "0"], "--fps", "must be a number > 0"),
        (["--tokens", "text:-3"], "--tokens", "must be words text:N"),
        (["--tokens", "text:60", "--tokens-per-second", "0"], "--tokens-per-second", "from 1"),
        # said "FILE: fits no preset" when every preset refused them one by one
        (["--grid", "3x4x5", "--patch", "0x2x2"], "--patch", "3 sizes >= 1, one per grid size"),
        (["--grid", "3x4x5", "--scale-factor", "nan"], "--scale-factor", "3 numbers > 0 (one"),
        (["--grid", "3x4x5", "--scale-factor", "1,0,1"], "--scale-factor", "> 0 (one per grid"),
    ],
)
def test_a_value_no_preset_takes_is_named_without_a_preset(run_cli, tmp_path, args, option, rule):
    """Not "fits no preset": the option the user typed, and its rule, before any preset is tried."""
    path = _save(
        tmp_path,
        axes_cache(AxesSpec(PLAN, IDS, part="cos")),
        axes_cache(AxesSpec(PLAN, IDS, part="sin")),
    )
    result = run_cli("rope", "identify-axes", path, *args, "-o", str(tmp_path / "r.json"))
    assert result.exit_code == 2, result.output
    line, *more = result.stderr.strip().splitlines()
    assert not more and f"'{option}'" in line and rule in line, line
    assert not (tmp_path / "r.json").exists()


def test_a_table_that_pairs_no_channels_is_refused(run_cli, tmp_path):
    path = _save(tmp_path, np.random.default_rng(0).random((60, 128)), np.ones((60, 128)))
    result = run_cli("rope", "identify-axes", path, "--grid", "3x4x5")
    assert result.exit_code == 2 and "neither layout" in result.stderr


def test_qwen3_interleaved_map_is_read_without_guessing():
    from pecli.core.multiaxis.mrope_presets import MROPE_PRESETS

    preset = MROPE_PRESETS["qwen3-vl"]
    source, _ = preset.token_ids("text:5 image:1,8,12 text:3 video:3,4,4,gap=2 text:2")
    ids, plan = source.array, preset.plan()
    cos, sin = (
        axes_cache(AxesSpec(plan, ids, part="cos")),
        axes_cache(AxesSpec(plan, ids, part="sin")),
    )
    layout, c, s = pair_values(cos, sin)
    reading = read_axes(c, s, ids, layout=layout)
    read = reading.strip(plan.axes)
    assert read.startswith("THW" * 12) and reading.schedule == "shared"
    assert all(r in ("?", p) for r, p in zip(read, plan.strip(), strict=True))  # no wrong letter


def test_a_block_that_is_not_geometric_has_no_schedule():
    from pecli.core.multiaxis.plan import AxisPlan

    mixed = AxisPlan(
        ("y", "x"),
        (0,) * 4 + (1,) * 4,
        (0, 1, 2, 3) * 2,
        (8,) * 8,
        (1e4, 1e4, 1e2, 1e2, 1e4, 1e4, 1e4, 1e4),
        "interleaved",
    )
    ids = np.array([[r, c] for r in range(3) for c in range(3)], dtype=float)
    layout, c, s = pair_values(
        axes_cache(AxesSpec(mixed, ids, part="cos")), axes_cache(AxesSpec(mixed, ids, part="sin"))
    )
    reading = read_axes(c, s, ids, layout=layout)
    assert reading.schedule == "unknown" and reading.theta == {}


def test_a_preset_of_another_width_is_told_so():
    cos, sin = (
        axes_cache(AxesSpec(PLAN, IDS, part="cos")),
        axes_cache(AxesSpec(PLAN, IDS, part="sin")),
    )
    layout, c, s = pair_values(cos, sin)
    allegro = axis_preset("allegro").plan(128)  # thirds of 128: 63 pairs
    verdict = compare_to_plan(read_axes(c, s, IDS, layout=layout), allegro, IDS, (c, s))
    assert "(b) 64 pairs here, 63 in the preset" in verdict.differences and not verdict.matches


@pytest.mark.parametrize(
    ("fixture", "args", "preset"),
    [
        ("llama4_vision_4x4", ["--grid", "4"], "llama4-vision"),
        ("qwen_image_text3_5x6", ["--grid", "5x6", "--text", "3"], "qwen-image"),
    ],
)
def test_complex_freqs_cis_are_named(run_cli, tmp_path, fixture, args, preset):
    path = tmp_path / "freqs_cis.npy"
    np.save(path, MULTI[fixture].table)
    result = run_cli("rope", "identify-axes", str(path), *args, "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["layout"] == "complex"
    assert [n for n, v in report["presets"].items() if v["matches"]] == [preset]


# --- a cache whose pairs repeat with period h/2 fits both layouts --------------------------

DIAGONAL = np.array([[k, k] for k in range(6)], dtype=np.float64)  # h = w: pair j is pair j + 16


def _both_layouts(plan):
    cos, sin = (axes_cache(AxesSpec(plan, DIAGONAL, part=p)) for p in ("cos", "sin"))
    assert np.array_equal(cos[:, :32], cos[:, 32:]) and np.array_equal(cos[:, 0::2], cos[:, 1::2])
    return cos, sin


def test_both_layouts_fit_is_read_as_half_split_by_both_identify_commands():
    from pecli.analysis.rope.cache import identify_cache

    cos, sin = _both_layouts(axis_preset("lucidrains-axial").plan())
    assert pair_values(cos, sin)[0] == identify_cache(cos, sin).layout == "half-split"


def test_both_layouts_fit_is_read_in_the_presets_layout():
    plan = per_axis([32, 32], theta=1e4, axes=("h", "w"))  # interleaved, as lucidrains'
    cos, sin = _both_layouts(plan)
    read, c, s = pair_values(cos, sin, prefer="interleaved")
    verdict = compare_to_plan(read_axes(c, s, DIAGONAL, layout=read), plan, DIAGONAL, (c, s))
    assert read == "interleaved" and verdict.matches and verdict.arithmetic == "exact"


def test_identify_axes_reads_an_ambiguous_cache_in_the_presets_layout(run_cli, tmp_path):
    cos, sin = _both_layouts(axis_preset("lucidrains-axial").plan())  # an interleaved preset
    ids = tmp_path / "ids.npy"
    np.save(ids, DIAGONAL)
    result = run_cli(
        "rope",
        "identify-axes",
        _save(tmp_path, cos, sin),
        "--preset",
        "lucidrains-axial",
        "--ids",
        str(ids),
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["layout"] == "interleaved"


def test_the_help_offers_only_the_formats_it_writes(run_cli, tmp_path):
    """--help offered [table|csv|json] and -o .csv, then refused both: 'must be one of table,
    json (got csv)'. It writes a table or JSON, and says so."""
    text = " ".join(run_cli("rope", "identify-axes", "--help").stdout.split())
    assert "[table|json]" in text and "(.json)" in text and "csv" not in text.split("Options:")[1]
    path = _save(
        tmp_path,
        axes_cache(AxesSpec(PLAN, IDS, part="cos")),
        axes_cache(AxesSpec(PLAN, IDS, part="sin")),
    )
    result = run_cli("rope", "identify-axes", path, "--grid", "3x4x5", "--format", "csv")
    assert result.exit_code == 2 and "'--format'" in result.stderr, result.output


def test_every_format_of_one_cache_is_read_alike(run_cli, tmp_path):
    """HunyuanVideo's own cache as [cos | sin] .npy, .npz members cos and sin, .safetensors."""
    from safetensors.numpy import save_file

    cos, sin = (MULTI[f"hunyuanvideo_3x4x5_{p}"].table for p in ("cos", "sin"))
    np.savez(tmp_path / "c.npz", cos=cos, sin=sin)
    save_file({"cos": cos, "sin": sin}, str(tmp_path / "c.safetensors"))
    reports = []
    for path in (_save(tmp_path, cos, sin), tmp_path / "c.npz", tmp_path / "c.safetensors"):
        result = run_cli("rope", "identify-axes", str(path), "--grid", "3x4x5", "--format", "json")
        assert result.exit_code == 0, result.output
        reports.append(json.loads(result.stdout))
    assert reports[0] == reports[1] == reports[2]
    assert reports[0]["presets"]["hunyuanvideo"]["matches"]
    np.savez(tmp_path / "one.npz", cos=cos)
    refused = run_cli("rope", "identify-axes", str(tmp_path / "one.npz"), "--grid", "3x4x5")
    assert (
        refused.exit_code == 2 and "must hold tensors cos and sin (got ['cos'])" in refused.stderr
    )


def test_a_complex_cache_must_be_two_dimensional(run_cli, tmp_path):
    np.save(tmp_path / "z.npy", np.ones((2, 3, 4), np.complex64))
    result = run_cli("rope", "identify-axes", str(tmp_path / "z.npy"), "--grid", "4x4")
    assert result.exit_code == 2
    assert "must be a 2-D complex freqs_cis (tokens, pairs) (got (2, 3, 4))" in result.stderr


def test_a_cache_one_ulp_from_float64_but_two_from_exact_is_the_float64_arithmetic():
    """Ids t = 10^7 + …: at row 0, pair 2 (ω = 10^4^(-4/44)), cos of the exact angle rounds to
    0.033603523 (mpmath, 120 bits) but numpy's float64 angle to 0.033603527, one float32 ulp
    up. One more ulp up there: within 1 ulp of the float64 arithmetic, 2 from exact."""
    import mpmath

    ids = np.array([(1e7 + t, h, w) for t in range(3) for h in range(4) for w in range(5)])
    cos = hand_cache(WAN_PAIRS, ids, "cos").astype(F32)  # numpy: the float64 arithmetic
    sin = hand_cache(WAN_PAIRS, ids, "sin").astype(F32)
    with mpmath.workprec(120):
        exact = F32(float(mpmath.cos(mpmath.mpf(1e7) * mpmath.power(1e4, mpmath.mpf(-4) / 44))))
    assert exact == F32(0.033603523) and cos[0, 4] == np.nextafter(exact, F32(1))
    cos[0, 4:6] = np.nextafter(cos[0, 4], F32(1))  # both columns of the pair
    layout, c, s = pair_values(cos, sin)
    verdict = compare_to_plan(read_axes(c, s, ids, layout=layout), PLAN, ids, (c, s))
    assert verdict.matches and verdict.arithmetic == "float64"


def test_a_cache_one_ulp_from_exact_but_two_from_float64_is_the_exact_arithmetic():
    """The mirror of the test above, at the exact arithmetic's own bound of 1 ulp: every value
    is mpmath's (120 bits) rounded to float32, then cos at row 0, pair 2 goes one ulp *down*
    from 0.033603523: 1 ulp from exact, 2 from numpy's float64 angle (0.033603527)."""
    import mpmath

    ids = np.array([(1e7 + t, h, w) for t in range(3) for h in range(4) for w in range(5)])
    with mpmath.workprec(120):
        omega = [mpmath.power(t, mpmath.mpf(-2 * j) / d) for _, t, j, d in WAN_PAIRS]
        axis = [a for a, _, _, _ in WAN_PAIRS]
        angles = [[mpmath.mpf(row[a]) * w for a, w in zip(axis, omega, strict=True)] for row in ids]
        cos = np.repeat(np.array([[float(mpmath.cos(x)) for x in r] for r in angles], F32), 2, 1)
        sin = np.repeat(np.array([[float(mpmath.sin(x)) for x in r] for r in angles], F32), 2, 1)
    assert cos[0, 4] == F32(0.033603523)
    assert F32(np.cos(1e7 * 1e4 ** (-4 / 44))) == np.nextafter(cos[0, 4], F32(1))  # float64's
    cos[0, 4:6] = np.nextafter(cos[0, 4], F32(0))  # both columns of the pair
    layout, c, s = pair_values(cos, sin)
    verdict = compare_to_plan(read_axes(c, s, ids, layout=layout), PLAN, ids, (c, s))
    assert verdict.matches and verdict.arithmetic == "exact"


def test_half_ulps_count_float16_subnormals_on_their_fixed_spacing():
    """float16's subnormals are 2^-24 apart (by hand: emin −14, 11 bits): 2^-20 and 2^-20 + 3·2^-24
    are 3 spacings apart, as are 2^-14 and 2^-14 + 3·2^-24 (the smallest normal binade)."""
    from pecli.analysis.multiaxis.compare import _half_ulps

    mine = np.array([2.0**-20, 2.0**-14])
    assert _half_ulps(mine, mine + 3 * 2.0**-24, "float16").tolist() == [3.0, 3.0]


def test_two_frequencies_are_a_geometric_sequence():
    """1 and 1/100 (by hand): the ratio of a two-term sequence is their quotient."""
    from pecli.analysis.multiaxis.reading import _ratio

    assert _ratio(np.array([1.0, 0.01])) == pytest.approx(0.01, rel=1e-12)


@pytest.mark.parametrize("quiet", [[], ["-q"]])
def test_a_report_written_to_a_file_is_said_unless_quiet(run_cli, tmp_path, quiet):
    path = _save(
        tmp_path,
        axes_cache(AxesSpec(PLAN, IDS, part="cos")),
        axes_cache(AxesSpec(PLAN, IDS, part="sin")),
    )
    report = tmp_path / "r.json"
    args = ["--preset", "wan", "--grid", "3x4x5", "--format", "json", "-o", str(report), *quiet]
    result = run_cli("rope", "identify-axes", path, *args)
    assert result.exit_code == 0, result.output
    assert json.loads(report.read_text(encoding="utf-8")) and result.stdout == ""
    assert result.stderr == ("" if quiet else f"pecli: wrote {report}\n")


def test_the_pairs_of_axis_0_stay_on_it_when_a_missing_axis_is_read_from_text_tokens(
    run_cli, tmp_path
):
    """Qwen2-VL's M-RoPE written out (transformers' ``mrope_section`` [16, 24, 24] of the 64
    half-split pairs, ω_j = 1e6^(-2j/128)) for 5 text tokens (t = h = w = p), a video of 2
    frames × 1 row × 4 columns at ids (5 + t, 5, 5 + w), then 3 text tokens from 9 — the ids
    written here by hand. No two tokens are apart on h alone, so h's pairs are read off the
    text tokens, which step every axis at once; t's pairs, already seen by the frames' step,
    turn on that diagonal too but stay on t (pair 0 is axis 0, not the missing axis 1)."""
    ids = [(p, p, p) for p in range(5)]
    ids += [(5 + t, 5, 5 + w) for t in range(2) for w in range(4)]
    ids += [(p, p, p) for p in range(9, 12)]
    ids = np.array(ids, float)
    section = [0] * 16 + [1] * 24 + [2] * 24
    pairs = [(section[j], 1e6, j, 128) for j in range(64)]
    cos = hand_cache(pairs, ids, "cos", "half-split")
    sin = hand_cache(pairs, ids, "sin", "half-split")
    np.save(tmp_path / "ids.npy", ids)
    path = _save(tmp_path, cos, sin)
    args = ("--ids", str(tmp_path / "ids.npy"), "--preset", "qwen2-vl", "--format", "json")
    result = run_cli("rope", "identify-axes", path, *args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["notes"] == ["axis 1: no two tokens apart on it alone"]
    read = report["channel_axis"]
    assert read[:16] == "T" * 16  # the fast t pairs: each turned by the frames' unit step
    assert all(c in ("?", "THW"[section[j]]) for j, c in enumerate(read)), read
    assert read.count("H") > 0 and report["presets"]["qwen2-vl"]["matches"]
