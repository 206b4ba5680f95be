PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: test lint typecheck bench venv clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

venv: $(VENV)/.installed

# Docker and bubblewrap tests run where the machine allows it; CI requires them.
test: venv
	-bash scripts/docker-engine.sh
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

lint: venv
	$(BIN)/ruff check src tests bench

typecheck: venv
	$(BIN)/mypy

bench: venv
	$(BIN)/python bench/bench_decisions.py
	$(BIN)/python bench/bench_startup.py
	$(BIN)/python bench/bench_executors.py

clean:
	rm -rf $(VENV) dist build
