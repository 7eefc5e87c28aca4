"""Configuration: defaults <- environment <- the dict given to create_app()."""

from __future__ import annotations

import os
from typing import Any

from core import keys
from core.tables import FINISHED_TABLE_TTL


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
        # Rate limits (Flask-Limiter syntax), per client address.
        "LIMIT_REGISTRATION": os.environ.get("TA_LIMIT_REGISTRATION", "20/minute"),
        "LIMIT_TABLE_CREATION": os.environ.get("TA_LIMIT_TABLE_CREATION", "60/minute"),
        "LIMIT_MOVES": os.environ.get("TA_LIMIT_MOVES", "1200/minute"),
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
