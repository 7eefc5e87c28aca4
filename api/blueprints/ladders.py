"""Arena read API: ladders ranked by rating, a bot's rating history, recent matches and their replays.

It only translates HTTP <-> core.arena (the store, its ranking and lookups). Seeds and replay records of a
match are shown only once the match is finished (rated or aborted): before that they would reveal the deals.
"""

from __future__ import annotations

import contextlib
from typing import Any

from flask import current_app, request, url_for

from api.arguments import Blueprint
from api.auth import bearer_token
from api.matchjson import match_json
from api.problems import refusals
from api.ratelimit import long_poll_slot
from api.schemas.common import MatchSummarySchema, ReplayRecordSchema
from api.schemas.ladders import (
    BotHistorySchema,
    BotMatchesQuerySchema,
    BotMatchesSchema,
    DecisionLogQuerySchema,
    DecisionLogSchema,
    LadderSchema,
    LadderSeatSchema,
    LadderSeatsQuerySchema,
    LiveMatchSchema,
    RankingQuerySchema,
    RankingSchema,
    RecentMatchesQuerySchema,
    RecentMatchesSchema,
)
from api.services import services
from core.arena.challenges import entrant_names
from core.arena.lookup import (
    bot_ladder,
    decision_log,
    find_ladder,
    find_match,
    published_games,
    rating_on_ladder,
)
from core.arena.model import FINAL_STATUSES, LadderConfig, MatchSpec
from core.arena.presence import seats_call
from core.arena.ranking import RankingRow, read_ranking_page
from core.arena.seats import poll_seats, seats_version, wait_for_seats
from core.arena.store import ArenaStore
from core.errors import MatchNotFound

blp = Blueprint("ladders", __name__, url_prefix="/api", description="Arena: ladders, ratings, matches")

FINISHED = FINAL_STATUSES


def _ladder_json(store: ArenaStore, ladder: LadderConfig) -> dict[str, Any]:
    return {**ladder.to_json(), "members": store.member_count(ladder.ladder_id),
            "active_matches": len(store.active_matches(ladder.ladder_id)),
            "url": url_for("ladders.get_ladder", ladder_id=ladder.ladder_id)}


@blp.get("/ladders")
@blp.response(200, LadderSchema(many=True))
def list_ladders() -> list[dict[str, Any]]:
    """Every ladder: a game, a player count and options."""
    store = services().arena
    return [_ladder_json(store, ladder) for ladder in store.ladders()]


@blp.get("/ladders/<ladder_id>")
@blp.arguments(RankingQuerySchema(), location="query")
@blp.response(200, RankingSchema)
def get_ladder(args: dict[str, Any], ladder_id: str) -> dict[str, Any]:
    """The ladder ranked by rating, with each bot's matches, wins, strikes and mean latency; bots with no
    rated match yet are listed apart under ``new``, unranked, after the ranked ones. Paged: `limit` rows
    (100 by default, at most 500) from `offset`; follow `next` until it is null."""
    store = services().arena
    ladder = find_ladder(store, ladder_id)
    page = read_ranking_page(store, ladder_id, args["offset"], args["limit"])

    def row_json(row: RankingRow) -> dict[str, Any]:
        return {**row.to_json(),
                "history": url_for("ladders.get_bot_history", ladder_id=ladder_id, bot_id=row.bot_id)}

    def link(offset: int | None) -> str | None:
        return None if offset is None else url_for("ladders.get_ladder", ladder_id=ladder_id,
                                                   limit=page.limit, offset=offset)

    return {"ladder": _ladder_json(store, ladder), "ranking": [row_json(row) for row in page.table.ranked],
            "new": [row_json(row) for row in page.table.new], "offset": page.offset, "limit": page.limit,
            "ranked_total": page.ranked_total, "new_total": page.new_total,
            "next": link(page.next_offset), "previous": link(page.previous_offset)}


@blp.get("/ladders/<ladder_id>/bots/<bot_id>/history")
@blp.response(200, BotHistorySchema)
def get_bot_history(ladder_id: str, bot_id: str) -> dict[str, Any]:
    """A bot's rating after each of its rated matches on this ladder, newest first."""
    store = services().arena
    find_ladder(store, ladder_id)
    rating = rating_on_ladder(store, ladder_id, bot_id)
    return {"ladder_id": ladder_id, "bot_id": bot_id, "rating": rating,
            "history": store.history(ladder_id, bot_id)}


@blp.get("/ladders/<ladder_id>/matches")
@blp.arguments(RecentMatchesQuerySchema(), location="query")
@blp.response(200, RecentMatchesSchema)
def list_recent_matches(args: dict[str, Any], ladder_id: str) -> dict[str, Any]:
    """The ladder's finished matches, newest first, with links to their replays; paged (follow `next`).

    The ladder keeps its 300 most recent match documents; a bot's own record (`/api/bots/{id}/matches`)
    goes further back.
    """
    store = services().arena
    find_ladder(store, ladder_id)
    limit = args["limit"]
    ids = store.recent_matches(ladder_id, limit + 1, args.get("after"))
    if ids is None:
        raise MatchNotFound(args["after"], recent_of=ladder_id)
    docs = store.match_docs(ids[:limit])
    nxt = (url_for("ladders.list_recent_matches", ladder_id=ladder_id, limit=limit, after=ids[limit - 1])
           if len(ids) > limit else None)
    return {"ladder_id": ladder_id, "matches": [match_json(doc) for doc in docs if doc is not None],
            "next": nxt}


@blp.get("/matches/<match_id>")
@blp.response(200, MatchSummarySchema)
def get_match(match_id: str) -> dict[str, Any]:
    """One match: entrants, status; once finished also places, rating deltas, strikes and replay links."""
    return match_json(find_match(services().arena, match_id))


@blp.get("/matches/<match_id>/live")
@blp.response(200, LiveMatchSchema)
def get_live_match(match_id: str) -> dict[str, Any]:
    """The public table of the game being played in a match now (spectators: no hands, no seed).

    Refreshed by the worker a few times a second while somebody reads it (the first read starts the
    refreshes, within a second); poll it. Once the match is finished, `status` is `over`
    and the last table stays for a short while; the replays (every hand) are at the match's `url`.
    """
    store = services().arena
    doc = find_match(store, match_id)
    spec = doc["spec"]
    if doc["status"] not in FINISHED:
        store.mark_watched(match_id)  # the worker refreshes the table while somebody reads it
    live = store.live(match_id) or {}
    seating = live.get("seating") or [m["bot_id"] for m in spec["entrants"]]
    names = {**entrant_names(doc), **(store.member_names(doc["ladder_id"]) if doc["ladder_id"] else {})}
    return {
        "match_id": match_id, "ladder_id": doc["ladder_id"], "match_status": doc["status"],
        "status": "over" if doc["status"] in FINISHED else "playing",
        "game_no": live.get("game_no"), "games": MatchSpec.from_json(spec).games,
        "seating": seating, "seat_names": [names.get(bot, bot) for bot in seating],
        "table": live.get("table"), "version": live.get("version"), "to_act": live.get("to_act") or [],
        "game_over": bool(live.get("game_over")), "view": live.get("view"), "updated": live.get("updated"),
        "url": url_for("ladders.get_match", match_id=match_id),
    }


@blp.get("/matches/<match_id>/games/<int:game_no>/replay")
@blp.response(200, ReplayRecordSchema)
def get_replay(match_id: str, game_no: int) -> dict[str, Any]:
    """Replay record of one game of a rated match (engine format: `python -m engine replay` takes it)."""
    _doc, records = published_games(services().arena, match_id, game_no)
    return records[game_no]


@blp.get("/matches/<match_id>/bots/<bot_id>/decisions")
@blp.arguments(DecisionLogQuerySchema(), location="query")
@blp.response(200, DecisionLogSchema)
@blp.doc(security=[{"ownerToken": []}, {"apiKey": []}])
def get_decision_log(query: dict[str, Any], match_id: str, bot_id: str) -> dict[str, Any]:
    """Every decision of your bot in a finished match: the request it was sent, its answer, the latency and
    what the arena did (accepted it, or played the fallback and struck it).

    The bot's owner token or its account's API key. Only once the match has been played to the end; the
    request holds your bot's own view only, as it was sent.
    """
    services().bots.check_owner(bot_id, bearer_token(request.headers.get("Authorization")))
    return decision_log(services().arena, match_id, bot_id, query.get("game"))


@blp.get("/bots/<bot_id>/ladder-seats")
@blp.arguments(LadderSeatsQuerySchema(), location="query")
@blp.response(200, LadderSeatSchema(many=True), headers={"X-Seats-Version": {
    "description": "version of this list; pass it as `after` to long-poll for a change",
    "schema": {"type": "integer"}}})
@blp.doc(security=[{"ownerToken": []}, {"apiKey": []}])
def get_ladder_seats(query: dict[str, Any], bot_id: str) -> tuple[list[dict[str, Any]], int, dict[str, str]]:
    """For a polling bot (registered without URL): its seats at running ladder tables, with seat tokens.

    Owner token required. Play each seat through the seat API (long-poll the state, POST moves) before the
    ladder's per-decision deadline; a missed deadline is a strike and the arena plays the fallback move.
    Calling this endpoint is also how a polling bot is *present*: it is seated at new matches only while it
    holds a long-poll here (`after=V&wait=S`) or has called within the ladder's `presence_s` (10 s).
    With `version`, the bot declares its version: its matches are rated under it from now on.
    """
    services().bots.check_owner(bot_id, bearer_token(request.headers.get("Authorization")))
    if "version" in query:
        services().arena.record_version(bot_id, query["version"])
    tables = services().tables
    after = query["after"]
    wait = min(query["wait"], current_app.config["LONG_POLL_MAX_SECONDS"]) if after is not None else 0.0
    with long_poll_slot() if wait > 0 else contextlib.nullcontext(), \
            seats_call(tables.redis, tables.prefix, bot_id, wait):
        version = (wait_for_seats(tables.redis, tables.prefix, bot_id, after, wait) if wait > 0
                   else seats_version(tables.redis, tables.prefix, bot_id))
        seats = poll_seats(tables.redis, tables.prefix, bot_id)
    for entry in seats:
        entry["state_url"] = url_for("seats.get_seat_state", table_id=entry["table"], seat=entry["seat"])
        entry["moves_url"] = url_for("seats.post_move", table_id=entry["table"], seat=entry["seat"])
    return seats, 200, {"X-Seats-Version": str(version)}


@blp.get("/bots/<bot_id>/matches")
@blp.arguments(BotMatchesQuerySchema(), location="query")
@blp.response(200, BotMatchesSchema)
@refusals(blp, ladder_required="the bot is on several ladders and `ladder` names none of them")
def list_bot_matches(args: dict[str, Any], bot_id: str) -> dict[str, Any]:
    """A bot's own record: its finished matches on a ladder, newest first, with its strikes and their reasons.

    Paged by cursor: follow `next` (or pass `next_cursor` as `cursor`) until it is null. Pages never shift
    when matches finish meanwhile. The record keeps a bot's last 500 matches, longer than match documents.
    """
    store = services().arena
    ladder_id = bot_ladder(store, bot_id, args.get("ladder"))
    return bot_matches_page(store, ladder_id, bot_id, args["limit"], args.get("cursor"))


def bot_matches_page(store: ArenaStore, ladder_id: str, bot_id: str, limit: int,
                     cursor: int | None) -> dict[str, Any]:
    entries, next_cursor = store.bot_record(ladder_id, bot_id, limit, cursor)
    matches = [{**entry, "url": url_for("ladders.get_match", match_id=entry["match"])} for entry in entries]
    nxt = None
    if next_cursor is not None:
        nxt = url_for("ladders.list_bot_matches", bot_id=bot_id, ladder=ladder_id, limit=limit,
                      cursor=next_cursor)
    return {"bot_id": bot_id, "ladder_id": ladder_id, "matches": matches, "next_cursor": next_cursor,
            "next": nxt}
