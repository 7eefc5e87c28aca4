"""Play a seat through the move API: long-poll the seat's state, decide, post, until the game is over. A 409
means "read again"; a move the rules refuse is a bug in the bot, raised as ``ApiError`` unless
``on_refused="fallback"`` plays the first legal move.

Design: docs/sdk.md#2-as-a-polling-client-you-call-the-move-api
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Literal

from trickarena.api import ArenaClient
from trickarena.bot_interface import BotInterface
from trickarena.http import ApiError
from trickarena.types import Move, SeatState

LONG_POLL_S = 25.0
log = logging.getLogger("trickarena.poll")


def fallback_move(view: dict) -> Move:
    decision = view["decision"]
    legal = decision["legal"]
    return legal[: decision["count"]] if decision["kind"] == "pass" else legal[0]


def play_seat(api: ArenaClient, table_id: str, seat: int, token: str, bot: BotInterface,
              on_refused: Literal["raise", "fallback"] = "raise",
              on_move: Callable[[SeatState, Move], None] | None = None,
              wait_s: float = LONG_POLL_S) -> SeatState:
    """Play `seat` of `table_id` with `bot` to the end of the game; returns the final seat state."""
    after = -1
    while True:
        state = api.seat_state(table_id, seat, token, after=after, wait=wait_s)
        if state.over:
            return state
        decision = state.view.get("decision")
        if not state.your_turn or not decision:
            after = state.version  # wait for the next change
            continue
        move = bot.choose(state.view)
        try:
            api.move(table_id, seat, token, move, state.version)
        except ApiError as error:
            if error.status == 409:
                after = -1  # stale: someone else moved, or our retry already landed; read again now
                continue
            if error.status in (400, 422) and on_refused == "fallback":
                log.warning("seat %s: move %r refused (%s); playing the first legal move", seat, move,
                            error.detail)
                move = fallback_move(state.view)
                api.move(table_id, seat, token, move, state.version)
            else:
                raise
        if on_move is not None:
            on_move(state, move)
        after = -1  # our own move may have made it our turn again (e.g. we won the trick): look at once


def practice(api: ArenaClient, bot: BotInterface, game: str, opponents: list[str] | None = None,
             options: dict | None = None, **play_kwargs) -> tuple[str, SeatState]:
    """Open a table with `bot` in seat 0 and house bots elsewhere, play it to the end: (table id, final)."""
    opponents = opponents or ["heuristic"] * 3  # every game plays with 4 (Sore Spot with 3-6 too)
    table = api.create_table(game, ["open", *opponents], options)
    joined = api.join(table.table_id, 0)
    return table.table_id, play_seat(api, table.table_id, 0, joined.token, bot, **play_kwargs)
