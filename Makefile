# The two commands a newcomer types: `make demo` and `make test`.
# Another interpreter: `make test PYTHON=python3.13 VENV=.venv313` (its own venv), or `make test-3.13`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTHON313 ?= $(firstword $(wildcard /root/.pyenv/versions/3.13.*/bin/python3.13) python3.13)

.PHONY: demo test test-3.13 print-python313 fuzz bench soak install clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/sagan-tui --demo

# Two workers, one test file each at a time (module fixtures such as a shared simulator stay whole).
test: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -n 2 --dist loadfile --durations=10 $(PYTEST_ARGS)

# The suite on Python 3.13 too (requires-python says 3.11+), in its own venv.
test-3.13:
	$(MAKE) test PYTHON=$(PYTHON313) VENV=.venv313

print-python313:
	@echo $(PYTHON313)

# The property and fuzz tests (hypothesis's `hypothesis` mark) on random draws: `make test` runs
# them derandomized, the same examples on every machine. A counterexample printed here is pinned as an
# @example beside its test. SAGAN_TUI_SOAK=1 draws the soak's counts (1,500 per fuzz test).
fuzz: $(STAMP)
	SAGAN_TUI_FUZZ=1 $(PY) -m pytest -q -p no:cacheprovider -n 2 --dist loadfile -m hypothesis $(PYTEST_ARGS)

# The long variants of tests/reliability (fuzzing, concurrent writers, kill -9, memory); prints
# the figures of docs/reliability.md and writes them to build/reliability-figures.json. About 15 minutes.
soak: $(STAMP)
	SAGAN_TUI_SOAK=1 SAGAN_TUI_FIGURES=build/reliability-figures.json $(PY) -m pytest -q -p no:cacheprovider tests/reliability $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) .venv313 build dist *.egg-info
