"""Card Commons (docs/rules/card-commons.md): Hearts for 3-4 with free heart leads and a fixed moon."""

from __future__ import annotations

from typing import Any, Final

from ..card_tables import HEARTS, SUIT_OF
from ..rules import MAX_TARGET, QUEEN_OF_SPADES, THREE_OF_CLUBS, TWO_OF_CLUBS, GameInfo, OptionSpec
from ..shapes import RoundSummary
from ..table import TableState
from .hearts import HeartsFamily

POINTS: Final[tuple[int, ...]] = tuple(
    1 if SUIT_OF[c] == HEARTS else 13 if c == QUEEN_OF_SPADES else 0 for c in range(52)
)
MOON: Final = 26


class CardCommons(HeartsFamily[None]):
    """No state of its own: hearts may be led any time after the first trick (R-CC-FIRST)."""

    info = GameInfo(
        id="card-commons",
        name="Card Commons",
        min_players=3,
        max_players=4,
        summary=(
            "Hearts for 3 or 4: each heart 1, the Q♠ 13. Pass 3 (left, right, across, hold; 3 players "
            "left, right, hold); the 2♣ (3 players: 3♣) leads; hearts may be led after the first trick; "
            "taking every heart and the Q♠ scores -26 for you and 0 for the others. Lowest total wins "
            "once someone reaches the target."
        ),
        options={
            "target": OptionSpec(
                100,
                "game ends after the round in which a total reaches this (R-CC-END)",
                minimum=1,
                maximum=MAX_TARGET,
            )
        },
    )
    points = POINTS
    lead_ruling = "R-CC-LEAD"

    def new_extra(self, players: int) -> None:
        return None

    def deck(self, players: int, options: dict[str, Any]) -> list[int]:
        return [c for c in range(52) if not (players == 3 and c == TWO_OF_CLUBS)]

    def opening_card(self, players: int) -> int:
        return THREE_OF_CLUBS if players == 3 else TWO_OF_CLUBS  # R-CC-LEAD

    # R-CC-FIRST: when void, anything goes, even on the first trick; any lead after it (the family's
    # legal_leads and legal_follows as they are).

    def moon_shooter(self, state: TableState[None]) -> int | None:
        """R-CC-MOON: the seat that took all 13 hearts and the Q♠, if any."""
        for seat, cards in enumerate(state.won):
            if sum(POINTS[c] for c in cards) == MOON:
                return seat
        return None

    def round_points(self, state: TableState[None]) -> list[int]:
        shooter = self.moon_shooter(state)
        if shooter is None:
            return super().round_points(state)
        return [-MOON if seat == shooter else 0 for seat in range(state.players)]

    def add_to_summary(self, state: TableState[None], summary: RoundSummary) -> None:
        summary["moon"] = self.moon_shooter(state)
