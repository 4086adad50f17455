"""The mutation tool (tools/mutation/): every module of pecli is in an area, and stays in it.

``make mutation`` and ``make uncovered`` draw only from the modules an area's globs find, so
a module in no area is never tested for mutants: this file fails until it has one. The
globs are on subject folders and file names, so moving a module between layers or into a
subject folder keeps it in its area (checked here on a tree of empty files laid out as the
subject folders will be).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tools" / "mutation"))

from areas import AREAS, NOT_RUN, areas, modules, unassigned, unrun  # noqa: E402
from mutants import mutants, mutated_source  # noqa: E402


def test_every_module_of_pecli_is_in_an_area():
    assert modules() and not unassigned(), (
        "modules no mutation area covers (add a glob to tools/mutation/areas.py): "
        + ", ".join(unassigned())
    )


def test_every_test_file_is_run_by_an_area():
    """A test file in no area kills no mutant (seed 15: two such files hid two survivors)."""
    assert not unrun(), (
        "test files no mutation area runs (add a glob to tools/mutation/areas.py, or the file "
        "with its reason to NOT_RUN): " + ", ".join(unrun())
    )
    run = {t for area in areas() for t in area.tests}
    for path, reason in NOT_RUN.items():
        assert (ROOT / path).is_file() and reason, path
        assert path not in run, f"{path} is in NOT_RUN and run by an area"


def test_a_test_file_in_no_area_is_listed(tmp_path):
    _tree(tmp_path, ["pecli/io/gguf.py", "tests/ports/test_gguf.py", "tests/teleport/test_beam.py"])
    assert unrun(tmp_path) == ["tests/teleport/test_beam.py"]


def test_every_area_has_modules_and_test_files_that_exist():
    for area in areas():
        assert area.modules, f"{area.name}: no module"
        assert area.tests, f"{area.name}: no test file"
        for path in area.tests:
            assert Path(path).name.startswith("test_") and (ROOT / path).is_file(), path


def test_the_areas_cover_ports_zoo_gguf_diff_and_the_cli():
    """The review found none of these in any area (issue 33)."""
    owner = {m: a.name for a in areas() for m in a.modules}
    for module, area in [
        ("pecli/core/ports/ggml_cache.py", "ports"),
        ("pecli/io/gguf.py", "ports"),
        ("pecli/analysis/ports/causes/values.py", "ports"),
        ("pecli/cli/diff.py", "ports"),
        ("pecli/core/zoo/alibi/certified.py", "zoo"),
        ("pecli/cli/_app.py", "command line"),
        ("pecli/figures/waves.py", "figures"),
    ]:
        if (ROOT / module).exists():  # a module that moved is found by the glob tests below
            assert owner[module] == area, module


#: Where the subject folders will put modules (issue 33, item 3), and the area each keeps.
MOVED = {
    "pecli/core/ports/gguf_check.py": "ports",
    "pecli/io/ports/gguf.py": "ports",
    "pecli/cli/ports/diff.py": "ports",
    "pecli/cli/ports/engines.py": "ports",
    "pecli/analysis/ports/diff.py": "ports",
    "pecli/core/multiaxis/presets.py": "multi-axis rope",
    "pecli/analysis/multiaxis/identify_axes.py": "multi-axis rope",
    "pecli/cli/multiaxis/axis_map.py": "multi-axis rope",
    "pecli/figures/multiaxis/axes.py": "multi-axis rope",
    "pecli/core/zoo/alibi.py": "zoo",
    "pecli/cli/zoo/timestep.py": "zoo",
    "pecli/figures/zoo/alibi.py": "zoo",
    "pecli/core/sinusoidal/encoding.py": "sinusoidal",
    "pecli/cli/sinusoidal/compute.py": "sinusoidal",
    "pecli/core/grids/table.py": "grids",
    "pecli/cli/grids/commands.py": "grids",
    "pecli/figures/grids/grid.py": "grids",
    "pecli/core/rope/cache.py": "rope",
    "pecli/analysis/rope/inv_freq.py": "rope identify",
    "pecli/io/reading/npy.py": "io",
    "pecli/cli/_app.py": "command line",
}


def _tree(root: Path, paths: list[str]) -> None:
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).touch()


def test_modules_moved_into_subject_folders_stay_in_their_areas(tmp_path):
    tests = sorted({g.replace("**/", "") for _, _, globs in AREAS for g in globs})
    _tree(tmp_path, [*MOVED, *(t.replace("*", "") for t in tests)])
    owner = {m: a.name for a in areas(tmp_path) for m in a.modules}
    assert {m: owner.get(m) for m in MOVED} == MOVED


def test_a_module_in_no_area_is_listed(tmp_path):
    _tree(tmp_path, ["pecli/core/ports/ggml.py", "pecli/core/teleport/beam.py"])
    assert unassigned(tmp_path) == ["pecli/core/teleport/beam.py"]


def test_test_files_are_found_in_subject_folders_too(tmp_path):
    _tree(tmp_path, ["pecli/io/gguf.py", "tests/ports/test_gguf.py", "tests/ports/test_diff.py"])
    ports = next(a for a in areas(tmp_path) if a.name == "ports")
    assert ports.tests == ["tests/ports/test_gguf.py", "tests/ports/test_diff.py"]


SOURCE = '''"""Doc."""
__all__ = ["f"]


def f(x: int = 2) -> bool:
    """Doc."""
    return x + 1 < 3 and not x
'''


def test_mutants_change_one_operator_or_constant_and_skip_docs_and_annotations():
    found = mutants("m.py", SOURCE)
    assert [m.description for m in found] == [
        "return None",
        "2 -> 3",
        "And -> Or",
        "Lt -> LtE",
        "drop Not",
        "Add -> Sub",
        "3 -> 4",
        "1 -> 0",
    ]
    assert all(m.line in (5, 7) for m in found)
    assert "return x - 1 < 3 and (not x)" in mutated_source(SOURCE, found[5])
    with pytest.raises(LookupError):
        mutated_source(SOURCE, found[0].__class__("m.py", 7, "x", 99))


def test_a_module_sweep_takes_every_mutant_of_that_module_and_no_other():
    """``run.py --module PATH``: the sweeps of issue 33 ran every mutant of one module with a
    scratch runner; the tool now draws them. A suffix naming two modules is refused."""
    from run import sample

    path = "pecli/core/turns.py"
    every = mutants(path, (ROOT / path).read_text(encoding="utf-8"))
    swept = sample(areas(), 0, 0, module="core/turns.py")
    assert [m.ident for _, m in swept] == [m.ident for m in every] and every
    with pytest.raises(SystemExit, match="names 2 modules"):
        sample(areas(), 0, 0, module="compare.py")
