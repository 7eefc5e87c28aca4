"""Settings: the one reader of the environment, called when an app or a worker starts (never at import).

The API's config (``load_config``: defaults <- environment <- the dict given to create_app()) and the
arena's settings (``load_settings``) read the same variable names: one .env for both.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from core import keys
from core.arena.store import RECENT_KEEP, RECENT_LIMIT
from core.tables.store import FINISHED_TABLE_TTL, IDLE_TABLE_TTL

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
MIN_LEASE_S = 10.0  # a match's shortest lease (the scheduler re-runs a match whose lease lapsed)
WORKER_THREADS = 64  # matches in flight per arena worker process: chosen with python -m tools.arena_bench
# Search time per decision of a game analysis: the default keeps one seat of a complete Spot Hearts game
# (about 140 decisions, a quarter of them forced) well under a minute on 2 cores (docs/api.md has figures).
ANALYSIS_BUDGET_MS = 250
ANALYSIS_BUDGET_RANGE_MS = (10, 1000)


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def house_queue_name(prefix: str) -> str:
    """The RQ queue of house-bot jobs: $TA_RQ_QUEUE, else derived from the key prefix.

    The API (which enqueues) and `python -m arena worker --house` (which listens) both ask here, so a
    TA_KEY_PREFIX set for the whole stack moves practice tables too.
    """
    return os.environ.get("TA_RQ_QUEUE") or keys.house_queue(prefix)


def analysis_queue_name(prefix: str) -> str:
    """The RQ queue of game analyses: $TA_ANALYSIS_QUEUE, else derived from the key prefix (API and
    `python -m arena worker --analysis` both ask here)."""
    return os.environ.get("TA_ANALYSIS_QUEUE") or keys.analysis_queue(prefix)


def load_config(overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    prefix = os.environ.get("TA_KEY_PREFIX", keys.DEFAULT_PREFIX)
    config: dict[str, Any] = {
        "REDIS_URL": os.environ.get("REDIS_URL", DEFAULT_REDIS_URL),
        "KEY_PREFIX": prefix,
        "RQ_QUEUE": None,  # derived from the (final) key prefix below, unless given
        "ALLOW_PRIVATE_BOT_URLS": _env_bool("ALLOW_PRIVATE_BOT_URLS", False),
        # Rate limits on registration and table creation (Flask-Limiter syntax), per client address.
        "LIMIT_REGISTRATION": os.environ.get("TA_LIMIT_REGISTRATION", "20/minute"),
        "LIMIT_TABLE_CREATION": os.environ.get("TA_LIMIT_TABLE_CREATION", "60/minute"),
        # Moves are limited per seat, not per address (api/ratelimit.py): posts on one seat at one table
        # version. A client that posts once per decision makes 1-3 (a 409 or 422 retry), never more.
        "LIMIT_SEAT_POSTS": int(os.environ.get("TA_LIMIT_SEAT_POSTS", 10)),
        # Quotas on registered bots (core/arena/registry.py): per client address, and per owner (the
        # registering
        # address) on each ladder, i.e. bots of one owner listing one game.
        "MAX_BOTS_PER_ADDRESS": int(os.environ.get("TA_MAX_BOTS_PER_ADDRESS", 10)),
        "MAX_BOTS_PER_OWNER_PER_LADDER": int(os.environ.get("TA_MAX_BOTS_PER_OWNER_PER_LADDER", 3)),
        # Game analyses (api/blueprints/analysis.py): requests per address, analyses queued or running at once
        # (beyond it: 503 with Retry-After) and of one client address (its share: beyond it 429), and the
        # search budget per decision when the request names none.
        "LIMIT_ANALYSIS": os.environ.get("TA_LIMIT_ANALYSIS", "10/minute"),
        "MAX_PENDING_ANALYSES": int(os.environ.get("TA_MAX_PENDING_ANALYSES", 20)),
        "MAX_PENDING_ANALYSES_PER_CLIENT": int(os.environ.get("TA_MAX_PENDING_ANALYSES_PER_CLIENT", 3)),
        "ANALYSIS_BUDGET_MS": int(os.environ.get("TA_ANALYSIS_BUDGET_MS", ANALYSIS_BUDGET_MS)),
        "ANALYSIS_QUEUE": None,  # derived from the (final) key prefix below, unless given
        "RATELIMIT_ENABLED": _env_bool("TA_RATELIMIT_ENABLED", True),
        # A gevent worker's seat reads and moves share one pipelined Redis connection (docs/api.md); off: a
        # connection per call in flight, for a Redis proxy that does not take pipelined commands.
        "REDIS_PIPELINING": _env_bool("TA_REDIS_PIPELINING", True),
        "MAX_CONTENT_LENGTH": int(os.environ.get("TA_MAX_CONTENT_LENGTH", 16 * 1024)),
        "LONG_POLL_MAX_SECONDS": 30.0,
        # A finished table (views, move log, replay record) expires this many seconds after its last move.
        "FINISHED_TABLE_TTL": int(os.environ.get("TA_FINISHED_TABLE_TTL", FINISHED_TABLE_TTL)),
        # An unfinished table expires this many seconds after its last move (abandoned practice tables).
        "IDLE_TABLE_TTL": int(os.environ.get("TA_IDLE_TABLE_TTL", IDLE_TABLE_TTL)),
        # Advisory deadline shown to polling seats (practice tables do not enforce it).
        "SEAT_MOVE_TIMEOUT": float(os.environ.get("TA_SEAT_MOVE_TIMEOUT", 600)),
        "API_TITLE": "Trick Arena",
        "API_VERSION": "1",
        "OPENAPI_VERSION": "3.0.3",
        "OPENAPI_URL_PREFIX": "/api",
        "OPENAPI_JSON_PATH": "openapi.json",
        "OPENAPI_SWAGGER_UI_PATH": "docs",
        # Served by this app from the swagger-ui-bundle wheel: no CDN at run time.
        "OPENAPI_SWAGGER_UI_URL": "/api/docs/static/",
    }
    config.update(overrides or {})
    if not config.get("RQ_QUEUE"):
        config["RQ_QUEUE"] = house_queue_name(config["KEY_PREFIX"])
    if not config.get("ANALYSIS_QUEUE"):
        config["ANALYSIS_QUEUE"] = analysis_queue_name(config["KEY_PREFIX"])
    return config


@dataclass(frozen=True)
class ArenaSettings:
    redis_url: str
    prefix: str
    allow_private_urls: bool
    tick_s: float = 1.0  # scheduler period
    health_every_s: float = 30.0  # per HTTP bot
    keep_matches: int = RECENT_KEEP  # per ladder: documents and replays of older matches are deleted
    finished_table_ttl: int = FINISHED_TABLE_TTL  # the tables of arena games with a polling bot, house tables
    idle_table_ttl: int = IDLE_TABLE_TTL
    min_lease_s: float = MIN_LEASE_S
    worker_threads: int = WORKER_THREADS  # matches in flight per arena worker process (a thread each)

    @property
    def queue_name(self) -> str:
        return keys.arena_queue(self.prefix)

    @property
    def house_queue_name(self) -> str:
        """The practice tables' house-bot queue, named exactly as the API names it."""
        return house_queue_name(self.prefix)

    @property
    def analysis_queue_name(self) -> str:
        """The game analyses' queue, named exactly as the API names it."""
        return analysis_queue_name(self.prefix)


def load_settings() -> ArenaSettings:
    """The arena's settings (scheduler, workers, jobs) from the environment, as it is now."""
    return ArenaSettings(
        redis_url=os.environ.get("REDIS_URL", DEFAULT_REDIS_URL),
        prefix=os.environ.get("TA_KEY_PREFIX", keys.DEFAULT_PREFIX),
        allow_private_urls=_env_bool("ALLOW_PRIVATE_BOT_URLS", False),
        tick_s=float(os.environ.get("TA_ARENA_TICK_S", 1.0)),
        health_every_s=float(os.environ.get("TA_ARENA_HEALTH_EVERY_S", 30.0)),
        keep_matches=min(int(os.environ.get("TA_ARENA_KEEP_MATCHES", RECENT_KEEP)), RECENT_LIMIT),
        finished_table_ttl=int(os.environ.get("TA_FINISHED_TABLE_TTL", FINISHED_TABLE_TTL)),
        idle_table_ttl=int(os.environ.get("TA_IDLE_TABLE_TTL", IDLE_TABLE_TTL)),
        min_lease_s=float(os.environ.get("TA_ARENA_MIN_LEASE_S", MIN_LEASE_S)),
        worker_threads=max(1, int(os.environ.get("TA_ARENA_WORKER_THREADS", WORKER_THREADS))),
    )
