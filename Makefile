# Two entry points for a fresh machine:
#   make run   installs gangviz into .venv and opens the window on the Fig. 2 re-packing scenario
#   make test  installs gangviz with its test tools into .venv and runs the whole suite offscreen,
#              spread over every core (pytest-xdist); CI runs this
#   make test-quick  the same without the tests marked slow (pyproject.toml lists the markers):
#              the edit-test loop (about 70 s of CPU: half a minute on two quiet cores)
#   make lint  installs the checkers and runs them: ruff (whole tree), mypy (strict, on what
#              [tool.mypy] in pyproject.toml lists), the import contracts of pyproject.toml
#              (lint-imports)
# Installs happen once: a stamp file in .venv records them and is redone only when
# pyproject.toml, setup.py or the optional C sources change (the install compiles them).
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
PIP     = $(BIN)/python -m pip install -q --disable-pip-version-check
BUILD   = pyproject.toml setup.py gangviz/spacesharing/_easyloop.c gangviz/workloads/_swfscan.c \
          gangviz/results/_rowtext.c

.PHONY: run test test-quick lint install install-test install-lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip

$(VENV)/.installed: $(BUILD) | $(BIN)/python
	$(PIP) -e .
	touch $@

$(VENV)/.installed-test: $(BUILD) | $(BIN)/python
	$(PIP) -e '.[test]'
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed

$(VENV)/.installed-lint: $(BUILD) | $(BIN)/python
	$(PIP) -e '.[lint]'
	touch $@ $(VENV)/.installed

install-test: $(VENV)/.installed-test

install-lint: $(VENV)/.installed-lint

# With a display set, check first that Qt's xcb plugin can load; if not, say which system
# libraries are missing and how to install them.
run: install
	$(BIN)/python -m gangviz.display_check
	$(BIN)/gangviz

# -n auto: one pytest worker per core, each with its own QApplication; --dist worksteal: a worker
# that runs out of tests takes half of another's queue, so a few long tests do not leave one core
# waiting at the end; PYTEST_ARGS adds options (e.g. PYTEST_ARGS='-n 0' runs in one process,
# PYTEST_ARGS='tests/gui' one folder). PYTHONDONTWRITEBYTECODE is cleared: with it set, every
# worker rewrites the assertions of every test module again (seconds of CPU each) and every
# command a test starts compiles gangviz again; the caches go to __pycache__ (ignored by git)
PYTEST = QT_QPA_PLATFORM=offscreen PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n auto --dist worksteal

test: install-test
	$(PYTEST) $(PYTEST_ARGS)

test-quick: install-test
	$(PYTEST) -m 'not slow' $(PYTEST_ARGS)

# All three checkers run, so one run reports every finding; the target fails if any found one.
lint: install-lint
	@status=0; \
	$(BIN)/ruff check . || status=1; \
	$(BIN)/mypy || status=1; \
	$(BIN)/lint-imports || status=1; \
	exit $$status

bench: install-test
	$(BIN)/python benchmarks/bench_zhou.py wlt
	$(BIN)/python benchmarks/bench_swf.py
	$(BIN)/python benchmarks/bench_gui.py frames

clean:
	rm -rf $(VENV) build *.egg-info
