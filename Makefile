# Two commands work on a fresh machine: `make verify` and `make test`.
# Both set everything up first: a virtual environment with guardspec installed, and the
# Mastra adapter's npm packages from its lockfile.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
ADAPTER := adapters/mastra

.PHONY: setup verify test bench clean

setup: $(VENV)/.installed $(ADAPTER)/node_modules/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

$(ADAPTER)/node_modules/.installed: $(ADAPTER)/package.json $(ADAPTER)/package-lock.json
	cd $(ADAPTER) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

verify: setup
	$(VENV)/bin/guardspec verify

test: setup
	$(PY) -m pytest

bench: setup
	$(VENV)/bin/guardspec bench

clean:
	rm -rf $(VENV) $(ADAPTER)/node_modules
