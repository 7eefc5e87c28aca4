"""The shared trick-taking core's rule steps: a :class:`Rules` object is a game's rule book as small named
steps, which each game module overrides where it differs; a step is given the game as a
:class:`~engine.table.TableState`, and what only one game tracks is in ``state.extra``.

Design: docs/engine.md#how-a-game-is-written
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Generic

from .card_tables import SUIT_OF, SUITS
from .cards import SPADES, card
from .errors import OptionsError
from .shapes import RoundSummary, TableView
from .table import TableState, X

QUEEN_OF_SPADES: Final = card(SPADES, 12)
TWO_OF_CLUBS: Final = card(0, 2)
THREE_OF_CLUBS: Final = card(0, 3)

# R-SEAT: pass offsets, seat i passes to i + offset.
LEFT: Final = 1
RIGHT: Final = -1
ACROSS: Final = 2
HOLD: Final = 0
DIRECTION_NAMES = {LEFT: "left", RIGHT: "right", ACROSS: "across", HOLD: "hold"}

MAX_TARGET = 100_000

@dataclass(frozen=True)
class OptionSpec:
    """One table option: its default, its type and what it means."""

    default: Any
    doc: str
    kind: type = int
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True)
class GameInfo:
    """What a client needs to offer a game: ids, player counts, options, summary."""

    id: str
    name: str
    min_players: int
    max_players: int
    summary: str
    options: dict[str, OptionSpec] = field(default_factory=dict)

    @property
    def defaults(self) -> dict[str, Any]:
        return {k: spec.default for k, spec in self.options.items()}

    @property
    def option_docs(self) -> dict[str, str]:
        return {k: spec.doc for k, spec in self.options.items()}


class Rules(Generic[X]):
    """Base rule book: follow suit, no trump, highest of the suit led wins."""

    info: GameInfo
    #: Sore Spot's secret sore card before play (R-SIMUL).
    has_sore_phase = False
    #: Lowest total wins (hearts family) or highest (Sore Spot, Sloppy Seconds).
    low_wins = False
    #: Cards passed per pass phase; 0 means the game never passes.
    pass_count = 0

    # ----- setup ---------------------------------------------------------
    def validate_options(self, players: object, options: dict[str, Any]) -> dict[str, Any]:
        """Check the player count and options; return options with defaults filled in."""
        info = self.info
        if not isinstance(players, int) or isinstance(players, bool):
            raise OptionsError(f"players must be an integer, not {players!r}")
        if not info.min_players <= players <= info.max_players:
            span = (
                f"exactly {info.min_players}"
                if info.min_players == info.max_players
                else f"{info.min_players} to {info.max_players}"
            )
            raise OptionsError(f"{info.name} is played by {span} players, not {players}")
        if not isinstance(options, dict):
            raise OptionsError("options must be an object")
        unknown = sorted(set(options) - set(info.options))
        if unknown:
            known = ", ".join(sorted(info.options)) or "none"
            raise OptionsError(f"unknown option(s) for {info.id}: {', '.join(unknown)} (known: {known})")
        out = info.defaults
        for key, value in options.items():
            out[key] = self.check_option(key, value, players)
        return out

    def check_option(self, key: str, value: Any, players: int) -> Any:
        spec = self.info.options[key]
        if spec.kind is int:
            if not isinstance(value, int) or isinstance(value, bool):
                raise OptionsError(f"option {key} must be an integer, not {value!r}")
            if spec.minimum is not None and value < spec.minimum:
                raise OptionsError(f"option {key} must be at least {spec.minimum}, not {value}")
            if spec.maximum is not None and value > spec.maximum:
                raise OptionsError(f"option {key} must be at most {spec.maximum}, not {value}")
        return value

    def deck(self, players: int, options: dict[str, Any]) -> list[int]:
        return list(range(52))

    def new_extra(self, players: int) -> X:
        """The game's own state at the start of a round (``state.extra``; None for a game without)."""
        raise NotImplementedError

    def copy_extra(self, extra: X) -> X:
        """An independent copy of the game's own round state (for :meth:`GameState.copy`)."""
        return extra

    def first_dealer_from_seed(self) -> bool:
        """R-DEALER: only games whose text says "determined randomly" draw the first dealer."""
        return False

    def pass_offset(self, players: int, round_no: int) -> int | None:
        """The pass offset of a round (R-SEAT), HOLD for a hold round, None if the game never passes."""
        return None

    # ----- play ----------------------------------------------------------
    def first_leader(self, state: TableState[X]) -> int:
        return (state.dealer + 1) % state.players

    def legal_plays(self, state: TableState[X], seat: int) -> list[int]:
        return follow_suit(state.hands[seat], state.trick)

    def on_play(self, state: TableState[X], seat: int, played: int) -> None:
        """What a played card changes beyond the trick itself (hearts broken, trump)."""

    def on_secret_cards(self, state: TableState[X], laid: dict[int, int]) -> None:
        """The cards every seat laid in a secret-card phase (Sore Spot), once all are in."""
        raise NotImplementedError

    def why_not(self, state: TableState[X], seat: int, played: int) -> str:
        """Why a card in the hand is not legal now (for error messages)."""
        return f"you must follow the suit led ({SUITS[SUIT_OF[state.trick[0]]]})"

    def trick_winner(self, state: TableState[X]) -> int | None:
        """Seat that wins the full trick in ``state.trick`` / ``state.trick_seats``."""
        return highest_of_led_suit(state.trick, state.trick_seats)

    # ----- scoring -------------------------------------------------------
    def round_points(self, state: TableState[X]) -> list[int]:
        raise NotImplementedError

    def game_over(self, state: TableState[X]) -> bool:
        target = state.options["target"]
        return any(total >= target for total in state.totals)

    def winners(self, totals: Sequence[int]) -> list[int]:
        """R-TIE-WIN: every seat on the best total shares the win."""
        best = min(totals) if self.low_wins else max(totals)
        return [seat for seat, total in enumerate(totals) if total == best]

    def add_to_summary(self, state: TableState[X], summary: RoundSummary) -> None:
        """Add game-specific facts to a finished round's summary (trump, moon, sore cards)."""

    # ----- views ---------------------------------------------------------
    def add_public(self, state: TableState[X], view: TableView) -> None:
        """Add game-specific public facts to seat and spectator views."""


# ----- steps shared by several games ------------------------------------


def suit_run(hand: list[int], suit: int) -> list[int]:
    """The cards of ``suit`` in ``hand``, a new list.

    ``hand`` is sorted, as every hand in a game is: a suit's cards are one run of it, found by a
    plain scan (compiled, a loop on machine ints: cheaper for 13 cards than two bisections).

    >>> suit_run([1, 14, 15, 40], 1), suit_run([1, 40], 1)
    ([14, 15], [])
    """
    low = suit * 13
    high = low + 13
    n = len(hand)
    start = 0
    while start < n and hand[start] < low:
        start += 1
    end = start
    while end < n and hand[end] < high:
        end += 1
    return hand[start:end]


def index_of(cards: list[int], c: int) -> int:
    """The index of ``c`` in ``cards``, -1 if absent: a plain loop over ints, which compiled code runs
    without the object comparisons of ``list.index`` or ``in``.

    >>> index_of([3, 9, 40], 40), index_of([3, 9], 4)
    (2, -1)
    """
    for i in range(len(cards)):
        if cards[i] == c:
            return i
    return -1


def follow_suit(hand: list[int], trick: list[int]) -> list[int]:
    """Cards of the suit led if the hand has any, else the whole hand.

    >>> follow_suit([1, 14, 15, 40], [13]), follow_suit([1, 40], [13])
    ([14, 15], [1, 40])
    """
    if not trick:
        return list(hand)
    return suit_run(hand, SUIT_OF[trick[0]]) or list(hand)


def highest_of_led_suit(trick: list[int], seats: list[int]) -> int:
    led = SUIT_OF[trick[0]]
    best = 0
    for i in range(1, len(trick)):
        if SUIT_OF[trick[i]] == led and trick[i] > trick[best]:
            best = i
    return seats[best]


def hearts_pass_offset(players: int, round_no: int) -> int:
    """R-CC-PASS / R-SH-PASS: 4 players left, right, across, hold; 3 players left, right, hold."""
    cycle = (LEFT, RIGHT, ACROSS, HOLD) if players == 4 else (LEFT, RIGHT, HOLD)
    return cycle[round_no % len(cycle)]


def points_taken(won: list[list[int]], value: tuple[int, ...]) -> list[int]:
    """Sum of per-card ``value`` over each seat's won cards."""
    out: list[int] = []
    for cards in won:
        total = 0
        for c in cards:
            total += value[c]
        out.append(total)
    return out
