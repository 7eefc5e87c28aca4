"""Configuration: defaults <- environment <- the dict given to create_app()."""

from __future__ import annotations

import os
from typing import Any

from api import keys
from api.store import FINISHED_TABLE_TTL


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def load_config(overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    prefix = os.environ.get("TA_KEY_PREFIX", keys.DEFAULT_PREFIX)
    config: dict[str, Any] = {
        "REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        "KEY_PREFIX": prefix,
        "RQ_QUEUE": os.environ.get("TA_RQ_QUEUE"),  # None: derived from the key prefix
        "ALLOW_PRIVATE_BOT_URLS": _env_bool("ALLOW_PRIVATE_BOT_URLS", False),
        # Rate limits on registration and table creation (Flask-Limiter syntax), per client address.
        "LIMIT_REGISTRATION": os.environ.get("TA_LIMIT_REGISTRATION", "20/minute"),
        "LIMIT_TABLE_CREATION": os.environ.get("TA_LIMIT_TABLE_CREATION", "60/minute"),
        # Moves are limited per seat, not per address (api/ratelimit.py): posts on one seat at one table
        # version. A client that posts once per decision makes 1-3 (a 409 or 422 retry), never more.
        "LIMIT_SEAT_POSTS": int(os.environ.get("TA_LIMIT_SEAT_POSTS", 10)),
        # Quotas on registered bots (api/registry.py): per client address, and per owner (the registering
        # address) on each ladder, i.e. bots of one owner listing one game.
        "MAX_BOTS_PER_ADDRESS": int(os.environ.get("TA_MAX_BOTS_PER_ADDRESS", 10)),
        "MAX_BOTS_PER_OWNER_PER_LADDER": int(os.environ.get("TA_MAX_BOTS_PER_OWNER_PER_LADDER", 3)),
        "RATELIMIT_ENABLED": _env_bool("TA_RATELIMIT_ENABLED", True),
        "MAX_CONTENT_LENGTH": int(os.environ.get("TA_MAX_CONTENT_LENGTH", 16 * 1024)),
        "LONG_POLL_MAX_SECONDS": 30.0,
        # A finished table (views, move log, replay record) expires this many seconds after its last move.
        "FINISHED_TABLE_TTL": FINISHED_TABLE_TTL,
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
        config["RQ_QUEUE"] = keys.house_queue(config["KEY_PREFIX"])
    return config
