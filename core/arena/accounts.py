"""Accounts: one API key manages every bot of its account, and the bot quotas count per account. Redis holds
only the key's sha256; rotating swaps the hashes in one Lua call.

Design: docs/api.md#accounts
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import redis

from core import keys
from core.errors import AccountDisabled, AccountNotFound, BadToken
from core.redis.connections import StrRedis
from core.tokens import hash_token, new_token, require_token

PUBLIC_FIELDS = ("account_id", "created", "disabled", "key_created")


def account_owner(account_id: str) -> str:
    """The registry's owner id of an account's bots (its quota sets are keyed by it).

    >>> account_owner("0f3c")
    'acct:0f3c'
    """
    return "acct:" + account_id


def public(raw: dict[str, str]) -> dict[str, Any]:
    """An account record as clients see it: never the key hash.

    >>> public({"account_id": "a1", "created": "5.0", "key_hash": "ab", "disabled": "0",
    ...         "key_created": "6.0"})
    {'account_id': 'a1', 'created': 5.0, 'disabled': False, 'key_created': 6.0, 'has_key': True}
    """
    return {"account_id": raw["account_id"], "created": float(raw["created"]),
            "disabled": raw.get("disabled") == "1",
            "key_created": float(raw["key_created"]) if raw.get("key_created") else None,
            "has_key": bool(raw.get("key_hash"))}


# KEYS: 1 account hash, 2 old key's lookup, 3 new key's lookup. ARGV: 1 account id, 2 old key hash,
# 3 new key hash ("" to revoke), 4 now. Returns 1 done, 0 the old key is not this account's current key,
# -1 the account is disabled.
SWAP_KEY_LUA = """
if redis.call('GET', KEYS[2]) ~= ARGV[1] or redis.call('HGET', KEYS[1], 'key_hash') ~= ARGV[2] then
  return 0
end
if redis.call('HGET', KEYS[1], 'disabled') == '1' then return -1 end
redis.call('DEL', KEYS[2])
if ARGV[3] ~= '' then
  redis.call('SET', KEYS[3], ARGV[1])
  redis.call('HSET', KEYS[1], 'key_hash', ARGV[3], 'key_created', ARGV[4])
else
  redis.call('HSET', KEYS[1], 'key_hash', '', 'key_created', '')
end
return 1
"""

# KEYS: 1 account hash, 2 new key's lookup, 3 old key's lookup. ARGV: 1 account id, 2 new key hash, 3 now,
# 4 the old key hash read before ("" for none). The operator's recovery: whatever key the account had stops
# working, the new one works. Returns 0 when there is no such account, -1 when the key changed since the read.
ISSUE_KEY_LUA = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if (redis.call('HGET', KEYS[1], 'key_hash') or '') ~= ARGV[4] then return -1 end
if ARGV[4] ~= '' then redis.call('DEL', KEYS[3]) end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'key_hash', ARGV[2], 'key_created', ARGV[3])
return 1
"""


class AccountStore:
    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self.redis: StrRedis = client  # the API's client decodes replies
        self.prefix = prefix
        self._swap_key = client.register_script(SWAP_KEY_LUA)
        self._issue_key = client.register_script(ISSUE_KEY_LUA)

    def create(self) -> tuple[dict[str, Any], str]:
        """A new account and its API key (the one time it is ever seen)."""
        account_id = secrets.token_hex(8)
        key = new_token()
        now = repr(time.time())
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(keys.account(self.prefix, account_id),
                  mapping={"account_id": account_id, "created": now, "key_hash": hash_token(key),
                           "key_created": now, "disabled": "0"})
        pipe.set(keys.account_key(self.prefix, hash_token(key)), account_id)
        pipe.zadd(keys.accounts_index(self.prefix), {account_id: float(now)})
        pipe.execute()
        return self.get(account_id), key

    def _raw(self, account_id: str) -> dict[str, str]:
        raw: dict[str, str] = self.redis.hgetall(keys.account(self.prefix, account_id))
        if not raw:
            raise AccountNotFound(account_id)
        return raw

    def get(self, account_id: str) -> dict[str, Any]:
        return public(self._raw(account_id))

    def account_of(self, key: str | None) -> str:
        """The id of the account whose current key is `key`: TokenRequired without one, BadToken for a key
        that is no account's (never was, rotated, revoked), AccountDisabled for a disabled account's."""
        key = require_token(key, "API key", "account")
        key_hash = hash_token(key)
        account_id: str | None = self.redis.get(keys.account_key(self.prefix, key_hash))
        raw: dict[str, str] = self.redis.hgetall(keys.account(self.prefix, account_id)) if account_id else {}
        if not raw or raw.get("key_hash") != key_hash:
            raise BadToken("this API key is not valid: it was never issued, or was rotated or revoked")
        if raw.get("disabled") == "1":
            raise AccountDisabled(raw["account_id"])
        return raw["account_id"]

    def account_or_none(self, key: str) -> str | None:
        """``account_of`` as a question: None for a key that is no account's (an owner token, say); a
        disabled account's key still raises AccountDisabled."""
        try:
            return self.account_of(key)
        except AccountDisabled:
            raise
        except BadToken:
            return None

    def rotate(self, key: str | None) -> tuple[dict[str, Any], str]:
        """A new key for the account of `key`; `key` stops working in the same step."""
        account_id = self.account_of(key)
        new = new_token()
        self._swap(account_id, key or "", hash_token(new))
        return self.get(account_id), new

    def revoke(self, key: str | None) -> str:
        """`key` stops working and the account has none until the operator issues one; its bots stay."""
        account_id = self.account_of(key)
        self._swap(account_id, key or "", "")
        return account_id

    def _swap(self, account_id: str, key: str, new_hash: str) -> None:
        old_hash = hash_token(key)
        done = self._swap_key(keys=[keys.account(self.prefix, account_id),
                                    keys.account_key(self.prefix, old_hash),
                                    keys.account_key(self.prefix, new_hash or old_hash)],
                              args=[account_id, old_hash, new_hash, repr(time.time())])
        if done == -1:
            raise AccountDisabled(account_id)
        if done != 1:  # rotated or revoked by another request in between
            raise BadToken("this API key is not valid: it was never issued, or was rotated or revoked")

    # --- the operator's ------------------------------------------------------------------------------------

    def issue_key(self, account_id: str) -> str:
        """A new key for `account_id` whatever its current one (lost or revoked): the operator's recovery."""
        new = new_token()
        while True:  # again only if the account's key changed between the read and the swap
            old = self._raw(account_id).get("key_hash", "")
            done = self._issue_key(keys=[keys.account(self.prefix, account_id),
                                         keys.account_key(self.prefix, hash_token(new)),
                                         keys.account_key(self.prefix, old)],
                                   args=[account_id, hash_token(new), repr(time.time()), old])
            if done == 0:
                raise AccountNotFound(account_id)
            if done == 1:
                return new

    def set_disabled(self, account_id: str, disabled: bool) -> dict[str, Any]:
        """Disable (or enable again) an account: while disabled its key is refused with AccountDisabled.
        Its bots are left as they are: disabling them is the caller's choice (``bot_ids`` lists them)."""
        self._raw(account_id)
        self.redis.hset(keys.account(self.prefix, account_id), "disabled", "1" if disabled else "0")
        return self.get(account_id)

    def bot_ids(self, account_id: str) -> list[str]:
        """The ids of the account's bots, sorted."""
        return sorted(self.redis.smembers(keys.owner_bots(self.prefix, account_owner(account_id))))

    def list(self, limit: int = 100) -> list[dict[str, Any]]:
        """Accounts, oldest first."""
        ids = self.redis.zrange(keys.accounts_index(self.prefix), 0, limit - 1)
        pipe = self.redis.pipeline(transaction=False)
        for account_id in ids:
            pipe.hgetall(keys.account(self.prefix, account_id))
        return [public(raw) for raw in pipe.execute() if raw]
