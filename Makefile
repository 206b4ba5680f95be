PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Exact versions of every dependency (the figures and the fuzz run were measured with these).
# pip's own configuration may hold constraints too (/etc/xdg/pip here): -c adds to them.
LOCK := requirements/dev.lock

.PHONY: test lint typecheck fuzz bench venv lock clean docs

$(BIN)/python:
	$(PY) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml $(LOCK) | $(BIN)/python
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c $(LOCK) -e '.[dev]'
	touch $@

venv: $(VENV)/.installed

# Docker, bubblewrap, PostgreSQL and Chromium tests run where the machine allows it; CI
# requires them (a cluster started here keeps running: bash scripts/postgres.sh stop).
test: venv
	-bash scripts/docker-engine.sh
	-bash scripts/serve-parts.sh
	-bash scripts/postgres.sh >/dev/null
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

# The derandomised default fuzz run the README says holds (exit 4 when an invariant fails).
fuzz: venv
	$(BIN)/policy fuzz --examples 2000

# Refresh the lock: resolve pyproject.toml's ranges afresh in a scratch venv, freeze it.
lock:
	rm -rf .venv-lock
	$(PY) -m venv .venv-lock
	.venv-lock/bin/python -m pip install -q -e '.[dev]'
	{ echo "# Exact versions for development, CI and the README's figures (Python 3.11)."; \
	  echo "# make venv installs with -c this file; refresh with: make lock"; \
	  .venv-lock/bin/python -m pip freeze --exclude-editable | grep -v '^-e'; } > $(LOCK)
	rm -rf .venv-lock

# The documentation site, into build/site (the tests build it too, warnings as errors).
docs: venv
	$(BIN)/python scripts/rules_reference.py
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

lint: venv
	$(BIN)/ruff check src tests bench

typecheck: venv
	$(BIN)/mypy

bench: venv
	$(BIN)/python bench/bench_decisions.py
	$(BIN)/python bench/bench_startup.py
	$(BIN)/python bench/bench_daemon.py
	$(BIN)/python bench/bench_executors.py
	$(BIN)/python bench/bench_serve.py

clean:
	rm -rf $(VENV) .venv-lock dist build
