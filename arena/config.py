"""Arena settings from the environment (the same variable names as the API: one .env for both)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from core import keys
from core.arena_store import RECENT_KEEP, RECENT_LIMIT


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class ArenaSettings:
    redis_url: str
    prefix: str
    allow_private_urls: bool
    tick_s: float = 1.0  # scheduler period
    health_every_s: float = 30.0  # per HTTP bot
    keep_matches: int = RECENT_KEEP  # per ladder: documents and replays of older matches are deleted

    @property
    def queue_name(self) -> str:
        return keys.arena_queue(self.prefix)


def load_settings() -> ArenaSettings:
    return ArenaSettings(
        redis_url=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        prefix=os.environ.get("TA_KEY_PREFIX", keys.DEFAULT_PREFIX),
        allow_private_urls=_env_bool("ALLOW_PRIVATE_BOT_URLS", False),
        tick_s=float(os.environ.get("TA_ARENA_TICK_S", 1.0)),
        health_every_s=float(os.environ.get("TA_ARENA_HEALTH_EVERY_S", 30.0)),
        keep_matches=min(int(os.environ.get("TA_ARENA_KEEP_MATCHES", RECENT_KEEP)), RECENT_LIMIT),
    )


def allow_private_urls() -> bool:
    return _env_bool("ALLOW_PRIVATE_BOT_URLS", False)
