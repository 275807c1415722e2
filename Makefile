# Two entry points for a new machine: `make derive` (the main job) and `make test`;
# `make test-fast` is the working loop (no lint, no tests marked slow, on every core).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LINT_PATHS := symattn tests $(wildcard benchmarks) $(wildcard derivations)

.PHONY: derive test test-fast lint bench install clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,dev,figures]'
	touch $(STAMP)

install: $(STAMP)

derive: $(STAMP)
	$(BIN)/symattn derive --out build --lang all

lint: $(STAMP)
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/mypy

# bytecode is cached even where the environment turns it off: the tests import every module
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/pytest

test: lint
	$(PYTEST) -q

test-fast: $(STAMP)
	$(PYTEST) -q -m "not slow" -n auto --dist loadfile

bench: $(STAMP)
	$(BIN)/pip install -q -e '.[bench]'
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) build
