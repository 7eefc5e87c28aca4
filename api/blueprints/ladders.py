"""Arena read API: ladders ranked by rating, a bot's rating history, recent matches and their replays.

It only translates HTTP <-> core.arena.store. Seeds and replay records of a match are shown only once the
match is finished (rated or aborted): before that they would reveal the deals.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from flask import current_app, request, url_for
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from api.auth import bearer_token
from api.problems import ApiProblem
from api.schemas import ReplayRecordSchema
from api.services import services
from core.arena.elo import EloConfig
from core.arena.model import FINAL_STATUSES, MatchSpec, MatchStatus, MemberKind
from core.arena.presence import seats_call
from core.arena.seats import poll_seats, seats_version, wait_for_seats
from core.arena.store import MAX_VERSION_CHARS, ArenaStore

blp = Blueprint("arena", __name__, url_prefix="/api", description="Arena: ladders, ratings, matches")

FINISHED = FINAL_STATUSES
PUBLISHED = (MatchStatus.RATED, MatchStatus.VOID)  # played to the end: replays published
PROVISIONAL_MATCHES = EloConfig().provisional_games  # fewer rated matches: a provisional rating ("?")
UNCERTAINTY_SCALE = 350.0  # a rating's rough uncertainty: ± UNCERTAINTY_SCALE / sqrt(matches + 1)


class LadderSchema(Schema):
    ladder_id = fields.String(required=True)
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    options = fields.Dict(required=True)
    duplicate = fields.Boolean(required=True)
    deadline_ms = fields.Integer(required=True)
    strike_limit = fields.Integer(required=True)
    house_bots = fields.List(fields.String(), required=True)
    presence_s = fields.Float(required=True, metadata={
        "description": "a polling bot is seated only if it called its ladder-seats endpoint within this many "
                       "seconds or holds a long-poll there"})
    members = fields.Integer(required=True)
    active_matches = fields.Integer(required=True)
    url = fields.String(required=True)


class RankedBotSchema(Schema):
    rank = fields.Integer(required=True)
    bot_id = fields.String(required=True)
    name = fields.String(allow_none=True)
    kind = fields.String(allow_none=True, metadata={"description": "house, http, poll; null: left"})
    rating = fields.Float(required=True)
    matches = fields.Integer(required=True, metadata={
        "description": "rated matches played (a duplicate match is several games; a match every bot "
                       "forfeited is not rated and not counted)"})
    wins = fields.Integer(required=True, metadata={
        "description": "rated matches won: placed first (ties included) without forfeiting"})
    win_share = fields.Float(allow_none=True, metadata={"description": "wins / matches; null before a match"})
    strikes = fields.Integer(required=True, metadata={"description": "strikes in every finished match"})
    forfeits = fields.Integer(required=True, metadata={"description": "finished matches it forfeited"})
    mean_latency_ms = fields.Float(allow_none=True)
    paused = fields.Boolean(required=True)
    history = fields.String(required=True)
    version = fields.String(allow_none=True, metadata={
        "description": "the version the bot reports now (GET / or ladder-seats?version=); house bots: house"})
    provisional = fields.Boolean(required=True, metadata={
        "description": f"fewer than {PROVISIONAL_MATCHES} rated matches: the rating is still settling"})
    uncertainty = fields.Float(required=True, metadata={
        "description": f"rough ± of the rating: {UNCERTAINTY_SCALE:g} / sqrt(matches + 1)"})


class NewBotSchema(RankedBotSchema):
    class Meta:
        exclude = ("rank",)


class RankingSchema(Schema):
    ladder = fields.Nested(LadderSchema, required=True)
    ranking = fields.List(fields.Nested(RankedBotSchema), required=True, metadata={
        "description": "bots with at least one rated match, best rating first; rank counts only these"})
    new = fields.List(fields.Nested(NewBotSchema), required=True, metadata={
        "description": "members with no rated match yet: not ranked (no rank), at the initial rating"})


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
    status = fields.String(required=True, metadata={
        "description": "queued, running, rated, void (every bot forfeited: recorded, no winner, no rating "
                       "change) or aborted"})
    game = fields.String(required=True)
    duplicate = fields.Boolean(required=True)
    entrants = fields.List(fields.String(), required=True)
    seed = fields.Integer(allow_none=True, metadata={
        "description": "the rated run's match seed (a re-run plays fresh deals); game g is dealt from the "
                       "seed derived from it (docs/deals.md), shown in that game's replay; revealed once the "
                       "match is finished"})
    attempts = fields.Integer(required=True)
    created = fields.Float(required=True)
    finished = fields.Float(allow_none=True)
    aborted_because = fields.String(allow_none=True)
    totals = fields.Dict(allow_none=True, metadata={
        "description": "per bot: the sum of its game totals; in a duplicate match each less the reference "
                       "policy's total in the same seat of the same deal (`games[g].baseline`)"})
    places = fields.Dict(allow_none=True)
    deltas = fields.Dict(allow_none=True)
    winners = fields.List(fields.String(), allow_none=True)
    forfeited = fields.List(fields.String(), allow_none=True)
    strikes = fields.List(fields.Dict(), allow_none=True)
    calls = fields.Dict(allow_none=True, metadata={"description": "per bot: outcome counts, mean latency"})
    games = fields.List(fields.Dict(), allow_none=True, metadata={
        "description": "per game: game_no, table, seating (bot per seat), totals and winners of the table, "
                       "moves; in a duplicate match also baseline (the reference's total per seat)"})
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


class StrikeSchema(Schema):
    game_no = fields.Integer(required=True, metadata={"description": "game of the match (0-based)"})
    version = fields.Integer(required=True, metadata={"description": "moves played before the decision"})
    reason = fields.String(required=True, metadata={
        "description": "timeout, connect_error, http_status, too_large, bad_json, bad_shape, illegal_move, "
                       "..."})
    detail = fields.String(required=True)


class BotMatchSchema(Schema):
    match = fields.String(required=True)
    ladder = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True, metadata={"description": "rated, or void (every bot forfeited)"})
    at = fields.Float(required=True, metadata={"description": "when the match finished (unix time)"})
    players = fields.Integer(required=True)
    place = fields.Float(required=True, metadata={
        "description": "1 = first; forfeiters share the last place"})
    won = fields.Boolean(required=True)
    forfeited = fields.Boolean(required=True)
    delta = fields.Float(required=True, metadata={"description": "rating change (0 for a void match)"})
    rating = fields.Float(required=True, metadata={"description": "rating after the match"})
    version = fields.String(metadata={"description": "the bot's version in this match (its rating line)"})
    strikes = fields.List(fields.Nested(StrikeSchema), required=True)
    url = fields.String(required=True, metadata={
        "description": "the match (kept for the ladder's recent matches; this record outlives it)"})


class BotMatchesQuerySchema(Schema):
    ladder = fields.String(metadata={"description": "the ladder (needed only if the bot is on several)"})
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.Integer(validate=validate.Range(min=0), metadata={
        "description": "`next_cursor` of the previous page; omit for the newest matches"})


class BotMatchesSchema(Schema):
    bot_id = fields.String(required=True)
    ladder_id = fields.String(required=True)
    matches = fields.List(fields.Nested(BotMatchSchema), required=True, metadata={
        "description": "newest first"})
    next_cursor = fields.Integer(allow_none=True, metadata={"description": "null on the last page"})
    next = fields.String(allow_none=True, metadata={"description": "URL of the next page; null on the last"})


class RecentMatchesQuerySchema(Schema):
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    after = fields.String(metadata={"description": "a match id of the previous page (its last): the next "
                                                   "page starts after it"})


class RecentMatchesSchema(Schema):
    ladder_id = fields.String(required=True)
    matches = fields.List(fields.Nested(MatchSummarySchema), required=True, metadata={
        "description": "newest first"})
    next = fields.String(allow_none=True, metadata={"description": "URL of the next page; null on the last"})


def public_stats(stats: dict[str, Any]) -> dict[str, Any]:
    """A bot's ladder stats under the names the API, the page and the CLI show (a match, not a game).

    >>> public_stats({"matches": 4, "wins": 1, "strikes": 0, "forfeits": 0})["win_share"]
    0.25
    """
    matches, wins = int(stats.get("matches", 0)), int(stats.get("wins", 0))
    return {"matches": matches, "wins": wins, "win_share": wins / matches if matches else None,
            "strikes": int(stats.get("strikes", 0)), "forfeits": int(stats.get("forfeits", 0)),
            "mean_latency_ms": stats.get("mean_latency_ms")}


def uncertainty(matches: int) -> float:
    """A rough ± of a rating after `matches` rated matches.

    >>> uncertainty(0), uncertainty(3)
    (350.0, 175.0)
    """
    return round(UNCERTAINTY_SCALE / math.sqrt(max(0, matches) + 1), 1)


def standing_rows(ranked: list[tuple[str, float]], members: dict[str, Any], stats: dict[str, dict[str, Any]],
                  paused: set[str], versions: dict[str, str | None] | None = None,
                  provisional_matches: int = PROVISIONAL_MATCHES) -> tuple[list[dict[str, Any]],
                                                                           list[dict[str, Any]]]:
    """A ladder's table, pure: (ranked rows, new rows).

    Bots with at least one rated match are ranked in the given (rating descending) order, rank 1, 2, ...
    counting only them; bots with none are new: listed apart, without a rank. A rating with fewer than
    `provisional_matches` rated matches is provisional. Rows carry the API's fields (``public_stats`` names),
    rating rounded to 0.1.
    """
    rows: list[dict[str, Any]] = []
    new: list[dict[str, Any]] = []
    for bot_id, rating in ranked:
        member = members.get(bot_id)
        s = public_stats(stats.get(bot_id, {}))
        row = {
            "bot_id": bot_id, "name": member.name if member else None,
            "kind": member.kind.value if member else None, "rating": round(rating, 1), **s,
            "provisional": s["matches"] < provisional_matches, "uncertainty": uncertainty(s["matches"]),
            "paused": bot_id in paused, "version": (versions or {}).get(bot_id),
        }
        if s["matches"] > 0:
            rows.append({"rank": len(rows) + 1, **row})
        else:
            new.append(row)
    return rows, new


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
    replays = [url_for("arena.get_replay", match_id=doc["match_id"], game_no=g["game_no"])
               for g in result.get("games", [])] if doc["status"] in PUBLISHED else []
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
    """The ladder ranked by rating, with each bot's matches, wins, strikes and mean latency; bots with no
    rated match yet are listed apart under ``new``, unranked."""
    store = _store()
    ladder = _ladder_or_404(store, ladder_id)
    members = {m.bot_id: m for m in store.members(ladder_id)}
    ranked = store.ranked(ladder_id)
    stats = store.stats(ladder_id, [bot for bot, _ in ranked])
    paused = store.paused_bots([b for b, m in members.items() if m.kind is MemberKind.HTTP])
    versions = store.versions([bot for bot, _ in ranked])
    ranking, new = standing_rows(ranked, members, stats, paused, versions)
    for row in (*ranking, *new):
        row["history"] = url_for("arena.get_bot_history", ladder_id=ladder_id, bot_id=row["bot_id"])
    return {"ladder": _ladder_json(store, ladder), "ranking": ranking, "new": new}


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
@blp.arguments(RecentMatchesQuerySchema(), location="query")
@blp.response(200, RecentMatchesSchema)
def list_recent_matches(args: dict[str, Any], ladder_id: str) -> dict[str, Any]:
    """The ladder's finished matches, newest first, with links to their replays; paged (follow `next`).

    The ladder keeps its 300 most recent match documents; a bot's own record (`/api/bots/{id}/matches`)
    goes further back.
    """
    store = _store()
    _ladder_or_404(store, ladder_id)
    limit = args["limit"]
    ids = store.recent_matches(ladder_id, limit + 1, args.get("after"))
    if ids is None:
        raise ApiProblem(404, "match-not-found", f"match {args['after']!r} is not (or no longer) among the "
                         f"recent matches of ladder {ladder_id!r}")
    docs = [store.match(mid) for mid in ids[:limit]]
    nxt = (url_for("arena.list_recent_matches", ladder_id=ladder_id, limit=limit, after=ids[limit - 1])
           if len(ids) > limit else None)
    return {"ladder_id": ladder_id, "matches": [_match_json(doc) for doc in docs if doc is not None],
            "next": nxt}


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
    if doc["status"] not in PUBLISHED:
        raise ApiProblem(409, "match-not-finished", f"match {match_id} is {doc['status']}; replays are "
                         "published when it has been played to the end (rated or void)")
    records = store.match_games(match_id) or []
    if not 0 <= game_no < len(records):
        raise ApiProblem(404, "game-not-found", f"match {match_id} has games 0..{len(records) - 1}")
    return doc, records


class LadderSeatsQuerySchema(Schema):
    after = fields.Integer(load_default=None, metadata={
        "description": "seats version from the X-Seats-Version header of your last answer"})
    wait = fields.Float(load_default=0.0, validate=validate.Range(min=0), metadata={
        "description": "with `after`: hold the answer until the seats change, at most this many s (≤ 30)"})
    version = fields.String(validate=validate.Length(min=1, max=MAX_VERSION_CHARS), metadata={
        "description": "the version of the polling bot: its matches are rated under it (docs/arena.md)"})


@blp.get("/bots/<bot_id>/ladder-seats")
@blp.arguments(LadderSeatsQuerySchema(), location="query")
@blp.response(200, LadderSeatSchema(many=True), headers={"X-Seats-Version": {
    "description": "version of this list; pass it as `after` to long-poll for a change",
    "schema": {"type": "integer"}}})
@blp.doc(security=[{"seatToken": []}])
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
        _store().record_version(bot_id, query["version"])
    tables = services().tables
    after = query["after"]
    wait = min(query["wait"], current_app.config["LONG_POLL_MAX_SECONDS"]) if after is not None else 0.0
    with seats_call(tables.redis, tables.prefix, bot_id, wait):
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
def list_bot_matches(args: dict[str, Any], bot_id: str) -> dict[str, Any]:
    """A bot's own record: its finished matches on a ladder, newest first, with its strikes and their reasons.

    Paged by cursor: follow `next` (or pass `next_cursor` as `cursor`) until it is null. Pages never shift
    when matches finish meanwhile. The record keeps a bot's last 500 matches, longer than match documents.
    """
    store = _store()
    ladder_id = bot_ladder_or_problem(store, bot_id, args.get("ladder"))
    return bot_matches_page(store, ladder_id, bot_id, args["limit"], args.get("cursor"))


def bot_ladder_or_problem(store: ArenaStore, bot_id: str, ladder_id: str | None) -> str:
    """The ladder whose record of `bot_id` is asked for: the one given, or the only one the bot is on."""
    on = [lad.ladder_id for lad in store.ladders() if bot_id in store.ratings(lad.ladder_id)]
    if ladder_id is not None:
        _ladder_or_404(store, ladder_id)
        if ladder_id not in on:
            raise ApiProblem(404, "bot-not-on-ladder",
                             f"bot {bot_id!r} has never been on ladder {ladder_id!r}")
        return ladder_id
    if not on:
        raise ApiProblem(404, "bot-not-on-ladder", f"bot {bot_id!r} has never been on a ladder")
    if len(on) > 1:
        raise ApiProblem(400, "ladder-required", f"bot {bot_id!r} is on several ladders ({', '.join(on)}): "
                         "say which with ?ladder=")
    return on[0]


def bot_matches_page(store: ArenaStore, ladder_id: str, bot_id: str, limit: int,
                     cursor: int | None) -> dict[str, Any]:
    entries, next_cursor = store.bot_record(ladder_id, bot_id, limit, cursor)
    matches = [{**entry, "url": url_for("arena.get_match", match_id=entry["match"])} for entry in entries]
    nxt = None
    if next_cursor is not None:
        nxt = url_for("arena.list_bot_matches", bot_id=bot_id, ladder=ladder_id, limit=limit,
                      cursor=next_cursor)
    return {"bot_id": bot_id, "ladder_id": ladder_id, "matches": matches, "next_cursor": next_cursor,
            "next": nxt}
