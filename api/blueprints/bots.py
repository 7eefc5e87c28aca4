"""Bot registry: register, list, detail, update / disable, delete (owner token or account key for changes),
and a bot's export: its finished matches with their replays, as NDJSON."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, request, url_for
from rq import Worker

from api.arguments import Blueprint
from api.auth import bearer_token
from api.ratelimit import client_address, note_refusal
from api.schemas.bots import (
    BotCreatedSchema,
    BotCreateSchema,
    BotListQuerySchema,
    BotSchema,
    BotUpdateSchema,
    ExportLineSchema,
    ExportQuerySchema,
)
from api.services import services
from core.arena.export import export_lines, page_heads, read_page
from core.arena.lookup import matchmaking
from core.arena.probe import Probe, probe_answer
from core.errors import BadToken, QuotaExceeded
from core.queues import enqueue_health_check, job_return

blp = Blueprint("bots", __name__, url_prefix="/api/bots", description="Bot registry (records only)")

OWNER = [{"ownerToken": []}, {"apiKey": []}]
NDJSON = "application/x-ndjson"
API_KEY = [{"apiKey": []}, {}]  # optional: without a key the bot gets an owner token


@blp.post("")
@blp.arguments(BotCreateSchema())
@blp.response(201, BotCreatedSchema())
@blp.doc(security=API_KEY)
def register_bot(body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Register a bot. With an account's API key (`Authorization: Bearer <api key>`) the bot belongs to the
    account and the key manages it; without one, the answer's owner token (shown only there) does.

    Quotas (409 `bot-quota-exceeded`): an account holds at most `MAX_BOTS_PER_ACCOUNT` bots; without an
    account, at most `MAX_BOTS_PER_ADDRESS` bots are registered from one client address; and at most
    `MAX_BOTS_PER_OWNER_PER_LADDER` bots of one owner (account or address) list one game.

    A bot with a URL is checked at once (`GET {url}/`, as the arena's health checks do) and the answer says
    what came back (`probe`); it is seated in ladder matches only after a check passes, so a bot that has
    never answered is never ranked.
    """
    authorization = request.headers.get("Authorization")
    key = bearer_token(authorization)
    if authorization and key is None:
        raise BadToken("send the account's API key as 'Authorization: Bearer <api key>', or no Authorization "
                       "header to register without an account")
    try:
        record, token = services().bots.register(body["name"], body["games"], body.get("url"),
                                                 address=client_address(), key=key)
    except QuotaExceeded:
        note_refusal()
        raise
    location = url_for("bots.get_bot", bot_id=record["bot_id"])
    created = {**record, "owner_token": token} if token else record
    if record.get("url"):
        created["probe"] = first_check(record["bot_id"], record["url"])
    return created, 201, {"Location": location}


def first_check(bot_id: str, url: str) -> Probe:
    """Queue the arena's health check of a new URL ahead of its matches and wait a few seconds for what came
    back. The API never calls a bot itself: the arena's workers do, under the address policy. With no
    worker on the arena's queue nothing would run it, so the answer says `pending` at once."""
    queue = services().arena_queue
    wait_s = services().settings.registration_probe_s
    job = enqueue_health_check(queue, bot_id, url, current_app.config["KEY_PREFIX"])
    report = job_return(job, wait_s) if Worker.count(queue=queue) else None
    return probe_answer(report, url, wait_s)


@blp.get("")
@blp.arguments(BotListQuerySchema(), location="query")
@blp.response(200, BotSchema(many=True))
def list_bots(query: dict[str, Any]) -> list[dict[str, Any]]:
    """Registered bots, oldest first (optionally only those playing `game`)."""
    return services().bots.list(query.get("game"), query["limit"])


@blp.get("/<bot_id>")
@blp.response(200, BotSchema())
def get_bot(bot_id: str) -> dict[str, Any]:
    """One bot, with its rating line per version on every ladder it has played (`versions`), and whether it
    is out of matchmaking now and why (`paused`, `paused_reason`: failing health checks, benched, a refused
    URL, or suspended by the operator)."""
    record, suspension = services().bots.get_with_suspension(bot_id)
    arena = services().arena
    current = arena.versions([bot_id])[bot_id]
    versions = [{"ladder_id": ladder.ladder_id, **line, "current": line["version"] == current}
                for ladder in arena.ladders() for line in arena.version_lines(ladder.ladder_id, bot_id)]
    state = matchmaking(arena, bot_id, record, suspension)
    return {**record, "version": current, "versions": versions, "paused": state.reason is not None,
            "paused_reason": state.reason, "present": state.present}


@blp.patch("/<bot_id>")
@blp.arguments(BotUpdateSchema())
@blp.response(200, BotSchema())
@blp.doc(security=OWNER)
def update_bot(changes: dict[str, Any], bot_id: str) -> dict[str, Any]:
    """Change games or URL, or disable (`{"enabled": false}`) / re-enable. The bot's owner token, or its
    account's API key. A new URL is checked as at registration (`probe`): the bot is seated again once a
    check of it passes."""
    try:
        record = services().bots.update(bot_id, bearer_token(request.headers.get("Authorization")), changes)
    except QuotaExceeded:
        note_refusal()
        raise
    if changes.get("url"):
        record["probe"] = first_check(bot_id, record["url"])
    return record


@blp.delete("/<bot_id>")
@blp.response(204)
@blp.doc(security=OWNER)
def delete_bot(bot_id: str) -> None:
    """Delete the bot record. The bot's owner token, or its account's API key."""
    services().bots.delete(bot_id, bearer_token(request.headers.get("Authorization")))


@blp.get("/<bot_id>/export")
@blp.arguments(ExportQuerySchema(), location="query")
@blp.response(200, ExportLineSchema(), content_type=NDJSON, headers={"Link": {
    "description": "`<URL>; rel=\"next\"` while more matches are waiting: the next page (absent on the last)",
    "schema": {"type": "string"}}})
def export_bot_matches(query: dict[str, Any], bot_id: str) -> Response:
    """Every finished match of the bot, oldest first, as NDJSON: one line per match (its ladder matches and
    challenges), with its places, the bot's own part and the replay records of its games.

    At most `limit` lines (20 by default, at most 100); follow `Link: rel="next"`, or pass a line's `cursor`
    to go on after it, now or later. `since` (a unix time) starts with the first match that finished after
    it. A match whose replays the retention policy deleted comes without them (`expired`). Public, as the
    matches and replays are; pages are limited per client address (`LIMIT_EXPORT`).
    """
    services().bots.get(bot_id)  # 404 for a bot never registered (or deleted)
    store = services().arena
    limit = query["limit"]
    page = read_page(store, bot_id, limit, query.get("cursor"), query.get("since"))
    heads = page_heads(store, bot_id, page)
    headers = {}
    if page.next_cursor is not None:
        following = url_for("bots.export_bot_matches", bot_id=bot_id, limit=limit, cursor=page.next_cursor)
        headers["Link"] = f'<{following}>; rel="next"'
    return Response(export_lines(store, heads), mimetype=NDJSON, headers=headers)
