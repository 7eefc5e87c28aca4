"""Trick Arena bot SDK: subclass ``Bot``, write ``choose(view) -> move``, then serve it or practice with it.

* ``Bot(...).serve(port=9001)``: an HTTP bot speaking the arena's bot protocol v1 (``BotServer``).
* ``Bot(...).practice(api_url, game)``: play a table against house bots through the move API.
* ``ArenaClient``: every public API endpoint as a typed method; errors raise ``ApiError(status, problem)``.
"""

from trickarena.api import ArenaClient
from trickarena.bot import Bot
from trickarena.http import ApiError, ApiUnavailable
from trickarena.poll import play_seat, practice
from trickarena.run import run
from trickarena.server import BotServer
from trickarena.types import GAME_IDS, Decision, Move, MoveRequest, SeatState, Table, View

__all__ = [
    "GAME_IDS",
    "ApiError",
    "ApiUnavailable",
    "ArenaClient",
    "Bot",
    "BotServer",
    "Decision",
    "Move",
    "MoveRequest",
    "SeatState",
    "Table",
    "View",
    "play_seat",
    "practice",
    "run",
]
__version__ = "0.1.0"
