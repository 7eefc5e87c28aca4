"""Registered bots: records only (the arena calls them). Owner tokens shown once, stored hashed."""

from __future__ import annotations

import json
import secrets
import time
from typing import Any

import redis

import engine
from core import keys
from core.connections import StrRedis
from core.errors import BadToken, BotNotFound, NameTaken, UnknownGame, UnsafeURL
from core.netguard import UnsafeURLError, validate_bot_url
from core.tokens import hash_token, new_token, require_token, token_matches

PUBLIC_FIELDS = ("bot_id", "name", "games", "url", "enabled", "created", "updated")


class BotRegistry:
    def __init__(self, client: redis.Redis, prefix: str, allow_private_urls: bool = False) -> None:
        self.redis: StrRedis = client  # the API's client decodes replies
        self.prefix = prefix
        self.allow_private_urls = allow_private_urls

    # --- validation -----------------------------------------------------------------------------------------

    @staticmethod
    def _check_games(games: list[str]) -> list[str]:
        unknown = [game for game in games if game not in engine.GAMES]
        if unknown:
            raise UnknownGame(unknown, list(engine.GAMES))
        return sorted(set(games))

    def _check_url(self, url: str | None) -> str | None:
        if url is None:
            return None
        try:
            validate_bot_url(url, allow_private=self.allow_private_urls)
        except UnsafeURLError as error:
            raise UnsafeURL(str(error)) from None
        return url

    # --- records --------------------------------------------------------------------------------------------

    def register(self, name: str, games: list[str], url: str | None) -> tuple[dict[str, Any], str]:
        games = self._check_games(games)
        url = self._check_url(url)
        bot_id = secrets.token_hex(8)
        if not self.redis.set(keys.bot_name(self.prefix, name), bot_id, nx=True):
            raise NameTaken(name)
        token = new_token()
        now = time.time()
        fields = {"bot_id": bot_id, "name": name, "games": json.dumps(games), "url": url or "",
                  "enabled": "1", "created": now, "updated": now, "owner_hash": hash_token(token)}
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(keys.bot(self.prefix, bot_id), mapping=fields)
        pipe.zadd(keys.bots_index(self.prefix), {bot_id: now})
        pipe.execute()
        return self.get(bot_id), token

    def _raw(self, bot_id: str) -> dict[str, str]:
        raw: dict[str, str] = self.redis.hgetall(keys.bot(self.prefix, bot_id))
        if not raw:
            raise BotNotFound(bot_id)
        return raw

    @staticmethod
    def _public(raw: dict[str, str]) -> dict[str, Any]:
        return {"bot_id": raw["bot_id"], "name": raw["name"], "games": json.loads(raw["games"]),
                "url": raw["url"] or None, "enabled": raw["enabled"] == "1",
                "created": float(raw["created"]), "updated": float(raw["updated"])}

    def get(self, bot_id: str) -> dict[str, Any]:
        return self._public(self._raw(bot_id))

    def list(self, game: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        bot_ids = self.redis.zrange(keys.bots_index(self.prefix), 0, -1)
        pipe = self.redis.pipeline(transaction=False)
        for bot_id in bot_ids:
            pipe.hgetall(keys.bot(self.prefix, bot_id))
        bots = [self._public(raw) for raw in pipe.execute() if raw]
        if game is not None:
            bots = [bot for bot in bots if game in bot["games"]]
        return bots[:limit]

    def check_owner(self, bot_id: str, token: str | None) -> dict[str, str]:
        raw = self._raw(bot_id)
        token = require_token(token, "owner", "bot")
        if not token_matches(token, raw["owner_hash"]):
            raise BadToken(f"this token does not own bot {bot_id}")
        return raw

    def update(self, bot_id: str, token: str | None, changes: dict[str, Any]) -> dict[str, Any]:
        self.check_owner(bot_id, token)
        fields: dict[str, Any] = {"updated": time.time()}
        if "games" in changes:
            fields["games"] = json.dumps(self._check_games(changes["games"]))
        if "url" in changes:
            fields["url"] = self._check_url(changes["url"]) or ""
        if "enabled" in changes:
            fields["enabled"] = "1" if changes["enabled"] else "0"
        self.redis.hset(keys.bot(self.prefix, bot_id), mapping=fields)
        return self.get(bot_id)

    def delete(self, bot_id: str, token: str | None) -> None:
        raw = self.check_owner(bot_id, token)
        pipe = self.redis.pipeline(transaction=True)
        pipe.delete(keys.bot(self.prefix, bot_id))
        pipe.zrem(keys.bots_index(self.prefix), bot_id)
        pipe.delete(keys.bot_name(self.prefix, raw["name"]))
        pipe.execute()
