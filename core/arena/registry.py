"""Registered bots: records only (the arena calls them). A bot belongs to an account or to the holder of its
owner token; the bot quotas (``BotQuota``) are checked and claimed in the Lua call that creates the bot.

Design: docs/api.md#limits
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redis

import engine
from core import keys
from core.arena.accounts import AccountStore, account_owner
from core.arena.moderation import HIDDEN_PREFIX, is_suspended, public_name
from core.arena.names import resembles
from core.arena.netguard import UnsafeURLError, validate_bot_url
from core.errors import (
    AccountDisabled,
    BadToken,
    BotNotFound,
    NameReserved,
    NameTaken,
    QuotaExceeded,
    UnknownGame,
    UnsafeURL,
)
from core.redis.connections import StrRedis
from core.tokens import hash_token, new_token, require_token, token_matches

PUBLIC_FIELDS = ("bot_id", "name", "games", "url", "enabled", "accepts_challenges", "created", "updated")


@dataclass(frozen=True)
class BotQuota:
    per_address: int = 10  # bots registered without an account per client address
    per_owner_per_ladder: int = 3  # bots of one owner listing one game (so on each of its ladders)
    per_account: int = 10  # bots of one account


DEFAULT_QUOTA = BotQuota()


def owner_of(address: str) -> str:
    """The owner id of bots registered from `address` (a hash: the address itself is never stored)."""
    return "addr:" + hashlib.blake2b(address.encode(), digest_size=10).hexdigest()


# The account guard both scripts below start with: KEYS[k] the key's lookup, KEYS[k + 1] the account hash;
# ARGV[a] the account id, ARGV[a + 1] the key hash. The key must still be the account's current key (not
# rotated or revoked since it was checked) and the account not disabled.
ACCOUNT_GUARD_LUA = """
local function account_refusal(k, a)
  if redis.call('GET', KEYS[k]) ~= ARGV[a] or redis.call('HGET', KEYS[k + 1], 'key_hash') ~= ARGV[a + 1] then
    return -4
  end
  if redis.call('HGET', KEYS[k + 1], 'disabled') == '1' then return -5 end
  return nil
end
"""

# KEYS: 1 name key, 2 bot hash, 3 bots index, 4 owner's bot set, 5 key lookup, 6 account hash (5 and 6 are
# read only with an account), 7.. owner's bot set per game.
# ARGV: 1 bot id, 2 owner cap (per address or per account), 3 per-ladder cap, 4 now, 5 account id ("" without
# one), 6 key hash, 7.. field, value pairs of the bot hash.
# Returns {1} created, {-1} name taken, {-2, held} owner cap reached, {-3, game index, held} ladder cap,
# {-4} key no longer valid, {-5} account disabled.
REGISTER_LUA = ACCOUNT_GUARD_LUA + """
if ARGV[5] ~= '' then
  local refusal = account_refusal(5, 5)
  if refusal then return {refusal} end
end
if redis.call('EXISTS', KEYS[1]) == 1 then return {-1} end
local held = redis.call('SCARD', KEYS[4])
if held >= tonumber(ARGV[2]) then return {-2, held} end
for i = 7, #KEYS do
  local n = redis.call('SCARD', KEYS[i])
  if n >= tonumber(ARGV[3]) then return {-3, i - 7, n} end
end
redis.call('SET', KEYS[1], ARGV[1])
local fields = {}
for i = 7, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[2], unpack(fields))
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[1])
for i = 7, #KEYS do redis.call('SADD', KEYS[i], ARGV[1]) end
return {1}
"""

# Moves a bot registered without an account into one. KEYS: 1 bot hash, 2 key lookup, 3 account hash,
# 4 account's bot set, 5 old owner's bot set, then per game of the bot: the account's set, the old owner's.
# ARGV: 1 bot id, 2 account id, 3 key hash, 4 owner token hash, 5 the bot's games JSON as read, 6 account
# cap, 7 per-ladder cap, 8 account's owner id, 9 "1" when the bot has an old owner's sets to leave.
# Returns {1} done, {-4}/{-5} as above, {-6} the owner token does not own it (or it is in an account
# already), {-7} its games changed since the read, {-2, held}, {-3, game index, held} caps as above.
ADOPT_LUA = ACCOUNT_GUARD_LUA + """
local refusal = account_refusal(2, 2)
if refusal then return {refusal} end
local owner_hash = redis.call('HGET', KEYS[1], 'owner_hash') or ''
local account = redis.call('HGET', KEYS[1], 'account') or ''
if owner_hash == '' or owner_hash ~= ARGV[4] or account ~= '' then return {-6} end
if redis.call('HGET', KEYS[1], 'games') ~= ARGV[5] then return {-7} end
local held = redis.call('SCARD', KEYS[4])
if held >= tonumber(ARGV[6]) then return {-2, held} end
for i = 6, #KEYS, 2 do
  local n = redis.call('SCARD', KEYS[i])
  if n >= tonumber(ARGV[7]) then return {-3, (i - 6) / 2, n} end
end
if ARGV[9] == '1' then
  redis.call('SREM', KEYS[5], ARGV[1])
  for i = 7, #KEYS, 2 do redis.call('SREM', KEYS[i], ARGV[1]) end
end
redis.call('SADD', KEYS[4], ARGV[1])
for i = 6, #KEYS, 2 do redis.call('SADD', KEYS[i], ARGV[1]) end
redis.call('HSET', KEYS[1], 'owner', ARGV[8], 'account', ARGV[2], 'owner_hash', '')
return {1}
"""

# KEYS: 1 bot hash, 2.. owner's bot set per game (old and new games). ARGV: 1 bot id, 2 per-ladder cap,
# 3 games JSON, 4.. "1" if the bot lists that game from now on, else "0".
# Returns {1} done, {-3, game index, held} when a new game's cap is reached (nothing changes).
SET_GAMES_LUA = """
for i = 2, #KEYS do
  if ARGV[i + 2] == '1' and redis.call('SISMEMBER', KEYS[i], ARGV[1]) == 0 then
    local n = redis.call('SCARD', KEYS[i])
    if n >= tonumber(ARGV[2]) then return {-3, i - 2, n} end
  end
end
for i = 2, #KEYS do
  local command = 'SREM'
  if ARGV[i + 2] == '1' then command = 'SADD' end
  redis.call(command, KEYS[i], ARGV[1])
end
redis.call('HSET', KEYS[1], 'games', ARGV[3])
return {1}
"""


def suspension_text(raw: dict[str, str]) -> str | None:
    """Why the operator suspended a bot (its stored record), in words for its owner; None if it is not."""
    if not is_suspended(raw):
        return None
    return f"suspended by the operator: {raw.get('suspended_reason') or 'no reason given'}"


class BotRegistry:
    def __init__(self, client: redis.Redis, prefix: str, allow_private_urls: bool = False,
                 quota: BotQuota = DEFAULT_QUOTA) -> None:
        self.redis: StrRedis = client  # the API's client decodes replies
        self.prefix = prefix
        self.allow_private_urls = allow_private_urls
        self.quota = quota
        self.accounts = AccountStore(client, prefix)
        self._register = client.register_script(REGISTER_LUA)
        self._set_games = client.register_script(SET_GAMES_LUA)
        self._adopt = client.register_script(ADOPT_LUA)

    def _ladder_cap_reached(self, game: str, held: int) -> QuotaExceeded:
        cap = self.quota.per_owner_per_ladder
        return QuotaExceeded(f"this owner already has {held} bots playing {game} (the cap per ladder is "
                             f"{cap}); delete one or leave {game} out", quota="per_owner_per_ladder",
                             limit=cap, game=game)

    # --- validation -----------------------------------------------------------------------------------------

    @staticmethod
    def _check_games(games: list[str]) -> list[str]:
        unknown = [game for game in games if game not in engine.GAMES]
        if unknown:
            raise UnknownGame(unknown, list(engine.GAMES))
        return sorted(set(games))

    @staticmethod
    def _check_name(name: str) -> str:
        house = resembles(name)
        if house is not None:
            raise NameReserved(name, house)
        if name.casefold().startswith(HIDDEN_PREFIX):
            raise NameReserved(name, HIDDEN_PREFIX, f"{name!r} reads as a name the operator hid "
                               f"({HIDDEN_PREFIX}...): names starting so are reserved; choose another name")
        return name

    def _check_url(self, url: str | None) -> str | None:
        if url is None:
            return None
        try:
            validate_bot_url(url, allow_private=self.allow_private_urls)
        except UnsafeURLError as error:
            raise UnsafeURL(str(error)) from None
        return url

    # --- records --------------------------------------------------------------------------------------------

    def register(self, name: str, games: list[str], url: str | None, address: str = "local",
                 key: str | None = None) -> tuple[dict[str, Any], str | None]:
        """Create a bot: with an account's API `key` it belongs to that account (no owner token: None is
        returned), without one to the owner token returned, counted against client `address`. Quota
        problems (409) when a cap is reached."""
        name = self._check_name(name)
        games = self._check_games(games)
        url = self._check_url(url)
        account_id = self.accounts.account_of(key) if key is not None else ""
        bot_id = secrets.token_hex(8)
        token = None if account_id else new_token()
        owner = account_owner(account_id) if account_id else owner_of(address)
        cap = self.quota.per_account if account_id else self.quota.per_address
        now = time.time()
        fields = {"bot_id": bot_id, "name": name, "games": json.dumps(games), "url": url or "",
                  "enabled": "1", "created": repr(now), "updated": repr(now),
                  "owner_hash": hash_token(token) if token else "", "owner": owner, "account": account_id}
        p = self.prefix
        key_hash = hash_token(key) if key else ""
        answer = self._register(
            keys=[keys.bot_name(p, name), keys.bot(p, bot_id), keys.bots_index(p), keys.owner_bots(p, owner),
                  keys.account_key(p, key_hash), keys.account(p, account_id),
                  *(keys.owner_game_bots(p, owner, game) for game in games)],
            args=[bot_id, cap, self.quota.per_owner_per_ladder, repr(now), account_id, key_hash,
                  *(item for pair in fields.items() for item in pair)])
        if answer[0] == -1:
            raise NameTaken(name)
        self._raise_refusal(answer, account_id, games)
        self.redis.incr(keys.bots_generation(p))
        return self.get(bot_id), token

    def _raise_refusal(self, answer: Sequence[int], account_id: str, games: Sequence[str]) -> None:
        """The domain error of a refusal code of REGISTER_LUA or ADOPT_LUA; nothing for success."""
        if answer[0] == -2:
            if account_id:
                cap = self.quota.per_account
                raise QuotaExceeded(f"this account already has {answer[1]} bots (the cap is {cap}); delete "
                                    "one to register another", quota="per_account", limit=cap)
            cap = self.quota.per_address
            raise QuotaExceeded(f"this client address already has {answer[1]} bots registered without an "
                                f"account (the cap is {cap}); delete one, or open an account (POST "
                                "/api/accounts) and register with its key", quota="per_address", limit=cap)
        if answer[0] == -3:
            raise self._ladder_cap_reached(games[answer[1]], answer[2])
        if answer[0] == -4:
            raise BadToken("this API key is not valid: it was never issued, or was rotated or revoked")
        if answer[0] == -5:
            raise AccountDisabled(account_id)

    def raw_record(self, bot_id: str) -> dict[str, str]:
        """The bot's stored hash (BotNotFound if there is none): for checks of its flags, never answered."""
        return self._raw(bot_id)

    def _raw(self, bot_id: str) -> dict[str, str]:
        raw: dict[str, str] = self.redis.hgetall(keys.bot(self.prefix, bot_id))
        if not raw:
            raise BotNotFound(bot_id)
        return raw

    @staticmethod
    def _public(raw: dict[str, str]) -> dict[str, Any]:
        return {"bot_id": raw["bot_id"], "name": public_name(raw), "games": json.loads(raw["games"]),
                "url": raw["url"] or None, "enabled": raw["enabled"] == "1",
                "accepts_challenges": raw.get("accepts_challenges") == "1",
                "created": float(raw["created"]), "updated": float(raw["updated"])}

    def get(self, bot_id: str) -> dict[str, Any]:
        return self._public(self._raw(bot_id))

    def suspension(self, bot_id: str) -> str | None:
        """Why the operator suspended the bot, in words for its owner; None if it is not suspended."""
        return suspension_text(self._raw(bot_id))

    def get_with_suspension(self, bot_id: str) -> tuple[dict[str, Any], str | None]:
        """The bot's public record and why the operator suspended it (``suspension``), from one read."""
        raw = self._raw(bot_id)
        return self._public(raw), suspension_text(raw)

    def records(self, bot_ids: Sequence[str]) -> list[dict[str, Any]]:
        """The records of `bot_ids` that exist, in that order (one round trip)."""
        pipe = self.redis.pipeline(transaction=False)
        for bot_id in bot_ids:
            pipe.hgetall(keys.bot(self.prefix, bot_id))
        return [self._public(raw) for raw in pipe.execute() if raw]

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
        """The bot's raw record if `token` manages it: its owner token, or for a bot in an account that
        account's current API key (AccountDisabled when the account is disabled). No token at all is a 401
        before any lookup: whether a bot exists is not the question a request without credentials asks."""
        token = require_token(token, "owner", "bot")
        raw = self._raw(bot_id)
        if raw.get("owner_hash") and token_matches(token, raw["owner_hash"]):
            return raw
        if raw.get("account") and self.accounts.account_or_none(token) == raw["account"]:
            return raw
        raise BadToken(f"this token does not own bot {bot_id}")

    def managed(self, bot_id: str, token: str | None) -> dict[str, str] | None:
        """``check_owner`` as a question: the bot's raw record if `token` manages it, else None (BotNotFound
        for no such bot, TokenRequired without a token, AccountDisabled for a disabled account's key)."""
        try:
            return self.check_owner(bot_id, token)
        except AccountDisabled:
            raise
        except BadToken:
            return None

    def adopt(self, bot_id: str, key: str | None, owner_token: str) -> dict[str, Any]:
        """Move a bot registered without an account into the account of `key`, proven by its owner token,
        which stops working: from now on the account's key manages it and its quotas count it."""
        account_id = self.accounts.account_of(key)
        key_hash = hash_token(key or "")
        p = self.prefix
        new_owner = account_owner(account_id)
        while True:  # again only if its games changed between the read and the move
            raw = self._raw(bot_id)
            games = json.loads(raw["games"])
            old_owner = raw.get("owner") or new_owner
            answer = self._adopt(
                keys=[keys.bot(p, bot_id), keys.account_key(p, key_hash), keys.account(p, account_id),
                      keys.owner_bots(p, new_owner), keys.owner_bots(p, old_owner),
                      *(k for game in games for k in (keys.owner_game_bots(p, new_owner, game),
                                                       keys.owner_game_bots(p, old_owner, game)))],
                args=[bot_id, account_id, key_hash, hash_token(owner_token), raw["games"],
                      self.quota.per_account, self.quota.per_owner_per_ladder, new_owner,
                      "1" if raw.get("owner") else "0"])
            if answer[0] == -6:
                raise BadToken(f"this owner token does not own bot {bot_id} (or the bot is in an account "
                               "already)")
            if answer[0] != -7:
                break
        self._raise_refusal(answer, account_id, games)
        return self.get(bot_id)

    def update(self, bot_id: str, token: str | None, changes: dict[str, Any]) -> dict[str, Any]:
        raw = self.check_owner(bot_id, token)
        fields: dict[str, Any] = {"updated": time.time()}
        if "games" in changes:
            games = self._check_games(changes["games"])
            if raw.get("owner"):
                self._claim_games(bot_id, raw["owner"], json.loads(raw["games"]), games)
            else:  # registered before owners were recorded: no quota places to move
                fields["games"] = json.dumps(games)
        if "url" in changes:
            fields["url"] = self._check_url(changes["url"]) or ""
        if "enabled" in changes:
            fields["enabled"] = "1" if changes["enabled"] else "0"
        if "accepts_challenges" in changes:  # other owners may challenge it (core.arena.challenges)
            fields["accepts_challenges"] = "1" if changes["accepts_challenges"] else "0"
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(keys.bot(self.prefix, bot_id), mapping=fields)
        if "url" in changes:  # a block and a passed check were the old URL's: the new one is checked first
            pipe.hdel(keys.arena_health(self.prefix, bot_id), "url_blocked", "answered_at")
        pipe.incr(keys.bots_generation(self.prefix))  # last: the scheduler syncs after it sees the change
        pipe.execute()
        return self.get(bot_id)

    def _claim_games(self, bot_id: str, owner: str, old: Sequence[str], new: Sequence[str]) -> None:
        every = sorted(set(old) | set(new))
        answer = self._set_games(keys=[keys.bot(self.prefix, bot_id),
                                       *(keys.owner_game_bots(self.prefix, owner, g) for g in every)],
                                 args=[bot_id, self.quota.per_owner_per_ladder, json.dumps(new),
                                       *("1" if g in new else "0" for g in every)])
        if answer[0] == -3:
            raise self._ladder_cap_reached(every[answer[1]], answer[2])

    def delete(self, bot_id: str, token: str | None) -> None:
        """Delete the bot: it leaves every ladder's standings at once (its matches stay in the match documents
        and its opponents' histories)."""
        raw = self.check_owner(bot_id, token)
        ladder_ids = sorted(self.redis.smembers(keys.arena_ladders(self.prefix)))
        pipe = self.redis.pipeline(transaction=True)
        for ladder_id in ladder_ids:
            pipe.hdel(keys.arena_members(self.prefix, ladder_id), bot_id)
            for standings in (keys.arena_ratings, keys.arena_ranked, keys.arena_unrated):
                pipe.zrem(standings(self.prefix, ladder_id), bot_id)
        pipe.delete(keys.bot(self.prefix, bot_id))
        pipe.zrem(keys.bots_index(self.prefix), bot_id)
        pipe.delete(keys.bot_name(self.prefix, raw["name"]))
        pipe.srem(keys.admin_suspended(self.prefix), bot_id)  # the operator's lists name only live bots
        pipe.srem(keys.admin_hidden(self.prefix), bot_id)
        if raw.get("owner"):  # frees its quota places
            pipe.srem(keys.owner_bots(self.prefix, raw["owner"]), bot_id)
            for game in json.loads(raw["games"]):
                pipe.srem(keys.owner_game_bots(self.prefix, raw["owner"], game), bot_id)
        pipe.incr(keys.bots_generation(self.prefix))
        pipe.execute()
