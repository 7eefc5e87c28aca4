"""Tables: create (seats open, house bots or registered bots), list, spectate, the replay record once over."""

from __future__ import annotations

from typing import Any

import orjson
from flask import Response, current_app, request, url_for

from api.arguments import Blueprint
from api.auth import bearer_token
from api.fastargs import load_query, query_doc
from api.jsonio import fragment, stored_json_response
from api.metrics import long_poll_held
from api.problems import ApiProblem, refusals
from api.ratelimit import check_guest_tables, long_poll_slot
from api.schemas.common import LongPollQuerySchema, ReplayRecordSchema
from api.schemas.tables import TableCreateSchema, TableListQuerySchema, TableSchema, TableSummarySchema
from api.services import kick_house_bots, services
from core.arena.guests import check_guests, guest_bot_id
from core.tables.cache import public_answers
from core.tables.store import SeatKind, SeatSpec, TableRecord, TableStatus
from engine.bots.names import describe_house_bot_names, is_house_bot_name

blp = Blueprint("tables", __name__, url_prefix="/api/tables", description="Tables: create and spectate")

OPEN_SEAT = "open"


def parse_seats(names: list[str]) -> list[SeatSpec]:
    seats = []
    for index, name in enumerate(names):
        if name == OPEN_SEAT:
            seats.append(SeatSpec(SeatKind.OPEN))
        elif is_house_bot_name(name):
            seats.append(SeatSpec(SeatKind.HOUSE, name))
        elif (bot_id := guest_bot_id(name)) is not None:
            seats.append(SeatSpec(SeatKind.BOT, bot_id))
        else:
            raise ApiProblem(422, "bad-seats",
                             f"seat {index}: {name!r} is neither 'open', 'bot:<bot id>' nor a house bot name "
                             f"({describe_house_bot_names()})",
                             errors={"seats": {str(index): ["unknown seat kind"]}})
    return seats


def admit_guests(game: str, names: list[str]) -> None:
    """Check the registered bots named in `names` may sit at a person's table, then count the table against
    the limits of the client address and, with an API key, of its account."""
    token = bearer_token(request.headers.get("Authorization"))
    registry = services().bots
    # An owner token is no account's: owns() below decides what it manages.
    account = registry.accounts.account_or_none(token) if token else None

    def owns(bot_id: str) -> bool:
        return bool(token) and registry.managed(bot_id, token) is not None

    check_guests(game, names, registry.raw_record, owns)
    check_guest_tables(account)


def public_table(record: TableRecord, view: Any) -> dict[str, Any]:
    over = record.status == TableStatus.OVER
    return {
        "table_id": record.table_id, "game": record.game, "players": record.players,
        "options": record.options,
        "seats": [{"seat": i, "kind": s.kind.value, "name": s.name, "joined": record.joined[i]}
                  for i, s in enumerate(record.seats)],
        "status": record.status.value, "version": record.version, "to_act": record.to_act,
        "seed_commitment": record.commitment,
        # The seed decides every deal: never before the end (hidden information).
        "seed": record.seed if over else None, "seed_nonce": record.nonce if over else None,
        "view": view, "created": record.created, "updated": record.updated,
    }


@blp.post("")
@blp.arguments(TableCreateSchema())
@blp.response(201, TableSchema())
@refusals(blp, bad_seats="`players` differs from the number of seats, or is outside the game's range",
          invalid_options="an option the game does not have, or a value it does not take")
def create_table(body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Open a table. Seats are 'open' (join them for a seat token), house bot names, or 'bot:<bot id>'.

    A registered bot takes a seat if it calls over HTTP and accepts challenges, or if the request's bearer
    token (its owner token, or its account's API key) manages it; the table then keeps an open seat for a
    person. Such tables are unrated and limited per client address and per account (`LIMIT_BOT_TABLES`).
    """
    seats = parse_seats(body["seats"])
    players = body.get("players", len(seats))
    if any(seat.kind == SeatKind.BOT for seat in seats):
        admit_guests(body["game"], body["seats"])
    record = services().tables.create_table(body["game"], players, body["options"], seats,
                                            move_timeout=current_app.config["SEAT_MOVE_TIMEOUT"])
    kick_house_bots(record.seats, record.to_act, record.table_id, record.labels)
    view = fragment(services().tables.spectator_view_json(record.table_id))
    location = url_for("tables.get_table", table_id=record.table_id)
    return public_table(record, view), 201, {"Location": location}


@blp.get("")
@blp.arguments(TableListQuerySchema(), location="query")
@blp.response(200, TableSummarySchema(many=True))
def list_tables(query: dict[str, Any]) -> list[dict[str, Any]]:
    """The most recent tables."""
    return services().tables.table_summaries(query["limit"])


TABLE_QUERY = LongPollQuerySchema()
TABLE_SCHEMA = TableSchema()


@blp.get("/<table_id>")
@blp.response(200, TableSchema())
@blp.doc(**query_doc(LongPollQuerySchema))
def get_table(table_id: str) -> Response:
    """The public table: seats, status, who must act, the seed commitment (the seed once over), no hands.

    Long-poll like a seat's state: `after=V&wait=S` answers once the version exceeds V (or after S s).
    """
    query = load_query(TABLE_QUERY)
    store = services().tables
    key = f"{store.prefix}{table_id}"

    def render() -> tuple[int, bytes]:
        record = store.load_table(table_id)
        view = fragment(store.spectator_view_json(table_id))
        return record.version, orjson.dumps(TABLE_SCHEMA.dump(public_table(record, view)))

    if query.get("after") is None:  # a plain read: the table as it is now
        version, answer = render()
        public_answers.put(key, version, answer)
        return stored_json_response(answer)
    if query["wait"] > 0:
        with long_poll_slot(), long_poll_held("table"):
            version = store.wait_for_version(table_id, query["after"],
                                             min(query["wait"], current_app.config["LONG_POLL_MAX_SECONDS"]))
    else:
        version = store.current_version(table_id)
    # Every spectator a move woke in this process shares one rendering of the table at that version.
    return stored_json_response(public_answers.get(key, version, render))


@blp.get("/<table_id>/replay")
@blp.response(200, ReplayRecordSchema(), description="Accepted by `python -m engine replay`.")
@blp.alt_response(409, description="The game is not over yet.")
def get_replay(table_id: str) -> dict[str, Any]:
    """Replay record of a finished table: every deal, every move, the seed."""
    return services().tables.replay_record(table_id)
