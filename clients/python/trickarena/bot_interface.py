"""``BotInterface``: what the ways to run a bot use of it.

``BotServer``, ``play_seat`` and ``play_ladder`` take any object with these members; every ``Bot`` has them.
Typed against this rather than ``Bot`` itself, they need not import the class whose ``serve``, ``practice``
and ``play_ladder`` methods start them.
"""

from __future__ import annotations

from typing import Any, Protocol

from trickarena.types import Move, View


class BotInterface(Protocol):
    @property
    def version(self) -> str:
        """The bot's version, declared to the arena."""

    @property
    def concurrent(self) -> bool:
        """True if ``choose`` may be called from several threads at once."""

    def choose(self, view: View) -> Move:
        """The move for the seat's view: a card code, or a list of cards for a pass."""

    def info(self) -> dict[str, Any]:
        """``{name, author, version, games}``, the bot protocol's ``GET /`` answer."""

    def on_start(self, info: dict[str, Any]) -> None:
        """A game starts (``{game, table, match, seat, players, options}``)."""

    def on_end(self, info: dict[str, Any]) -> None:
        """A game ended (``{game, table, match, seat, totals, winners}``)."""
