# pecli — everything a user or CI types. Needs only python3 (3.11+) on the PATH.
# The virtual environment is built on first use from the pinned versions in constraints.txt,
# so the committed figures do not change under a new matplotlib release.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip --disable-pip-version-check -q
FIGS   := figures/waves.png figures/waves.svg figures/heatmap.png figures/heatmap.svg \
          figures/fourier.png figures/fourier.svg figures/similarity.png figures/similarity.svg \
          figures/grid.png figures/grid.svg \
          figures/patch-similarity.png figures/patch-similarity.svg \
          figures/axes-wan.png figures/axes-wan.svg figures/axes-qwen3-vl.png figures/axes-qwen3-vl.svg \
          figures/alibi.png figures/alibi.svg figures/t5-buckets.png figures/t5-buckets.svg

.PHONY: FORCE install figures test lint bench bench-all clean library-fixtures mutation uncovered

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# setup.py builds the certificate's C extension in place (pecli/core/certificate/_fused*.so);
# an edit of its source needs this install again, so the source is a prerequisite.
$(VENV)/.installed: pyproject.toml setup.py pecli/core/certificate/_fused.c constraints.txt | $(BIN)/python
	$(PIP) install -c constraints.txt -e .
	$(BIN)/python -m compileall -q pecli  # start-up: even where PYTHONDONTWRITEBYTECODE is set
	@touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(PIP) install -c constraints.txt -e '.[test,lint]'
	@touch $@

install: $(VENV)/.installed  ## install pecli (and its pinned dependencies) into .venv

# A figure is redrawn when the *content* of its inputs (pecli's code, the pinned versions)
# changed, not their times (a fresh clone writes every file at once): the figures depend on a
# stamp that tools/figure_stamp.py rewrites only when the inputs' hash changes.
FIGURE_INPUTS := constraints.txt pyproject.toml $(wildcard pecli/*.py pecli/*/*.py pecli/*/*/*.py pecli/*/*/*/*.py)
FIGURE_STAMP  := $(VENV)/.figure-inputs

$(FIGURE_STAMP): FORCE | $(VENV)/.installed
	@$(BIN)/python tools/figure_stamp.py $@ $(FIGURE_INPUTS)

FORCE:

figures: $(FIGS)  ## redraw the committed figures in figures/ when their inputs' content changed

figures/waves.png figures/waves.svg: $(FIGURE_STAMP) | $(VENV)/.installed
	$(BIN)/pecli plot-waves -o $@

figures/heatmap.png figures/heatmap.svg: $(FIGURE_STAMP) | $(VENV)/.installed
	$(BIN)/pecli heatmap --d 128 --n 100 -o $@

figures/fourier.png figures/fourier.svg: $(FIGURE_STAMP) | $(VENV)/.installed
	$(BIN)/pecli plot-fourier --k 3 -o $@

figures/similarity.png figures/similarity.svg: $(FIGURE_STAMP) | $(VENV)/.installed
	$(BIN)/pecli plot-similarity --base 100 --base 10000 -o $@

figures/grid.png figures/grid.svg: $(FIGURE_STAMP) | $(VENV)/.installed
	$(BIN)/pecli plot-grid 14 14 --d 64 -o $@

figures/patch-similarity.png figures/patch-similarity.svg: $(FIGURE_STAMP) | $(VENV)/.installed
	$(BIN)/pecli plot-grid 14 14 --d 768 --similarity -o $@

figures/axes-wan.png figures/axes-wan.svg: $(FIGURE_STAMP) | $(VENV)/.installed
	$(BIN)/pecli rope plot-axes --preset wan -o $@

figures/axes-qwen3-vl.png figures/axes-qwen3-vl.svg: $(FIGURE_STAMP) | $(VENV)/.installed
	$(BIN)/pecli rope plot-axes --preset qwen3-vl -o $@

figures/alibi.png figures/alibi.svg: $(FIGURE_STAMP) | $(VENV)/.installed
	$(BIN)/pecli plot-alibi --heads 12 --compare next-power-of-two -o $@

figures/t5-buckets.png figures/t5-buckets.svg: $(FIGURE_STAMP) | $(VENV)/.installed
	$(BIN)/pecli plot-t5-buckets -o $@

# Two workers (pytest-xdist) on the 2-core machine; a line per finished test file (time,
# outcomes, files and tests done) instead of dots, so a log shows the run is alive. About
# 4 min of CPU (user + sys): 1:51 to 2:08 on two idle cores (7 December, fourth session,
# 11,547 to 11,588 tests), 2:03 with 11,418 before; 3:15 beside two helpers' work.
# PYTHONDONTWRITEBYTECODE is emptied for the run: pytest then keeps the test modules it
# compiles with its assertion rewriting (tests/**/__pycache__, ignored by git), about 5 s of
# CPU per worker on every run after the first.
test: $(VENV)/.installed-dev  ## run the whole test suite (about 2 min on 2 idle cores)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n 2 --dist worksteal --progress-lines

lint: $(VENV)/.installed-dev  ## ruff and mypy
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy pecli

# Mutation run (tools/mutation/run.py): one-line mutants of every module of pecli, one
# process at a time, each on its area's test files, then (if they all pass) on the other tests
# of the suite that run its line (a coverage map of the whole suite, made first). The areas (tools/mutation/areas.py: ports,
# multi-axis rope, zoo, rope, grids, checkpoints, identify, …, the command line) are found by
# subject folders and file names, so they survive moves; `run.py --list` names each area's
# modules and tests, and tests/house/test_mutation_areas.py fails on a module in no area.
# `make mutation MUTATION_ARGS="--area ports --sample 20"` samples one area;
# `MUTATION_ARGS="--module core/turns.py --json turns.json"` sweeps every mutant of one module.
MUTATION_ARGS ?= --sample 150 --seed 21 --budget 3600
mutation: $(VENV)/.installed-dev  ## mutation score of every area of pecli, per area (slow: about 30 min on one core)
	$(PIP) install -q -c constraints.txt -e '.[mutation]'
	$(BIN)/python tools/mutation/run.py $(MUTATION_ARGS)

uncovered: $(VENV)/.installed-dev  ## lines and branches of each module that no test of its area runs (~15 min)
	$(PIP) install -q -c constraints.txt -e '.[mutation]'
	$(BIN)/python tools/mutation/uncovered.py

# BENCH_ARGS: --quick (a smoke run), --only WORD (some groups), --markdown FILE (the table).
# With the fixture venv built (make library-fixtures), Qwen2-VL's ids and cache are also timed
# against transformers' get_rope_index and rotary module (benchmarks/bench_qwen_vl.py).
bench: $(VENV)/.installed-dev  ## the README's Performance table: every command against its anchor (~12 min quiet)
	$(BIN)/python -m compileall -q pecli  # fresh bytecode: start-up is measured
	$(BIN)/python benchmarks/bench_headline.py $(BENCH_ARGS)
	$(BIN)/python benchmarks/bench_qwen_vl.py $(if $(wildcard $(LIBVENV)/bin/python),--libraries $(LIBVENV))

bench-all: $(VENV)/.installed-dev  ## every benchmark, kernels and memory included (15-30 min)
	$(BIN)/python -m compileall -q pecli
	$(BIN)/python benchmarks/run.py

# The real libraries (torch, transformers, diffusers, ...) live in their own venv: make test
# and CI only read the fixtures they wrote (tests/fixtures/libraries/, provenance beside each).
LIBVENV ?= .venv-libraries
$(LIBVENV)/.installed: requirements-libraries.txt
	$(PYTHON) -m venv $(LIBVENV)
	$(LIBVENV)/bin/python -m pip --disable-pip-version-check -q install -r requirements-libraries.txt
	$(LIBVENV)/bin/python -m pip --disable-pip-version-check -q install --no-deps denoising-diffusion-pytorch==2.3.4
	$(LIBVENV)/bin/python -m pip --disable-pip-version-check -q install --no-deps torchscale==0.3.0
	$(LIBVENV)/bin/python -m pip --disable-pip-version-check -q install --no-deps mlx-lm==0.32.2
	@touch $@

library-fixtures: $(LIBVENV)/.installed  ## regenerate tests/fixtures/libraries from the real libraries
	$(LIBVENV)/bin/python tools/library_fixtures/run.py $(AREAS)

clean:  ## remove the virtual environment and caches
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache .mypy_cache .hypothesis
	rm -f pecli/core/certificate/_fused*.so pecli/core/certificate/_fused*.pyd
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
