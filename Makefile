# Two commands work on a fresh machine: `make verify` and `make test`.
# Both set everything up first: a virtual environment with guardspec installed, and the
# Mastra adapter's npm packages from its lockfile.
#
# The inner loop: `make unit` (no Node, no browser, nothing slow; the quick `dev` Hypothesis
# profile) and `make check` (ruff, mypy, the clause check). CI runs `make check` then `make test`.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
ADAPTER := adapters/mastra

.PHONY: setup browser verify check lint typecheck clauses unit test report bench clean

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

# The report's browser test opens the page in headless Chromium from the system's packages.
# Installed with apt-get when missing and running as root; elsewhere this says why and goes on
# (the test then skips with that reason).
browser:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null) \
		|| echo "browser: apt-get could not install chromium; the report's browser test will skip"; \
	else echo "browser: no chromium, and no apt-get as root to install it; the report's browser test will skip"; fi

# mypy sees the installed layout (guardspec.model is model/, ...) through a tree of links,
# as the editable install's import hook is invisible to it.
TYPING := build/typing
TYPED := -p guardspec.model -p guardspec.reference -p guardspec.properties.invariants

# Lint, format and types, then the clause check: CI runs this before the tests.
check: lint typecheck clauses

# spec/SPEC.md against reference/, the tests, the properties and the README's table, both ways.
clauses: setup
	$(VENV)/bin/guardspec clauses --check

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: setup
	@rm -rf $(TYPING) && mkdir -p $(TYPING)/guardspec
	@for e in src/guardspec/*; do ln -s "$(CURDIR)/$$e" $(TYPING)/guardspec/; done
	@for p in model reference properties; do ln -s "$(CURDIR)/$$p" $(TYPING)/guardspec/$$p; done
	MYPYPATH=$(TYPING) $(VENV)/bin/mypy --config-file pyproject.toml $(TYPED)

# Everything that needs neither Node, nor Chromium, nor minutes: the inner loop.
unit: setup
	GUARDSPEC_PROFILE=$${GUARDSPEC_PROFILE:-dev} $(PY) -m pytest -n 2 --dist loadgroup -m "not node and not browser and not slow"

# The whole suite on two workers; a module's costly fixture stays on one (xdist_group).
test: setup browser
	$(PY) -m pytest -n 2 --dist loadgroup

report: setup
	$(VENV)/bin/guardspec report --out report

bench: setup
	$(VENV)/bin/guardspec bench

clean:
	rm -rf $(VENV) $(ADAPTER)/node_modules
