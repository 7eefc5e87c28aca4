"""Sore Spot (docs/rules/sore-spot.md): no need to follow suit, off-suit cards win, a secret sore suit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from ..card_tables import CODES, RANK_OF, SUIT_OF
from ..cards import Card, CardError, card, codes
from ..errors import OptionsError
from ..rules import GameInfo, OptionSpec, Rules
from ..shapes import RoundSummary, TableView
from ..table import TableState

# R-SS-NUM: A = 0, 2..10 face value, J 11, Q 12, K 13.
NUMBER: Final[tuple[int, ...]] = tuple(0 if RANK_OF[c] == 14 else RANK_OF[c] for c in range(52))
ACE: Final = 14

# R-SS-DECK: the cards used by player count.
STANDARD_DECKS = {
    3: [c for c in range(39)],  # A..K of clubs, diamonds, hearts
    4: list(range(52)),
    5: [c for c in range(52) if c not in (card(0, 2), card(1, 2))],
    6: [c for c in range(52) if RANK_OF[c] != 2],
}
# The text's variant for 3 players: A to Q of all four suits, 16 each.
A_TO_Q = [c for c in range(52) if RANK_OF[c] != 13]
DECK_PRESETS = ("standard", "a-to-q")


def trick_winner_index(trick: list[int]) -> int | None:
    """R-SS-WIN: index of the winning card in play order, or None if only Aces were played.

    Aces are ignored; any non-Ace off the suit led beats the suit led, highest number
    wins, and on equal numbers the earlier card wins.

    >>> trick_winner_index([Card.parse(c) for c in ["9D", "4H", "KD", "7S"]])
    3
    """
    led = SUIT_OF[trick[0]]
    best_off = best_led = None
    for i, c in enumerate(trick):
        if RANK_OF[c] == ACE:
            continue
        if SUIT_OF[c] != led:
            if best_off is None or NUMBER[c] > NUMBER[trick[best_off]]:
                best_off = i
        elif best_led is None or NUMBER[c] > NUMBER[trick[best_led]]:
            best_led = i
    return best_off if best_off is not None else best_led


def round_score(sore_card: int, won: list[int]) -> int:
    """R-SS-SCORE: sore-suit cards won and the laid card cost their number; every other card +1."""
    sore = SUIT_OF[sore_card]
    return -NUMBER[sore_card] + sum(-NUMBER[c] if SUIT_OF[c] == sore else 1 for c in won)


@dataclass
class SoreSpotRound:
    """Sore Spot's own state in a round: each seat's laid sore card, None until every seat has laid."""

    sore_cards: list[int | None]


class SoreSpot(Rules[SoreSpotRound]):
    info = GameInfo(
        id="sore-spot",
        name="Sore Spot",
        min_players=3,
        max_players=6,
        summary=(
            "No need to follow suit; any non-Ace card off the suit led beats the suit led. Everyone "
            "secretly lays a card whose suit is their sore suit: sore cards won cost their number "
            "(A 0 .. K 13), every other card won scores +1. One round per player; highest total wins."
        ),
        options={
            "rounds": OptionSpec(
                None, "number of rounds; default one per player (R-SS-ROUNDS)", minimum=1, maximum=52
            ),
            "deck": OptionSpec(
                "standard",
                "'standard' (R-SS-DECK by player count), 'a-to-q' (3 players: A to Q of all four suits), "
                "or an explicit list of card codes dealt evenly",
                kind=object,
            ),
        },
    )
    has_sore_phase = True

    def new_extra(self, players: int) -> SoreSpotRound:
        return SoreSpotRound([None] * players)

    def copy_extra(self, extra: SoreSpotRound) -> SoreSpotRound:
        return SoreSpotRound(list(extra.sore_cards))

    def validate_options(self, players: object, options: dict[str, Any]) -> dict[str, Any]:
        out = super().validate_options(players, options)
        if out["rounds"] is None:
            out["rounds"] = players
        return out

    def check_option(self, key: str, value: Any, players: int) -> Any:
        if key != "deck":
            if key == "rounds" and value is None:
                return None
            return super().check_option(key, value, players)
        if value == "a-to-q" and players != 3:
            raise OptionsError("deck 'a-to-q' is the 3-player variant (48 cards, 16 each)")
        if isinstance(value, str):
            if value not in DECK_PRESETS:
                raise OptionsError(f"deck must be one of {', '.join(DECK_PRESETS)} or a list of card codes")
            return value
        if not isinstance(value, list):
            raise OptionsError("deck must be a preset name or a list of card codes")
        try:
            cards = sorted({Card.parse(c) for c in value})
        except CardError as exc:
            raise OptionsError(f"deck: {exc}") from None
        if len(cards) != len(value):
            raise OptionsError("deck lists a card twice")
        if len(cards) % players or len(cards) // players < 2:
            raise OptionsError(
                f"deck of {len(cards)} cards does not deal evenly to {players} players with at least 2 each"
            )
        return [CODES[c] for c in cards]

    def deck(self, players: int, options: dict[str, Any]) -> list[int]:
        choice = options.get("deck", "standard")
        if choice == "standard":
            return list(STANDARD_DECKS[players])
        if choice == "a-to-q":
            return list(A_TO_Q)
        return [Card.parse(c) for c in choice]

    def legal_plays(self, state: TableState[SoreSpotRound], seat: int) -> list[int]:
        return list(state.hands[seat])  # no need to follow suit

    def on_secret_cards(self, state: TableState[SoreSpotRound], laid: dict[int, int]) -> None:
        for seat, c in laid.items():
            state.extra.sore_cards[seat] = c

    def trick_winner(self, state: TableState[SoreSpotRound]) -> int | None:
        index = trick_winner_index(state.trick)
        return None if index is None else state.trick_seats[index]

    def laid(self, state: TableState[SoreSpotRound]) -> list[int]:
        """Every seat's sore card, in seat order (play begins only once all are laid)."""
        return [c for c in state.extra.sore_cards if c is not None]

    def round_points(self, state: TableState[SoreSpotRound]) -> list[int]:
        return [round_score(sore, state.won[s]) for s, sore in enumerate(self.laid(state))]

    def game_over(self, state: TableState[SoreSpotRound]) -> bool:
        return bool(state.round_no + 1 >= state.options["rounds"])

    def add_public(self, state: TableState[SoreSpotRound], view: TableView) -> None:
        # R-SIMUL: sore cards show only once every seat has laid one.
        view["sore_cards"] = [None if c is None else CODES[c] for c in state.extra.sore_cards]

    def add_to_summary(self, state: TableState[SoreSpotRound], summary: RoundSummary) -> None:
        summary["sore_cards"] = codes(self.laid(state))
