# The two set-up commands (make run, make test) and the developer's others.
# Each target creates .venv when missing and installs the project into it;
# the install is redone only when pyproject.toml changes.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
ARGS   ?=

.PHONY: run test bench lint clean core

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test]'
	touch $@

$(VENV)/.installed-bench: pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test,bench]'
	touch $@

# The compiled core (trickroom/compiled.py): the engines built by mypyc where a C compiler
# is, again whenever one of their sources changes; without a compiler the pure modules
# run, and the build says why it was not made.
CORE := trickroom/_compiled/manifest.json

$(CORE): $(wildcard trickroom/game/*.py trickroom/game/robots/*.py) trickroom/compiled.py | $(VENV)/.installed-test
	$(PY) -m trickroom.compiled build --optional

core: $(CORE)

run: $(VENV)/.installed-test core
	$(VENV)/bin/trickroom serve $(ARGS)

# Two workers (pytest-xdist); the timing-sensitive tests run alone (tests/conftest.py).
# ARGS="-n 0" runs it in one process.
test: $(VENV)/.installed-test core
	$(PY) -m pytest -n 2 $(ARGS)

bench: $(VENV)/.installed-bench core
	@for b in engine prompt rating_systems robots load soak abuse reviews lobby rejoin fuzz presence bots analysis profile; do \
		$(PY) -m bench.$$b || exit 1; done

lint: $(VENV)/.installed-test
	$(VENV)/bin/ruff check trickroom tests bench clients/python examples
	$(VENV)/bin/mypy trickroom bench clients/python/src/trickroom_client

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis \
		trickroom/_compiled
