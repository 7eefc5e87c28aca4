"""Tournaments: round-robin and Swiss events whose tables share each round's deals (core.arena.tournaments).

``POST /api/tournaments`` creates one (an account's invited event starts at once; the operator's open event
takes entries until its start time), ``GET /api/tournaments/{id}`` shows its rounds and standings.
Design: docs/arena.md#tournaments
"""

from __future__ import annotations

from typing import Any

from flask import current_app, request, url_for

from api.arguments import Blueprint
from api.auth import bearer_token
from api.problems import refusals
from api.schemas.tournaments import (
    TournamentCreateSchema,
    TournamentEntrySchema,
    TournamentSchema,
    TournamentStandingsSchema,
)
from api.services import services
from core.arena.accounts import account_owner
from core.arena.model import MatchStatus
from core.arena.tournament_store import JOB_TIMEOUT_S, OPERATOR, TournamentRequest, TournamentStore
from core.arena.tournaments import Row
from core.errors import BadTournament
from core.queues import enqueue_tournament_table
from core.tokens import operator_token_matches, require_token

blp = Blueprint("tournaments", __name__, url_prefix="/api/tournaments",
                description="Tournaments: round-robin and Swiss events on shared deals")

CREATOR = [{"apiKey": []}, {"operatorToken": []}]
OWNER = [{"ownerToken": []}, {"apiKey": []}]


def tournament_store() -> TournamentStore:
    return TournamentStore(services().arena, services().tournament_quota)


def standing_json(rows: list[Row], names: dict[str, str]) -> list[dict[str, Any]]:
    return [{"place": i + 1, "bot_id": r.bot_id, "name": names.get(r.bot_id, r.bot_id), "points": r.points,
             "buchholz": r.buchholz, "score": r.score, "tables": r.tables, "firsts": r.firsts, "byes": r.byes,
             "dropped": r.dropped} for i, r in enumerate(rows)]


def tournament_json(doc: dict[str, Any], store: TournamentStore) -> dict[str, Any]:
    """The event as the API answers it: a table's places only once its round is over."""
    tid = doc["tournament_id"]
    names = {m["bot_id"]: m.get("name") or m["bot_id"] for m in doc["entrants"]}
    tables = store.tables(doc)
    schedule = []
    for rnd in doc["round_list"]:
        rows = []
        for mid, group in zip(rnd["tables"], rnd["groups"], strict=True):
            table = tables.get(mid)
            status = table["status"] if table else "missing"
            published = status == MatchStatus.PLAYED
            places = table["result"]["places"] if published and table else None
            rows.append({"match_id": mid, "bots": group, "names": [names.get(b, b) for b in group],
                         "status": status, "places": places,
                         "url": url_for("ladders.get_match", match_id=mid),
                         "web_url": url_for("web.match_page", match_id=mid)})
        schedule.append({"round": rnd["round"], "status": rnd["status"], "byes": rnd["byes"], "tables": rows})
    return {
        "tournament_id": tid, "name": doc["name"], "game": doc["game"], "players": doc["players"],
        "options": doc["options"], "format": doc["format"], "rounds": doc["rounds"],
        "meetings": doc["meetings"],
        "max_tables": doc["max_tables"], "status": doc["status"], "entry": doc["entry"],
        "starts_at": doc["starts_at"], "field_limit": doc["field_limit"], "created": doc["created"],
        "started": doc["started"], "finished": doc["finished"],
        "entrants": [{"bot_id": m["bot_id"], "name": names[m["bot_id"]],
                      "dropped": m["bot_id"] in doc["dropped"]} for m in doc["entrants"]],
        "schedule": schedule, "standings": standing_json(store.standings(doc, tables), names),
        "url": url_for("tournaments.get_tournament", tournament_id=tid),
        "standings_url": url_for("tournaments.get_standings", tournament_id=tid),
        "web_url": url_for("web.tournament_page", tournament_id=tid),
    }


def enqueue(specs: list[Any]) -> None:
    for spec in specs:
        enqueue_tournament_table(services().tournament_queue, spec.match_id, current_app.config["KEY_PREFIX"],
                                 JOB_TIMEOUT_S)


@blp.post("")
@blp.arguments(TournamentCreateSchema())
@blp.response(201, TournamentSchema())
@refusals(blp, bad_tournament="the format, field or limits do not fit: swiss names `rounds`, a round robin "
                              "does not; at least a table's worth of bots; no more tables than `max_tables`; "
                              "open entry (the operator's only) names `starts_at` (`errors` says which)",
          tournament_closed="a bot entered twice",
          challenge_not_accepted="another owner's bot that does not accept challenges, or a bot that polls")
@blp.doc(security=CREATOR)
def create_tournament(body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Tournament: a round-robin or Swiss event, unrated, played by the arena's tournament workers below the
    ladder's priority. Every table of a round plays the same deals; a table's seed, result and replays are
    published once every table of its round is over.

    An account's API key (its own bots, other owners' bots that accept challenges, house bots; quotas per
    account: 429 `tournament-quota-exceeded`), or the operator's token, which may also open the event to
    entries until `starts_at` (`entry: open`, up to `field_limit` bots).
    """
    token = require_token(bearer_token(request.headers.get("Authorization")), "API key", "account")
    expected = current_app.config.get("ADMIN_TOKEN")
    is_operator = bool(expected) and operator_token_matches(token, expected)
    registry = services().bots
    if is_operator:
        owner = OPERATOR

        def owns(bot_id: str) -> dict[str, str] | None:
            registry.get(bot_id)  # BotNotFound for no such bot
            return None
    else:
        owner = account_owner(services().accounts.account_of(token))

        def owns(bot_id: str) -> dict[str, str] | None:
            return registry.managed(bot_id, token)
    open_entry = body["entry"] == "open"
    if open_entry and not is_operator:
        raise BadTournament("only the operator opens an event to entries; an account names its bots",
                            errors={"entry": ["invited"]})
    store = tournament_store()
    doc = store.create(TournamentRequest(
        game=body["game"], format=body["format"], bots=body["bots"], name=body["name"],
        players=body["players"], rounds=body.get("rounds"), meetings=body.get("meetings"),
        options=body["options"], max_tables=body["max_tables"], open_entry=open_entry,
        starts_at=body.get("starts_at"), field_limit=body["field_limit"]), owner, owns)
    if not open_entry:
        enqueue(store.start(doc["tournament_id"]))
        doc = store.get(doc["tournament_id"])
    answer = tournament_json(doc, store)
    return answer, 201, {"Location": answer["url"]}


@blp.get("/<tournament_id>")
@blp.response(200, TournamentSchema())
def get_tournament(tournament_id: str) -> dict[str, Any]:
    """One event: its field, every round's tables (linked to their matches and replays) and the standings."""
    store = tournament_store()
    return tournament_json(store.get(tournament_id), store)


@blp.get("/<tournament_id>/standings")
@blp.response(200, TournamentStandingsSchema())
def get_standings(tournament_id: str) -> dict[str, Any]:
    """The standings from the rounds that are over. Order: points, Buchholz, duplicate score, tables won."""
    store = tournament_store()
    doc = store.get(tournament_id)
    names = {m["bot_id"]: m.get("name") or m["bot_id"] for m in doc["entrants"]}
    return {"tournament_id": tournament_id, "status": doc["status"],
            "rounds_done": sum(r["status"] == "done" for r in doc["round_list"]),
            "standings": standing_json(store.standings(doc), names)}


@blp.post("/<tournament_id>/entries")
@blp.arguments(TournamentEntrySchema())
@blp.response(201, TournamentSchema())
@refusals(blp, tournament_closed="invited only, started, full, or the bot is already entered",
          challenge_not_accepted="a bot that polls, or one disabled or suspended")
@blp.doc(security=OWNER)
def enter_tournament(body: dict[str, Any], tournament_id: str) -> dict[str, Any]:
    """Enter your bot in an open event before its start time (one place per bot, up to the field limit)."""
    token = bearer_token(request.headers.get("Authorization"))
    store = tournament_store()
    doc = store.get(tournament_id)
    raw = services().bots.check_owner(body["bot"], token)
    member = store.member(body["bot"], doc["game"], lambda _bot: raw)
    return tournament_json(store.enter(tournament_id, member), store)
