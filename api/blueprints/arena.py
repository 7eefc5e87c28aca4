"""Arena read API: ladders ranked by rating, a bot's rating history, recent matches and their replays.

Owned by the arena (issue 4); it only translates HTTP <-> arena.store. Seeds and replay records of a match are
shown only once the match is finished (rated or aborted): before that they would reveal the deals.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from flask import current_app, request, url_for
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from api.problems import ApiProblem
from api.schemas import ReplayRecordSchema
from api.services import services
from api.tokens import bearer_token
from arena.model import MatchSpec, MatchStatus, MemberKind
from arena.polling import poll_seats
from arena.store import MAX_VERSION_CHARS, ArenaStore

blp = Blueprint("arena", __name__, url_prefix="/api", description="Arena: ladders, ratings, matches")

FINISHED = (MatchStatus.RATED, MatchStatus.ABORTED)


class LadderSchema(Schema):
    ladder_id = fields.String(required=True)
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    options = fields.Dict(required=True)
    duplicate = fields.Boolean(required=True)
    deadline_ms = fields.Integer(required=True)
    strike_limit = fields.Integer(required=True)
    house_bots = fields.List(fields.String(), required=True)
    members = fields.Integer(required=True)
    active_matches = fields.Integer(required=True)
    url = fields.String(required=True)


class RankedBotSchema(Schema):
    rank = fields.Integer(required=True)
    bot_id = fields.String(required=True)
    name = fields.String(allow_none=True)
    kind = fields.String(allow_none=True, metadata={"description": "house, http, poll; null: left"})
    rating = fields.Float(required=True)
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True)
    strikes = fields.Integer(required=True)
    forfeits = fields.Integer(required=True)
    mean_latency_ms = fields.Float(allow_none=True)
    paused = fields.Boolean(required=True)
    history = fields.String(required=True)
    version = fields.String(allow_none=True, metadata={
        "description": "the version the bot reports now (GET / or ladder-seats?version=); house bots: house"})


class RankingSchema(Schema):
    ladder = fields.Nested(LadderSchema, required=True)
    ranking = fields.List(fields.Nested(RankedBotSchema), required=True)


class HistoryEntrySchema(Schema):
    match = fields.String(required=True)
    rating = fields.Float(required=True)
    delta = fields.Float(required=True)
    place = fields.Float(required=True)
    at = fields.Float(required=True)


class BotHistorySchema(Schema):
    ladder_id = fields.String(required=True)
    bot_id = fields.String(required=True)
    rating = fields.Float(allow_none=True)
    history = fields.List(fields.Nested(HistoryEntrySchema), required=True)


class MatchSummarySchema(Schema):
    match_id = fields.String(required=True)
    ladder_id = fields.String(required=True)
    status = fields.String(required=True)
    game = fields.String(required=True)
    duplicate = fields.Boolean(required=True)
    entrants = fields.List(fields.String(), required=True)
    seed = fields.Integer(allow_none=True, metadata={
        "description": "seed of the deals the rated run played (a re-run plays fresh deals); revealed once "
                       "the match is finished"})
    attempts = fields.Integer(required=True)
    created = fields.Float(required=True)
    finished = fields.Float(allow_none=True)
    aborted_because = fields.String(allow_none=True)
    totals = fields.Dict(allow_none=True)
    places = fields.Dict(allow_none=True)
    deltas = fields.Dict(allow_none=True)
    winners = fields.List(fields.String(), allow_none=True)
    forfeited = fields.List(fields.String(), allow_none=True)
    strikes = fields.List(fields.Dict(), allow_none=True)
    calls = fields.Dict(allow_none=True, metadata={"description": "per bot: outcome counts, mean latency"})
    games = fields.List(fields.Dict(), allow_none=True)
    replays = fields.List(fields.String(), required=True)
    url = fields.String(required=True)


class LadderSeatSchema(Schema):
    table = fields.String(required=True)
    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={"description": "seat token for the seat API"})
    match = fields.String(required=True)
    ladder = fields.String(required=True)
    game_no = fields.Integer(required=True)
    deadline_ms = fields.Integer(required=True)
    state_url = fields.String(required=True)
    moves_url = fields.String(required=True)


class LadderSeatsQuerySchema(Schema):
    version = fields.String(validate=validate.Length(min=1, max=MAX_VERSION_CHARS), metadata={
        "description": "the version of the polling bot: its matches are rated under it (docs/arena.md)"})


class LiveMatchSchema(Schema):
    match_id = fields.String(required=True)
    ladder_id = fields.String(required=True)
    match_status = fields.String(required=True, metadata={"description": "queued, running, rated, aborted"})
    status = fields.String(required=True, metadata={
        "description": "playing while the match runs (between its games too); over once it is finished"})
    game_no = fields.Integer(allow_none=True, metadata={"description": "game shown; null before the first"})
    games = fields.Integer(required=True, metadata={"description": "games in this match (duplicate: n)"})
    seating = fields.List(fields.String(), required=True, metadata={"description": "bot id in each seat"})
    seat_names = fields.List(fields.String(), required=True)
    table = fields.String(allow_none=True, metadata={
        "description": "the API table of the game shown, when the match has a polling bot; else null"})
    version = fields.Integer(allow_none=True, metadata={"description": "moves played in the game shown"})
    to_act = fields.List(fields.Integer(), required=True)
    game_over = fields.Boolean(required=True)
    view = fields.Dict(allow_none=True, metadata={
        "description": "spectator view of the game shown (public table, no hands); null before the first"})
    updated = fields.Float(allow_none=True)
    url = fields.String(required=True, metadata={"description": "the match: results and replays once rated"})


class RecentMatchesSchema(Schema):
    ladder_id = fields.String(required=True)
    matches = fields.List(fields.Nested(MatchSummarySchema), required=True)


def _store() -> ArenaStore:
    return ArenaStore(services().redis, current_app.config["KEY_PREFIX"])


def _ladder_or_404(store: ArenaStore, ladder_id: str) -> Any:
    ladder = store.ladder(ladder_id)
    if ladder is None:
        raise ApiProblem(404, "ladder-not-found", f"no ladder {ladder_id!r}")
    return ladder


def _ladder_json(store: ArenaStore, ladder: Any) -> dict[str, Any]:
    return {**ladder.to_json(), "members": len(store.members(ladder.ladder_id)),
            "active_matches": len(store.active_matches(ladder.ladder_id)),
            "url": url_for("arena.get_ladder", ladder_id=ladder.ladder_id)}


def _match_json(doc: dict[str, Any]) -> dict[str, Any]:
    spec = doc["spec"]
    finished = doc["status"] in FINISHED
    result = doc.get("result") or {}
    calls = None
    if result.get("calls"):
        calls = {}
        for bot, stats in result["calls"].items():
            outcomes = Counter(outcome for kind, outcome, _ in stats["log"] if kind == "move")
            calls[bot] = {"moves": stats["moves"], "outcomes": dict(outcomes),
                          "mean_latency_ms": round(stats["latency_ms_sum"] / stats["moves"], 3)
                          if stats["moves"] else None}
    rated = doc["status"] == MatchStatus.RATED
    replays = [url_for("arena.get_replay", match_id=doc["match_id"], game_no=g["game_no"])
               for g in result.get("games", [])] if rated else []
    return {
        "match_id": doc["match_id"], "ladder_id": doc["ladder_id"], "status": doc["status"],
        "game": spec["game"], "duplicate": spec["duplicate"],
        "entrants": [m["bot_id"] for m in spec["entrants"]],
        "seed": result.get("seed", spec["seed"]) if finished else None, "attempts": doc.get("attempts", 0),
        "created": doc.get("created", 0.0), "finished": doc.get("finished"),
        "aborted_because": doc.get("aborted_because"), "totals": result.get("totals"),
        "places": result.get("places"), "deltas": result.get("deltas"), "winners": result.get("winners"),
        "forfeited": result.get("forfeited"), "strikes": result.get("strikes"), "calls": calls,
        "games": result.get("games"), "replays": replays,
        "url": url_for("arena.get_match", match_id=doc["match_id"]),
    }


@blp.get("/ladders")
@blp.response(200, LadderSchema(many=True))
def list_ladders() -> list[dict[str, Any]]:
    """Every ladder: a game, a player count and options."""
    store = _store()
    return [_ladder_json(store, ladder) for ladder in store.ladders()]


@blp.get("/ladders/<ladder_id>")
@blp.response(200, RankingSchema)
def get_ladder(ladder_id: str) -> dict[str, Any]:
    """The ladder ranked by rating, with each bot's games, wins, strikes and mean latency."""
    store = _store()
    ladder = _ladder_or_404(store, ladder_id)
    members = {m.bot_id: m for m in store.members(ladder_id)}
    ranked = store.ranked(ladder_id)
    stats = store.stats(ladder_id, [bot for bot, _ in ranked])
    paused = store.paused_bots([b for b, m in members.items() if m.kind is MemberKind.HTTP])
    versions = store.versions([bot for bot, _ in ranked])
    ranking = []
    for rank, (bot_id, rating) in enumerate(ranked, start=1):
        member = members.get(bot_id)
        ranking.append({
            "rank": rank, "bot_id": bot_id, "name": member.name if member else None,
            "kind": member.kind.value if member else None, "rating": round(rating, 1), **stats[bot_id],
            "paused": bot_id in paused, "version": versions[bot_id],
            "history": url_for("arena.get_bot_history", ladder_id=ladder_id, bot_id=bot_id),
        })
    return {"ladder": _ladder_json(store, ladder), "ranking": ranking}


@blp.get("/ladders/<ladder_id>/bots/<bot_id>/history")
@blp.response(200, BotHistorySchema)
def get_bot_history(ladder_id: str, bot_id: str) -> dict[str, Any]:
    """A bot's rating after each of its rated matches on this ladder, newest first."""
    store = _store()
    _ladder_or_404(store, ladder_id)
    rating = store.ratings(ladder_id).get(bot_id)
    if rating is None:
        raise ApiProblem(404, "bot-not-on-ladder", f"bot {bot_id!r} has never been on ladder {ladder_id!r}")
    return {"ladder_id": ladder_id, "bot_id": bot_id, "rating": rating,
            "history": store.history(ladder_id, bot_id)}


@blp.get("/ladders/<ladder_id>/matches")
@blp.response(200, RecentMatchesSchema)
def list_recent_matches(ladder_id: str) -> dict[str, Any]:
    """The ladder's most recent finished matches, newest first, with links to their replays."""
    store = _store()
    _ladder_or_404(store, ladder_id)
    docs = [store.match(mid) for mid in store.recent_matches(ladder_id, limit=20)]
    return {"ladder_id": ladder_id, "matches": [_match_json(doc) for doc in docs if doc is not None]}


@blp.get("/matches/<match_id>")
@blp.response(200, MatchSummarySchema)
def get_match(match_id: str) -> dict[str, Any]:
    """One match: entrants, status; once finished also places, rating deltas, strikes and replay links."""
    return _match_json(match_or_404(_store(), match_id))


@blp.get("/matches/<match_id>/live")
@blp.response(200, LiveMatchSchema)
def get_live_match(match_id: str) -> dict[str, Any]:
    """The public table of the game being played in a match now (spectators: no hands, no seed).

    Refreshed by the worker a few times a second; poll it. Once the match is finished, `status` is `over`
    and the last table stays for a short while; the replays (every hand) are at the match's `url`.
    """
    store = _store()
    doc = match_or_404(store, match_id)
    spec = doc["spec"]
    live = store.live(match_id) or {}
    seating = live.get("seating") or [m["bot_id"] for m in spec["entrants"]]
    names = store.member_names(doc["ladder_id"])
    return {
        "match_id": match_id, "ladder_id": doc["ladder_id"], "match_status": doc["status"],
        "status": "over" if doc["status"] in FINISHED else "playing",
        "game_no": live.get("game_no"), "games": MatchSpec.from_json(spec).games,
        "seating": seating, "seat_names": [names.get(bot, bot) for bot in seating],
        "table": live.get("table"), "version": live.get("version"), "to_act": live.get("to_act") or [],
        "game_over": bool(live.get("game_over")), "view": live.get("view"), "updated": live.get("updated"),
        "url": url_for("arena.get_match", match_id=match_id),
    }


@blp.get("/matches/<match_id>/games/<int:game_no>/replay")
@blp.response(200, ReplayRecordSchema)
def get_replay(match_id: str, game_no: int) -> dict[str, Any]:
    """Replay record of one game of a rated match (engine format: `python -m engine replay` takes it)."""
    _doc, records = published_games(_store(), match_id, game_no)
    return records[game_no]


def match_or_404(store: ArenaStore, match_id: str) -> dict[str, Any]:
    """The match document, or the 404 problem every match URL (API and web page) answers."""
    doc = store.match(match_id)
    if doc is None:
        raise ApiProblem(404, "match-not-found", f"no match {match_id!r}")
    return doc


def published_games(store: Any, match_id: str, game_no: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A rated match's document and replay records, with `game_no` checked; problems otherwise.

    Replays hold every hand, so they are published only once the match has been rated.
    """
    doc = match_or_404(store, match_id)
    if doc["status"] != MatchStatus.RATED:
        raise ApiProblem(409, "match-not-finished", f"match {match_id} is {doc['status']}; replays are "
                         "published when it has been rated")
    records = store.match_games(match_id) or []
    if not 0 <= game_no < len(records):
        raise ApiProblem(404, "game-not-found", f"match {match_id} has games 0..{len(records) - 1}")
    return doc, records


@blp.get("/bots/<bot_id>/ladder-seats")
@blp.arguments(LadderSeatsQuerySchema(), location="query")
@blp.response(200, LadderSeatSchema(many=True))
@blp.doc(security=[{"seatToken": []}])
def get_ladder_seats(query: dict[str, Any], bot_id: str) -> list[dict[str, Any]]:
    """For a polling bot (registered without URL): its seats at running ladder tables, with seat tokens.

    Owner token required. Play each seat through the seat API (long-poll the state, POST moves) before the
    ladder's per-decision deadline; a missed deadline is a strike and the arena plays the fallback move.
    With `version`, the bot declares its version: its matches are rated under it from now on.
    """
    services().bots.check_owner(bot_id, bearer_token(request.headers.get("Authorization")))
    if "version" in query:
        _store().record_version(bot_id, query["version"])
    seats = poll_seats(services().tables, bot_id)
    for entry in seats:
        entry["state_url"] = url_for("seats.get_seat_state", table_id=entry["table"], seat=entry["seat"])
        entry["moves_url"] = url_for("seats.post_move", table_id=entry["table"], seat=entry["seat"])
    return seats
