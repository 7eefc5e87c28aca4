"""A worker process's state: its settings (read once, when it starts), its stores, and its stop flag."""

from __future__ import annotations

import threading
import weakref

import redis

from core import metrics
from core.arena.model import default_ladders
from core.settings import Settings
from core.stores import Stores

# Set by the worker's first SIGTERM/SIGINT: every running match stops after its current decision.
STOPPING = threading.Event()

_settings: Settings | None = None
# Per connection pool (weakly: an entry goes with its pool) and prefix: a job reuses its process's stores.
_stores: weakref.WeakKeyDictionary[object, dict[str, Stores]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def install(settings: Settings) -> None:
    """The worker's settings, read once when it starts: every job in this process uses them."""
    global _settings
    _settings = settings
    metrics.initialise(ladder.ladder_id for ladder in default_ladders())  # every family from the first scrape


def settings() -> Settings:
    """The installed settings; a job run outside a worker (a test, ``rq worker``) reads the environment."""
    return _settings if _settings is not None else Settings.from_env()


def stores(conn: redis.Redis, prefix: str) -> Stores:
    """The stores of `conn` under `prefix`, built once per process from its settings."""
    pool = conn.connection_pool
    with _lock:
        per_prefix = _stores.setdefault(pool, {})
        if prefix not in per_prefix:
            per_prefix[prefix] = Stores.build(settings(), conn, prefix)
        return per_prefix[prefix]
