"""Spot Hearts (docs/rules/spot-hearts.md): Hearts scored by rank, Q♠ 25, no moon, to 500."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..cards import HEARTS, RANK_OF, SUIT_OF
from ..rules import (
    MAX_TARGET,
    QUEEN_OF_SPADES,
    TWO_OF_CLUBS,
    GameInfo,
    OptionSpec,
    Rules,
    follow_suit,
    hearts_pass_offset,
    points_taken,
)

if TYPE_CHECKING:
    from ..state import GameState

# R-SH-SCORE: hearts score their rank (2..14), the Q♠ 25; 129 per round.
POINTS = tuple(RANK_OF[c] if SUIT_OF[c] == HEARTS else 25 if c == QUEEN_OF_SPADES else 0 for c in range(52))


def is_penalty(c: int) -> bool:
    return SUIT_OF[c] == HEARTS or c == QUEEN_OF_SPADES


class SpotHearts(Rules):
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
    low_wins = True
    pass_count = 3

    def first_dealer_from_seed(self) -> bool:
        return True  # R-DEALER: "The first dealer is determined randomly".

    def pass_offset(self, players: int, round_no: int) -> int:
        return hearts_pass_offset(players, round_no)  # R-SH-PASS

    def first_leader(self, state: GameState) -> int:
        # R-SH-LEAD: the holder of the 2♣ after the pass.
        return next(s for s, hand in enumerate(state.hands) if TWO_OF_CLUBS in hand)

    def legal_plays(self, state: GameState, seat: int) -> list[int]:
        hand = state.hands[seat]
        first_trick = not state.tricks
        if not state.trick:
            if first_trick:
                return [TWO_OF_CLUBS]
            if state.hearts_broken:
                return list(hand)
            # R-SH-BREAK: no heart lead before a heart or the Q♠ has been played, unless only hearts are left.
            return [c for c in hand if SUIT_OF[c] != HEARTS] or list(hand)
        legal = follow_suit(hand, state.trick)
        if first_trick and SUIT_OF[legal[0]] != SUIT_OF[state.trick[0]]:
            # R-SH-FIRST: void on the first trick, still no penalty card unless nothing else is left.
            return [c for c in legal if not is_penalty(c)] or legal
        return legal

    def why_not(self, state: GameState, seat: int, played: int) -> str:
        if not state.trick:
            if not state.tricks:
                return "the 2C leads the first trick (R-SH-LEAD)"
            return "hearts may not be led until a heart or the QS has been played (R-SH-BREAK)"
        if any(SUIT_OF[c] == SUIT_OF[state.trick[0]] for c in state.hands[seat]):
            return super().why_not(state, seat, played)
        return "no heart and not the QS on the first trick (R-SH-FIRST)"

    def on_play(self, state: GameState, seat: int, played: int) -> None:
        if is_penalty(played):
            state.hearts_broken = True

    def round_points(self, state: GameState) -> list[int]:
        return points_taken(state.won, POINTS)

    def public_extras(self, state: GameState) -> dict[str, Any]:
        return {"hearts_broken": state.hearts_broken}
