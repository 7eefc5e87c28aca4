"""The hearts family's shared steps (Card Commons, Spot Hearts): pass three, the opening club leads, points by
card, lowest total wins. A game of the family names its opening card, its card points and its lead rules.

Design: docs/engine.md#how-a-game-is-written
"""

from __future__ import annotations

from ..card_tables import CODES, SUIT_OF
from ..rules import TWO_OF_CLUBS, Rules, hearts_pass_offset, index_of, points_taken, suit_run
from ..table import TableState, X


class HeartsFamily(Rules[X]):
    low_wins = True
    pass_count = 3
    #: Points per card (index: card int).
    points: tuple[int, ...]
    #: The ruling that names the opening lead, cited when another card is tried (R-SH-LEAD, R-CC-LEAD).
    lead_ruling: str
    #: A seat void in the suit led may not throw a point card on the first trick unless it holds
    #: nothing else (R-SH-FIRST); False where anything goes (R-CC-FIRST).
    no_points_on_first_trick = False

    def pass_offset(self, players: int, round_no: int) -> int:
        return hearts_pass_offset(players, round_no)  # R-CC-PASS, R-SH-PASS

    def opening_card(self, players: int) -> int:
        return TWO_OF_CLUBS

    def first_leader(self, state: TableState[X]) -> int:
        # The holder of the opening card after the pass.
        opener = self.opening_card(state.players)
        return next(s for s, hand in enumerate(state.hands) if index_of(hand, opener) >= 0)

    def legal_plays(self, state: TableState[X], seat: int) -> list[int]:
        # Following is most of a round's decisions: done here in one step, on the sorted hand.
        hand = state.hands[seat]
        trick = state.trick
        if trick:
            same = suit_run(hand, SUIT_OF[trick[0]])
            if same:
                return same
            if self.no_points_on_first_trick and not state.tricks:
                points = self.points
                return [c for c in hand if not points[c]] or list(hand)
            return list(hand)
        if not state.tricks:
            return [self.opening_card(state.players)]
        return self.legal_leads(state, seat)

    def legal_leads(self, state: TableState[X], seat: int) -> list[int]:
        """Cards ``seat`` may lead after the first trick."""
        return list(state.hands[seat])

    def why_not(self, state: TableState[X], seat: int, played: int) -> str:
        if not state.trick and not state.tricks:
            return f"the {CODES[self.opening_card(state.players)]} leads the first trick ({self.lead_ruling})"
        return super().why_not(state, seat, played)

    def round_points(self, state: TableState[X]) -> list[int]:
        return points_taken(state.won, self.points)
