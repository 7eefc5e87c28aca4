"""Spot Hearts (docs/rules/spot-hearts.md): Hearts scored by rank, Q♠ 25, no moon, to 500."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..card_tables import HEARTS, RANK_OF, SUIT_OF
from ..rules import MAX_TARGET, QUEEN_OF_SPADES, GameInfo, OptionSpec
from ..shapes import TableView
from ..table import TableState
from .hearts import HeartsFamily

# R-SH-SCORE: hearts score their rank (2..14), the Q♠ 25; 129 per round.
POINTS: Final[tuple[int, ...]] = tuple(
    RANK_OF[c] if SUIT_OF[c] == HEARTS else 25 if c == QUEEN_OF_SPADES else 0 for c in range(52)
)


@dataclass
class SpotHeartsRound:
    """Spot Hearts' own state in a round: R-SH-BREAK, has a heart or the Q♠ been played."""

    hearts_broken: bool = False


class SpotHearts(HeartsFamily[SpotHeartsRound]):
    info = GameInfo(
        id="spot-hearts",
        name="Spot Hearts",
        min_players=4,
        max_players=4,
        summary=(
            "Hearts for 4 where each heart scores its rank (A = 14) and the Q♠ 25. Pass 3 cards left, "
            "right, across, hold; the 2♣ leads; no hearts or Q♠ on the first trick; hearts are led only "
            "once broken. Lowest total when someone reaches the target wins."
        ),
        options={
            "target": OptionSpec(
                500,
                "game ends after the round in which a total reaches this (R-SH-END)",
                minimum=1,
                maximum=MAX_TARGET,
            )
        },
    )
    points = POINTS
    lead_ruling = "R-SH-LEAD"  # the 2♣ after the pass
    no_points_on_first_trick = True  # R-SH-FIRST: a void seat still may not throw a heart or the Q♠

    def new_extra(self, players: int) -> SpotHeartsRound:
        return SpotHeartsRound()

    def copy_extra(self, extra: SpotHeartsRound) -> SpotHeartsRound:
        return SpotHeartsRound(extra.hearts_broken)

    def first_dealer_from_seed(self) -> bool:
        return True  # R-DEALER: "The first dealer is determined randomly".

    def legal_leads(self, state: TableState[SpotHeartsRound], seat: int) -> list[int]:
        hand = state.hands[seat]
        if state.extra.hearts_broken:
            return list(hand)
        # R-SH-BREAK: no heart lead before a heart or the Q♠ has been played, unless only hearts are left.
        return [c for c in hand if SUIT_OF[c] != HEARTS] or list(hand)

    def why_not(self, state: TableState[SpotHeartsRound], seat: int, played: int) -> str:
        if not state.trick and state.tricks:
            return "hearts may not be led until a heart or the QS has been played (R-SH-BREAK)"
        if state.trick and not any(SUIT_OF[c] == SUIT_OF[state.trick[0]] for c in state.hands[seat]):
            return "no heart and not the QS on the first trick (R-SH-FIRST)"
        return super().why_not(state, seat, played)

    def on_play(self, state: TableState[SpotHeartsRound], seat: int, played: int) -> None:
        if POINTS[played]:  # R-SH-BREAK: a heart or the Q♠
            state.extra.hearts_broken = True

    def add_public(self, state: TableState[SpotHeartsRound], view: TableView) -> None:
        view["hearts_broken"] = state.extra.hearts_broken
