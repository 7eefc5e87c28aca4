"""Sloppy Seconds (docs/rules/sloppy-seconds.md): trump is the second suit broken; score for coming second."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from ..card_tables import RANK_OF, SUIT_OF, SUITS
from ..rules import MAX_TARGET, TWO_OF_CLUBS, GameInfo, OptionSpec, Rules, highest_of_led_suit
from ..shapes import RoundSummary, TableView
from ..table import TableState

# R-SL-RANK: A ranks high in play but scores 1; J 11, Q 12, K 13.
VALUE: Final[tuple[int, ...]] = tuple(1 if RANK_OF[c] == 14 else RANK_OF[c] for c in range(52))
MIN_HAND_SCORE: Final = 5  # R-SL-MIN5


def second_place_scores(totals: list[int]) -> list[int]:
    """R-SL-SECOND: players on the second-highest *distinct* total score it; everyone else 0.

    >>> second_place_scores([40, 30, 30, 0])
    [0, 30, 30, 0]
    >>> second_place_scores([40, 40, 11, 0])
    [0, 0, 11, 0]
    """
    distinct = sorted(set(totals), reverse=True)
    if len(distinct) < 2:
        return [0] * len(totals)
    second = distinct[1]
    return [t if t == second else 0 for t in totals]


@dataclass
class SloppyRound:
    """Sloppy Seconds' own state in a round (R-SL-BREAK): suits broken in order, and trump once set."""

    broken: list[int] = field(default_factory=list)
    trump: int | None = None


class SloppySeconds(Rules[SloppyRound]):
    info = GameInfo(
        id="sloppy-seconds",
        name="Sloppy Seconds",
        min_players=3,
        max_players=4,
        summary=(
            "Follow suit; no trump until the second distinct suit is broken (played off-suit), which "
            "becomes trump at once. Per suit, the players on the second-highest total of card values "
            "score it; a hand below 5 scores 5. Highest total wins once someone reaches the target."
        ),
        options={
            "target": OptionSpec(
                300,
                "game ends after the hand in which a total reaches this; the text "
                "names 300 or 364 (R-SL-END)",
                minimum=1,
                maximum=MAX_TARGET,
            )
        },
    )

    def new_extra(self, players: int) -> SloppyRound:
        return SloppyRound()

    def copy_extra(self, extra: SloppyRound) -> SloppyRound:
        return SloppyRound(list(extra.broken), extra.trump)

    def deck(self, players: int, options: dict[str, Any]) -> list[int]:
        return [c for c in range(52) if not (players == 3 and c == TWO_OF_CLUBS)]  # R-SL-DEAL

    def on_play(self, state: TableState[SloppyRound], seat: int, played: int) -> None:
        # R-SL-BREAK: off-suit play breaks a suit; the second distinct suit broken is trump, at once.
        suit = SUIT_OF[played]
        own = state.extra
        if len(state.trick) > 1 and suit != SUIT_OF[state.trick[0]] and suit not in own.broken:
            own.broken.append(suit)
            if len(own.broken) == 2 and own.trump is None:
                own.trump = suit

    def trick_winner(self, state: TableState[SloppyRound]) -> int:
        trump = state.extra.trump
        trick = state.trick
        if trump is not None:
            trumps = [i for i, c in enumerate(trick) if SUIT_OF[c] == trump]
            if trumps:  # R-SL-WIN
                return state.trick_seats[max(trumps, key=trick.__getitem__)]
        return highest_of_led_suit(trick, state.trick_seats)

    def round_points(self, state: TableState[SloppyRound]) -> list[int]:
        n = state.players
        points = [0] * n
        for suit in range(4):
            totals = [sum(VALUE[c] for c in won if SUIT_OF[c] == suit) for won in state.won]
            for seat, p in enumerate(second_place_scores(totals)):
                points[seat] += p
        return [max(p, MIN_HAND_SCORE) for p in points]

    def add_public(self, state: TableState[SloppyRound], view: TableView) -> None:
        own = state.extra
        view["trump"] = None if own.trump is None else SUITS[own.trump]
        view["broken"] = [SUITS[s] for s in own.broken]

    def add_to_summary(self, state: TableState[SloppyRound], summary: RoundSummary) -> None:
        trump = state.extra.trump
        summary["trump"] = None if trump is None else SUITS[trump]
