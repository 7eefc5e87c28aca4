"""Seats: join an open seat, read (and long-poll) its state with the seat token, post moves."""

from __future__ import annotations

import time
from typing import Any

from flask import Response, current_app, request, url_for

from api.arguments import Blueprint
from api.auth import bearer_token
from api.fastargs import body_doc, load_json, load_query, query_doc
from api.jsonio import json_response, stored_json_response
from api.metrics import long_poll_held
from api.problems import refusals
from api.ratelimit import check_seat_posts, long_poll_slot, seat_post_limit
from api.schemas.seats import (
    JoinSchema,
    MoveRequestSchema,
    MoveResultSchema,
    SeatStateQuerySchema,
    SeatStateSchema,
)
from api.services import kick_house_bots, services
from core.tokens import require_token

HOUSE_STALL_S = 5.0  # house seats to act and no move for this long: their drive job is presumed lost

blp = Blueprint("seats", __name__, url_prefix="/api/tables/<table_id>/seats",
                description="Seats: join, state (long-poll), moves")

BEARER = [{"seatToken": []}]


@blp.post("/<int:seat>/join")
@blp.response(201, JoinSchema())
def join_seat(table_id: str, seat: int) -> dict[str, Any]:
    """Claim an open seat. The token is shown only in this answer; keep it."""
    token = services().tables.join(table_id, seat)
    return {"table_id": table_id, "seat": seat, "token": token,
            "state_url": url_for("seats.get_seat_state", table_id=table_id, seat=seat),
            "moves_url": url_for("seats.post_move", table_id=table_id, seat=seat)}


SEAT_QUERY = SeatStateQuerySchema()
MOVE_BODY = MoveRequestSchema()


@blp.get("/<int:seat>")
@blp.response(200, SeatStateSchema())
@blp.doc(security=BEARER, **query_doc(SeatStateQuerySchema))
def get_seat_state(table_id: str, seat: int) -> Response:
    """The seat's view (own hand + public table), version and who must act.

    Long-poll: with `after=V&wait=S` the answer comes as soon as the version exceeds V, or after S seconds
    (at most 30) with the unchanged state.
    """
    query = load_query(SEAT_QUERY)
    store = services().tables
    token = bearer_token(request.headers.get("Authorization"))
    after = query.get("after")
    if after is None:  # a plain read: the answer the last commit stored, if the token holds the seat
        answer = store.seat_answer(table_id, seat, token)
        if answer is not None:
            return stored_json_response(answer)
    snapshot = store.seat_snapshot(table_id, seat, token)  # also says what is wrong with the request
    wait = min(query["wait"], current_app.config["LONG_POLL_MAX_SECONDS"])
    if after is not None and snapshot.version <= after and wait > 0 and snapshot.status == "playing":
        with long_poll_slot(), long_poll_held("seat"):
            store.wait_for_version(table_id, after, wait)
        snapshot = store.seat_snapshot(table_id, seat, token)
        if snapshot.version <= after and snapshot.status == "playing":
            revive_stalled_house_bots(table_id)
    return stored_json_response(snapshot.answer_json)


def revive_stalled_house_bots(table_id: str) -> None:
    """Re-kick house bots that should have moved long ago: their drive job was lost (enqueued just before a
    Redis restart, or running in a worker that died), and nothing else would ever move them. Driving is
    idempotent, so a duplicate job only loses races. Called only after a long-poll waited in vain."""
    record = services().tables.load_table(table_id)
    if time.time() - record.updated >= HOUSE_STALL_S:
        kick_house_bots(record.seats, record.to_act, table_id, record.labels)


@blp.post("/<int:seat>/moves")
@blp.response(200, MoveResultSchema())
@refusals(blp, malformed_move="not a card code, or the wrong shape for the decision the seat faces now: one "
                              "card to play or lay, a list of the decision's `count` cards in a pass phase "
                              "(the answer lists the legal cards)",
          stale_version="`expected_version` is not the table's version now (an earlier or a later one)",
          not_your_turn="the seat is not among those to act", game_over="the game is over",
          illegal_move="a card the rules do not allow now (the answer lists the legal ones)")
@blp.doc(security=BEARER, **body_doc(MoveRequestSchema))
def post_move(table_id: str, seat: int) -> Response:
    """Play a card ("QS"), lay a sore card, or pass cards (["2C","3D","4H"]) at `expected_version`."""
    # No token at all is answered first (401), before the body is read; a wrong token is found by the store.
    token = require_token(bearer_token(request.headers.get("Authorization")), "seat", "seat")
    try:
        body = load_json(MOVE_BODY)
    except Exception:
        check_seat_posts(table_id, seat, token)  # a malformed post counts too (429 over the limit)
        raise
    store = services().tables
    # Only open seats ever get a token, so a valid token also proves this is a polling seat. The post is
    # counted against the seat's limit inside the store's first Lua call (api/ratelimit.py); over it, the
    # store raises TooManyMovePosts: 429.
    result = store.apply_move(table_id, seat, body["move"], body["expected_version"], authenticate=True,
                              token=token, post_limit=seat_post_limit())
    kick_house_bots(result.seats, result.to_act, table_id, result.labels)
    return json_response({"version": result.version, "status": result.status.value, "to_act": result.to_act})
