"""Accounts: open one (its API key shown once), see it, list its bots, adopt an old bot, rotate or revoke
the key. Every route but opening an account takes the key as ``Authorization: Bearer <api key>``."""

from __future__ import annotations

from typing import Any

from flask import current_app, request, url_for

from api.arguments import Blueprint
from api.auth import bearer_token
from api.schemas.accounts import AccountKeySchema, AccountSchema, AdoptSchema
from api.schemas.bots import BotSchema
from api.services import services

blp = Blueprint("accounts", __name__, url_prefix="/api",
                description="Accounts: one API key for all your bots")

API_KEY = [{"apiKey": []}]


def _key() -> str | None:
    return bearer_token(request.headers.get("Authorization"))


def _account(account_id: str) -> dict[str, Any]:
    """The account as its owner sees it: its record, how many bots it holds and its quotas."""
    config = current_app.config
    record = services().accounts.get(account_id)
    return {**record, "bots": len(services().accounts.bot_ids(account_id)),
            "quotas": {"bots": config["MAX_BOTS_PER_ACCOUNT"],
                       "bots_per_ladder": config["MAX_BOTS_PER_OWNER_PER_LADDER"]}}


@blp.post("/accounts")
@blp.response(201, AccountKeySchema())
def create_account() -> tuple[dict[str, Any], int, dict[str, str]]:
    """Open an account. Its API key is shown only in this answer (Redis keeps its hash): keep it.

    Limited per client address (`LIMIT_ACCOUNT_CREATION`, 429 `rate-limited`).
    """
    record, key = services().accounts.create()
    return {**_account(record["account_id"]), "api_key": key}, 201, {"Location": url_for("accounts.show")}


@blp.get("/account")
@blp.response(200, AccountSchema())
@blp.doc(security=API_KEY)
def show() -> dict[str, Any]:
    """The account of the key: id, when it was opened, how many bots it holds, its quotas."""
    return _account(services().accounts.account_of(_key()))


@blp.get("/account/bots")
@blp.response(200, BotSchema(many=True))
@blp.doc(security=API_KEY)
def list_account_bots() -> list[dict[str, Any]]:
    """The bots of the key's account, oldest first."""
    account_id = services().accounts.account_of(_key())
    bots = services().bots.records(services().accounts.bot_ids(account_id))
    return sorted(bots, key=lambda bot: bot["created"])


@blp.post("/account/bots/<bot_id>/adopt")
@blp.arguments(AdoptSchema())
@blp.response(200, BotSchema())
@blp.doc(security=API_KEY)
def adopt_bot(body: dict[str, Any], bot_id: str) -> dict[str, Any]:
    """Move a bot registered without an account into this one, proven by its owner token: from now on the
    key manages it, the token stops working and the account's quotas count it (409 `bot-quota-exceeded`
    when they are reached)."""
    return services().bots.adopt(bot_id, _key(), body["owner_token"])


@blp.post("/account/keys/rotate")
@blp.response(200, AccountKeySchema())
@blp.doc(security=API_KEY)
def rotate_key() -> dict[str, Any]:
    """A new API key, shown only in this answer; the key that asked stops working at once."""
    record, key = services().accounts.rotate(_key())
    return {**_account(record["account_id"]), "api_key": key}


@blp.delete("/account/key")
@blp.response(204)
@blp.doc(security=API_KEY)
def revoke_key() -> None:
    """Revoke the key: no key works for the account from now on; its bots stay and keep playing. Only the
    operator can issue a new key (docs/api.md, "Accounts")."""
    services().accounts.revoke(_key())
