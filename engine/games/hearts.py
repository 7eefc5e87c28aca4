"""The hearts family's shared steps (Card Commons, Spot Hearts): pass three, the opening club leads,
points by card, lowest total wins.

A game of the family says which card opens (:meth:`HeartsFamily.opening_card`), what a card is
worth (``points``) and which ruling its opening lead cites; it overrides :meth:`legal_leads` /
:meth:`legal_follows` for its own restrictions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards import CODES
from ..rules import TWO_OF_CLUBS, Rules, X, follow_suit, hearts_pass_offset, points_taken

if TYPE_CHECKING:
    from ..state import GameState


class HeartsFamily(Rules[X]):
    low_wins = True
    pass_count = 3
    #: Points per card (index: card int).
    points: tuple[int, ...]
    #: The ruling that names the opening lead, cited when another card is tried (R-SH-LEAD, R-CC-LEAD).
    lead_ruling: str

    def pass_offset(self, players: int, round_no: int) -> int:
        return hearts_pass_offset(players, round_no)  # R-CC-PASS, R-SH-PASS

    def opening_card(self, players: int) -> int:
        return TWO_OF_CLUBS

    def first_leader(self, state: GameState[X]) -> int:
        # The holder of the opening card after the pass.
        opener = self.opening_card(state.players)
        return next(s for s, hand in enumerate(state.hands) if opener in hand)

    def legal_plays(self, state: GameState[X], seat: int) -> list[int]:
        if state.trick:
            return self.legal_follows(state, seat)
        if not state.tricks:
            return [self.opening_card(state.players)]
        return self.legal_leads(state, seat)

    def legal_leads(self, state: GameState[X], seat: int) -> list[int]:
        """Cards ``seat`` may lead after the first trick."""
        return list(state.hands[seat])

    def legal_follows(self, state: GameState[X], seat: int) -> list[int]:
        """Cards ``seat`` may play to a trick already led."""
        return follow_suit(state.hands[seat], state.trick)

    def why_not(self, state: GameState[X], seat: int, played: int) -> str:
        if not state.trick and not state.tricks:
            return f"the {CODES[self.opening_card(state.players)]} leads the first trick ({self.lead_ruling})"
        return super().why_not(state, seat, played)

    def round_points(self, state: GameState[X]) -> list[int]:
        return points_taken(state.won, self.points)
