# Two entry points for a fresh machine:
#   make run   installs gangviz into .venv and opens the window on the Fig. 2 re-packing scenario
#   make test  installs gangviz with its test tools into .venv and runs the whole suite offscreen
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: run test install install-test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

install: $(BIN)/python
	$(BIN)/python -m pip install -q -e .

install-test: $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'

run: install
	$(BIN)/gangviz

test: install-test
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest

bench: install-test
	$(BIN)/python benchmarks/bench_zhou.py wlt
	$(BIN)/python benchmarks/bench_swf.py
	$(BIN)/python benchmarks/bench_gui.py frames

clean:
	rm -rf $(VENV) build *.egg-info
