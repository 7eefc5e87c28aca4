# Two commands: `make run` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test run lint bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 needed"'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest -q

lint: $(STAMP)
	$(PY) -m ruff check .

run: $(STAMP)
	$(PY) -m engine play --game spot-hearts --players 4 --bots heuristic,random,random,random --seed 1

bench: $(STAMP)
	$(PY) -m engine bench --game spot-hearts --games 2000 --seed 1

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
