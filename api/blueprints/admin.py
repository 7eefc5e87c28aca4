"""The admin API: the operator suspends bots, hides names, voids rated matches and reads the boards and the
audit log (core.arena.moderation, core.arena.audit); every request needs the operator's token.

Design: docs/admin.md#the-operator-token
"""

from __future__ import annotations

from typing import Any

from flask import current_app, request

from api.arguments import Blueprint
from api.auth import require_operator
from api.ratelimit import client_address
from api.schemas.admin import (
    AdminAccountSchema,
    AdminActionSchema,
    AdminBotSchema,
    AdminListQuerySchema,
    AuditEntrySchema,
    AuditQuerySchema,
    RefusalRowSchema,
    StrikeBoardRowSchema,
    VoidedMatchSchema,
)
from api.services import services
from core.arena.audit import top_refusals
from core.arena.moderation import Moderation

blp = Blueprint("admin", __name__, url_prefix="/api/admin",
                description="Moderation (operator token: TA_ADMIN_TOKEN)")

OPERATOR = [{"operatorToken": []}]


@blp.before_request
def operator_only() -> None:
    """Every admin route: the operator's token or a problem, before anything is read."""
    require_operator(request.headers.get("Authorization"), current_app.config.get("ADMIN_TOKEN"))


def moderation() -> Moderation:
    return Moderation(services().redis, current_app.config["KEY_PREFIX"])


def via() -> str:
    """How an action came: through the API, from which client address (the audit log's `via`)."""
    return f"api ({client_address()})"


@blp.get("/bots/<bot_id>")
@blp.response(200, AdminBotSchema())
@blp.doc(security=OPERATOR)
def get_bot(bot_id: str) -> dict[str, Any]:
    """A registered bot as the operator sees it: real name, public name, the owner's and the operator's
    flags."""
    return moderation().bot(bot_id)


def _suspend(bot_id: str, body: dict[str, Any], suspended: bool) -> dict[str, Any]:
    mod = moderation()
    changed = mod.suspend_bots([bot_id], body["reason"], body["actor"], via(), suspended=suspended)
    return {**mod.bot(bot_id), "changed": bot_id in changed}


@blp.post("/bots/<bot_id>/suspend")
@blp.arguments(AdminActionSchema())
@blp.response(200, AdminBotSchema())
@blp.doc(security=OPERATOR)
def suspend_bot(body: dict[str, Any], bot_id: str) -> dict[str, Any]:
    """Suspend a bot: it leaves matchmaking at the scheduler's next tick (a match it plays is played to the
    end), keeps its record and ratings, and its owner cannot lift it."""
    return _suspend(bot_id, body, True)


@blp.post("/bots/<bot_id>/unsuspend")
@blp.arguments(AdminActionSchema())
@blp.response(200, AdminBotSchema())
@blp.doc(security=OPERATOR)
def unsuspend_bot(body: dict[str, Any], bot_id: str) -> dict[str, Any]:
    """Lift a suspension: the bot is matched again if its owner has it enabled."""
    return _suspend(bot_id, body, False)


def _suspend_account(account_id: str, body: dict[str, Any], suspended: bool) -> dict[str, Any]:
    return moderation().suspend_account(account_id, body["reason"], body["actor"], via(), suspended=suspended)


@blp.post("/accounts/<account_id>/suspend")
@blp.arguments(AdminActionSchema())
@blp.response(200, AdminAccountSchema())
@blp.doc(security=OPERATOR)
def suspend_account(body: dict[str, Any], account_id: str) -> dict[str, Any]:
    """Suspend an account: its API key manages nothing (403 `account-disabled`) and each of its bots is
    suspended (out of matchmaking, records and ratings kept)."""
    return _suspend_account(account_id, body, True)


@blp.post("/accounts/<account_id>/unsuspend")
@blp.arguments(AdminActionSchema())
@blp.response(200, AdminAccountSchema())
@blp.doc(security=OPERATOR)
def unsuspend_account(body: dict[str, Any], account_id: str) -> dict[str, Any]:
    """Lift an account's suspension: its key works again and the suspensions it gave its bots are lifted
    (a bot the operator suspended on its own stays suspended)."""
    return _suspend_account(account_id, body, False)


def _hide(bot_id: str, body: dict[str, Any], hidden: bool) -> dict[str, Any]:
    mod = moderation()
    changed = mod.set_name_hidden(bot_id, hidden, body["reason"], body["actor"], via())
    return {**mod.bot(bot_id), "changed": changed}


@blp.post("/bots/<bot_id>/hide-name")
@blp.arguments(AdminActionSchema())
@blp.response(200, AdminBotSchema())
@blp.doc(security=OPERATOR)
def hide_name(body: dict[str, Any], bot_id: str) -> dict[str, Any]:
    """Public views show `hidden-<first 8 characters of the id>` instead of the bot's name; the record keeps
    the real name."""
    return _hide(bot_id, body, True)


@blp.post("/bots/<bot_id>/show-name")
@blp.arguments(AdminActionSchema())
@blp.response(200, AdminBotSchema())
@blp.doc(security=OPERATOR)
def show_name(body: dict[str, Any], bot_id: str) -> dict[str, Any]:
    """Show a hidden name again."""
    return _hide(bot_id, body, False)


@blp.post("/matches/<match_id>/void")
@blp.arguments(AdminActionSchema())
@blp.response(200, VoidedMatchSchema())
@blp.doc(security=OPERATOR)
def void_match(body: dict[str, Any], match_id: str) -> dict[str, Any]:
    """Void a rated match: every rating loses exactly the change this match made (the later matches' stay),
    its rated-match and win counts are undone, in one atomic step. 409 `match-not-voidable` unless the match
    is rated (queued, running, aborted, or void already)."""
    return moderation().void_match(match_id, body["reason"], body["actor"], via())


@blp.get("/strikes")
@blp.arguments(AdminListQuerySchema(), location="query")
@blp.response(200, StrikeBoardRowSchema(many=True))
@blp.doc(security=OPERATOR)
def strikes(query: dict[str, Any]) -> list[dict[str, Any]]:
    """The bots with the most strikes over every ladder, most first."""
    return moderation().most_strikes(query["limit"])


@blp.get("/refusals")
@blp.arguments(AdminListQuerySchema(), location="query")
@blp.response(200, RefusalRowSchema(many=True))
@blp.doc(security=OPERATOR)
def refusals(query: dict[str, Any]) -> list[dict[str, Any]]:
    """The client addresses the per-address rate limits and the bot quota refused most, most first."""
    return top_refusals(services().redis, current_app.config["KEY_PREFIX"], query["limit"])


@blp.get("/audit")
@blp.arguments(AuditQuerySchema(), location="query")
@blp.response(200, AuditEntrySchema(many=True))
@blp.doc(security=OPERATOR)
def audit(query: dict[str, Any]) -> list[dict[str, Any]]:
    """Every operator action, newest first (the newest 10 000 are kept); page with `before=<entry id>`."""
    return moderation().audit.entries(query["limit"], query.get("before"))
