"""The areas of ``make mutation`` and ``make uncovered``: every module of pecli in one area.

An area is a subject (ports, multi-axis rope, the zoo, …) in every layer: its modules are
found by globs on subject folders and file names (``pecli/**/ports/**/*.py``,
``pecli/**/*gguf*.py``), so a module that moves between layers or into a subject folder stays
in its area; its tests by globs on test-file names (``tests/**/test_gguf*.py``), so they may
move into subject folders too. A module belongs to the first area whose globs find it (the
list goes from the narrow subjects to the broad ones); a mutant of it runs that area's test
files only. A module no area finds is listed by :func:`unassigned` (``run.py --list``, and
tests/house/test_mutation_areas.py fails on it): give it an area or a glob before it counts.
Likewise every test file under tests/ is run by an area, or named in :data:`NOT_RUN` with its
reason (:func:`unrun`, the same house test): each subject folder of tests/ is globbed whole
into its area, after the area's quick files.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: (area, module globs, test-file globs), relative to the repository root; first match wins.
#: Test files run in the order given (``pytest -x`` stops at the first failure): quick first.
AREAS: list[tuple[str, list[str], list[str]]] = [
    (
        "certificate",  # correct rounding: the error bounds' check and the mpmath fallback
        ["pecli/**/certificate/**/*.py", "pecli/core/turns.py"],
        [
            "tests/**/test_certificate*.py",
            "tests/**/test_certified*.py",
            "tests/certificate/**/test_*.py",
            "tests/house/test_json_writers.py",  # every certified writer offers --json
        ],
    ),
    (
        "multi-axis rope",  # M-RoPE, video/image axes, identify-axes, axis maps, their figure
        [
            "pecli/**/multiaxis/**/*.py",
            "pecli/**/*mrope*.py",
            "pecli/**/*axes*.py",
            "pecli/**/*axis*.py",
        ],
        [
            "tests/**/test_multiaxis*.py",
            "tests/**/test_mrope*.py",
            "tests/**/test_cli_multiaxis*.py",
            "tests/**/test_identify_axes*.py",
            "tests/multiaxis/**/test_*.py",
            "tests/**/test_port_registries.py",  # the preset records against the docs tables
        ],
    ),
    (
        "ports",  # GGUF, llama.cpp's arithmetic, serving engines, Llama 4, diff and its causes
        [
            "pecli/**/ports/**/*.py",
            "pecli/**/*gguf*.py",
            "pecli/**/*ggml*.py",
            "pecli/**/*engines*.py",
            "pecli/**/*irope*.py",
            "pecli/**/*llama4*.py",
            "pecli/**/diff*.py",
        ],
        [
            "tests/**/test_gguf*.py",
            "tests/**/test_ggml*.py",
            "tests/**/test_engines*.py",
            "tests/**/test_irope*.py",
            "tests/**/test_diff*.py",
            "tests/**/test_walk_findings*.py",
            "tests/**/test_break_new_commands.py",
            "tests/ports/**/test_*.py",
            "tests/**/test_port_registries.py",  # engines, modes, arithmetics against the docs
        ],
    ),
    (
        "zoo",  # timesteps, ALiBi, T5 buckets, xPos, random Fourier features
        ["pecli/**/zoo/**/*.py", "pecli/**/*zoo*.py"],
        [
            "tests/**/test_zoo*.py",
            "tests/**/test_cli_zoo*.py",
            "tests/zoo/**/test_*.py",
            "tests/**/test_issue34_first.py",  # ALiBi slopes rounded once, refused below normal
            "tests/**/test_registries.py",  # ALiBi series, bias conventions, timestep models
            "tests/**/test_certificate.py",  # xPos, ALiBi, timestep bounds against mpmath
        ],
    ),
    (
        "rope identify",
        ["pecli/**/inv_freq*.py", "pecli/**/rope/identify*.py"],
        [
            "tests/**/test_pinned_behaviours.py",
            "tests/**/test_rope.py",
            "tests/**/test_cli_rope.py",
            "tests/**/test_rope_cache_files.py",
        ],
    ),
    (
        "grid identify",
        ["pecli/**/grid*/**/*identify*.py", "pecli/**/*grid*identify*.py"],
        [
            "tests/**/test_pinned_behaviours.py",
            "tests/**/test_cli_grid.py",
            "tests/**/test_grids.py",
            "tests/**/test_grid_identify*.py",
        ],
    ),
    (
        "rope",  # the rope-type registry, caches, forms, configs, permutation, precision
        ["pecli/**/rope/**/*.py"],
        [
            "tests/**/test_pinned_behaviours.py",
            "tests/**/test_rope.py",
            "tests/**/test_rope_*.py",
            "tests/**/test_cli_rope*.py",
            "tests/**/test_block_reuse.py",
            "tests/rope/**/test_*.py",
        ],
    ),
    (
        "grids",
        ["pecli/**/grid*/**/*.py", "pecli/**/*grid*.py"],
        [
            "tests/**/test_pinned_behaviours.py",
            "tests/**/test_grids*.py",
            "tests/**/test_cli_grid*.py",
            "tests/**/test_grid_*.py",
            "tests/**/test_block_reuse.py",
            "tests/**/test_checkpoint_grids.py",
        ],
    ),
    (
        "checkpoints",  # tables read out of .safetensors / .npz checkpoints, and identified
        [
            "pecli/**/checkpoints/**/*.py",
            "pecli/**/checkpoints.py",
            "pecli/**/tensors.py",
            "pecli/**/*safetensors*.py",
            "pecli/**/npz*.py",
        ],
        [
            "tests/**/test_pinned_behaviours.py",
            "tests/**/test_checkpoint*.py",
            "tests/**/test_safetensors*.py",
            "tests/**/test_named_inputs.py",
        ],
    ),
    (
        "identify",  # which sinusoidal convention a table uses
        [
            "pecli/**/identify/**/*.py",
            "pecli/**/*identify*.py",
            "pecli/**/rebuild.py",
            "pecli/cli/sinusoidal/readings.py",  # identify's table of what it found
        ],
        [
            "tests/**/test_presets_knobs.py",
            "tests/**/test_pinned_behaviours.py",
            "tests/**/test_identify_quick.py",
            "tests/**/test_identify_fixtures.py",
            "tests/**/test_identify_readings.py",
            "tests/**/test_identify_windows.py",
            "tests/**/test_identify_limits.py",
            "tests/**/test_identify.py",
            "tests/sinusoidal/**/test_identify*.py",
        ],
    ),
    (
        "dtypes",  # dtypes, rounding, the precision reports, NumPy's median and unique
        ["pecli/**/dtypes.py", "pecli/**/precision.py", "pecli/core/median.py"],
        [
            "tests/**/test_median.py",
            "tests/**/test_dtypes.py",
            "tests/**/test_half_precision.py",
            "tests/**/test_precision.py",
            "tests/**/test_checkpoints.py",
        ],
    ),
    (
        "conventions",  # the library presets and knobs of the sinusoidal encoding
        [
            "pecli/**/conventions/**/*.py",
            "pecli/**/*convention*.py",
            "pecli/**/knobs.py",
            "pecli/**/frequencies.py",
        ],
        [
            "tests/**/test_conventions.py",
            "tests/**/test_cli_conventions.py",
            "tests/**/test_library_fixtures_conventions.py",
            "tests/**/test_presets_knobs.py",
            "tests/**/test_registries.py",  # the presets and aliases against the docs tables
        ],
    ),
    (
        "fourier",  # NeRF's Fourier feature map
        ["pecli/**/*fourier*.py"],
        ["tests/**/test_fourier*.py", "tests/**/test_cli_fourier*.py"],
    ),
    (
        "figures",  # the article's figures, spectra, similarity, their options and styles
        [
            "pecli/figures/**/*.py",
            "pecli/**/plots.py",
            "pecli/**/figure_rules.py",
            "pecli/**/spectr*.py",
            "pecli/**/similarity.py",
        ],
        [
            "tests/**/test_similarity.py",
            "tests/**/test_figure*.py",
            "tests/**/test_cli.py",
            "tests/**/test_print_ready_figures.py",
            "tests/**/test_spectra_figures.py",
            "tests/**/test_committed_figures.py",
        ],
    ),
    (
        "sinusoidal",  # the encoding itself: exact angles, kernels, filling, apply, its rules
        [
            "pecli/**/sinusoidal/**/*.py",
            "pecli/**/encoding.py",
            "pecli/**/angles.py",
            "pecli/**/kernels.py",
            "pecli/core/direct.py",
            "pecli/**/filling.py",
            "pecli/**/apply.py",
            "pecli/**/threads.py",
            "pecli/core/rules.py",
            "pecli/**/compute.py",
            "pecli/**/wavelengths.py",
        ],
        [
            "tests/**/test_block_reuse.py",
            "tests/**/test_slow_formulas.py",
            "tests/**/test_encoding*.py",
            "tests/**/test_angle_product.py",
            "tests/**/test_properties.py",
            "tests/**/test_apply.py",
            "tests/**/test_add_certified.py",
            "tests/**/test_memory_limits.py",
            "tests/**/test_kernels.py",
            "tests/**/test_direct_bound_paths.py",
            "tests/**/test_cli.py",
        ],
    ),
    (
        "io",  # reading and writing files and streams: bounded reads, atomic output, pipes
        ["pecli/io/**/*.py"],
        [
            "tests/**/test_csv_output.py",
            "tests/**/test_read_arrays.py",
            "tests/**/test_reading_large.py",
            "tests/**/test_paths.py",
            "tests/**/test_safetensors_reader.py",
            "tests/**/test_rope_freqs_npy.py",
            "tests/**/test_input_changes.py",
            "tests/**/test_shrinking_inputs.py",
            "tests/**/test_unbounded_input.py",
            "tests/**/test_apply.py",
            "tests/**/test_closed_streams.py",
            "tests/**/test_outputs_never_inputs.py",
            "tests/**/test_named_inputs.py",
            "tests/**/test_special_outputs.py",
            "tests/**/test_robustness.py",
            "tests/**/test_signal_at_commit.py",  # guard.py's held signal (seed 15)
            "tests/io/**/test_*.py",  # the rest of io's own folder
        ],
    ),
    (
        "command line",  # the shared plumbing: the app, options, errors, messages, start-up
        ["pecli/*.py", "pecli/*/__init__.py", "pecli/cli/*.py", "pecli/**/errors.py"],
        [
            "tests/**/test_first_use.py",
            "tests/**/test_docs.py",
            "tests/**/test_break_it.py",
            "tests/**/test_quick_exit.py",
            "tests/**/test_bad_input.py",
            "tests/**/test_newcomer_messages.py",
            "tests/**/test_in_process_runs.py",  # a group run again names its own command
            "tests/**/test_signal_at_commit.py",
            "tests/**/test_hostile_status.py",
            "tests/**/test_cli.py",
            "tests/**/test_lazy_imports.py",
            "tests/**/test_messages.py",
            "tests/**/test_issue34_later.py",  # unreadable inputs named (seed 15: _app.py)
            "tests/**/test_plain_text.py",
            "tests/**/test_position_words.py",
            "tests/**/test_*_round.py",  # break-it and newcomer rounds over many commands
        ],
    ),
]

#: Test files no area runs, each with the reason: they check the source tree, the docs or the
#: tools rather than what pecli computes (a one-line mutant of a module changes none of it),
#: or they run every example of the docs (minutes; ``make test`` runs them). Every other test
#: file under tests/ is run by an area (tests/house/test_mutation_areas.py checks it).
NOT_RUN: dict[str, str] = {
    "tests/house/test_architecture_doc.py": "docs/architecture.md against the module list",
    "tests/house/test_bench_rows.py": "the rows of make bench's table, nothing run",
    "tests/house/test_doc_examples.py": "every docs example in a subprocess: slow, repo-wide",
    "tests/house/test_house_rules.py": "a scan of the source for the house rules",
    "tests/house/test_layers.py": "the imports between layers, read with ast",
    "tests/house/test_mutation_areas.py": "this tool's areas and mutants",
    "tests/house/test_mutation_run.py": "this tool's resumable runs",
    "tests/house/test_progress_lines.py": "the test harness's progress lines",
    "tests/house/test_sizes.py": "the size guide, read with ast",
    "tests/house/test_worktree.py": "the tests import this checkout's pecli",
}

#: Modules whose doctests are never collected (``python -m pecli``: importing it runs pecli).
NO_DOCTESTS = ("__main__.py",)


@dataclass(frozen=True)
class Area:
    """One area: its modules and the test files run on their mutants."""

    name: str
    modules: list[str]
    tests: list[str]

    @property
    def doctests(self) -> list[str]:
        """The modules whose doctests run with the area's tests (``make test`` runs them too)."""
        return [m for m in self.modules if Path(m).name not in NO_DOCTESTS]


def _found(patterns: list[str], root: Path) -> list[str]:
    """The files the globs find under ``root``, once each, in sorted order (no caches)."""
    paths = {p for g in patterns for p in glob.glob(g, root_dir=root, recursive=True)}
    return sorted(p for p in paths if "__pycache__" not in p)


def areas(root: Path = ROOT) -> list[Area]:
    """The areas with the modules and test files their globs find today."""
    found, taken = [], set()
    for name, module_globs, test_globs in AREAS:
        modules = [m for m in _found(module_globs, root) if m not in taken]
        taken.update(modules)
        tests = [t for pattern in test_globs for t in _found([pattern], root)]
        found.append(Area(name, modules, list(dict.fromkeys(tests))))
    return found


def modules(root: Path = ROOT) -> list[str]:
    """Every module of pecli (paths relative to ``root``)."""
    return _found(["pecli/**/*.py"], root)


def unassigned(root: Path = ROOT) -> list[str]:
    """The modules of pecli that no area's globs find: their mutants would never be drawn."""
    taken = {m for area in areas(root) for m in area.modules}
    return [m for m in modules(root) if m not in taken]


def unrun(root: Path = ROOT) -> list[str]:
    """The test files under tests/ that no area runs and :data:`NOT_RUN` does not name.

    A mutant is run on its area's test files only, so a test file in no area kills nothing
    in a mutation run however closely it checks (seed 15 found two such files).
    """
    run = {t for area in areas(root) for t in area.tests}
    return [t for t in _found(["tests/**/test_*.py"], root) if t not in run and t not in NOT_RUN]


def stale(root: Path = ROOT) -> list[str]:
    """Globs that find nothing: a module or test file moved or renamed out of its area."""
    out = []
    for name, module_globs, test_globs in AREAS:
        for pattern in [*module_globs, *test_globs]:
            if not _found([pattern], root):
                out.append(f"{name}: {pattern}")
    out.extend(f"NOT_RUN: {path}" for path in NOT_RUN if not (root / path).is_file())
    return out
