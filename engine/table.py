"""The table as a rule step sees it: :class:`TableState`, which :class:`~engine.state.GameState` is and
every step of a :class:`~engine.rules.Rules` takes, so that neither module imports the other.

A plain class, not a Protocol: compiled code then reads these attributes directly, as it reads its own.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from .shapes import Trick

#: The type of a game's own per-round state (``state.extra``).
X = TypeVar("X")


class TableState(Generic[X]):
    """What every trick-taking game has at the table, which its rule steps read and change."""

    players: int
    options: dict[str, Any]
    round_no: int
    dealer: int
    #: Every seat's hand: sorted card ints.
    hands: list[list[int]]
    #: The trick in play: its cards, and the seat that played each.
    trick: list[int]
    trick_seats: list[int]
    #: The round's completed tricks.
    tricks: list[Trick]
    #: The cards each seat has won this round.
    won: list[list[int]]
    #: The scores: every seat's total over the finished rounds.
    totals: list[int]
    #: The game's own round state (:meth:`engine.rules.Rules.new_extra`).
    extra: X
