"""Per-game heuristic policies: simple, explainable, and clearly better than random.

Each takes a seat view and returns a legal move.  They read only what the view
shows (own hand, public table), so they are fair opponents for any bot.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..cards import CODES, RANK_OF, SUIT_OF, SUITS, Card
from ..games import card_commons, sloppy_seconds, sore_spot, spot_hearts
from ..rules import QUEEN_OF_SPADES
from ..state import Move

Policy = Callable[[dict[str, Any]], Move]


def _ints(cards: list[str]) -> list[int]:
    return [Card.parse(c) for c in cards]


def _trick_cards(view: dict[str, Any]) -> list[int]:
    return [Card.parse(e["card"]) for e in view["trick"]["cards"]]


# ----- hearts family (Spot Hearts, Card Commons): avoid points ---------------------------


def pass_danger(c: int, points: tuple[int, ...]) -> int:
    """How much a hearts-game pass wants rid of card ``c``: the Q♠ and the spades above it, then high
    cards, hearts first."""
    if c == QUEEN_OF_SPADES:
        return 100
    if SUIT_OF[c] == 3 and RANK_OF[c] > 12:
        return 90 + RANK_OF[c]
    return RANK_OF[c] * 4 + (3 if points[c] else 0)


def _hearts_policy(points: tuple[int, ...]) -> Policy:
    def danger(c: int) -> int:
        return pass_danger(c, points)

    def policy(view: dict[str, Any]) -> Move:
        decision = view["decision"]
        legal = _ints(decision["legal"])
        if decision["kind"] == "pass":
            worst = sorted(legal, key=danger, reverse=True)[: decision["count"]]
            return [CODES[c] for c in worst]
        trick = _trick_cards(view)
        if not trick:  # lead the lowest card, hearts last
            return CODES[min(legal, key=lambda c: (points[c] > 0, RANK_OF[c]))]
        led = SUIT_OF[trick[0]]
        if SUIT_OF[legal[0]] != led:  # void: dump the costliest, then the highest card
            return CODES[max(legal, key=lambda c: (points[c], RANK_OF[c]))]
        high = max(RANK_OF[c] for c in trick if SUIT_OF[c] == led)
        under = [c for c in legal if RANK_OF[c] < high]
        if under:  # duck as high as possible
            return CODES[max(under, key=lambda c: RANK_OF[c])]
        last = len(trick) == view["players"] - 1
        safe = [c for c in legal if c != QUEEN_OF_SPADES]
        if last and not any(points[c] for c in trick):
            return CODES[max(safe or legal, key=lambda c: RANK_OF[c])]
        return CODES[min(safe or legal, key=lambda c: RANK_OF[c])]

    return policy


# ----- Sloppy Seconds: aim at the second-highest total of each suit ---------------------------


def _sloppy_policy(view: dict[str, Any]) -> Move:
    legal = _ints(view["decision"]["legal"])
    me = view["seat"]
    n = view["players"]
    value = sloppy_seconds.VALUE
    totals = [[0] * 4 for _ in range(n)]
    for t in view["tricks"]:
        if t["winner"] is not None:
            for code in t["cards"]:
                c = Card.parse(code)
                totals[t["winner"]][SUIT_OF[c]] += value[c]
    trick = _trick_cards(view)
    broken = [SUITS.index(s) for s in view.get("broken", [])]
    trump = None if view.get("trump") is None else SUITS.index(view["trump"])

    def my_score(extra: list[int]) -> int:
        score = 0
        for suit in range(4):
            per_seat = [totals[s][suit] for s in range(n)]
            per_seat[me] += sum(value[c] for c in extra if SUIT_OF[c] == suit)
            score += sloppy_seconds.second_place_scores(per_seat)[me]
        return score

    def wins(c: int) -> bool:
        cards = [*trick, c]
        t, b = trump, list(broken)
        if trick and SUIT_OF[c] != SUIT_OF[trick[0]] and SUIT_OF[c] not in b:
            b.append(SUIT_OF[c])
            if len(b) == 2 and t is None:
                t = SUIT_OF[c]
        led = SUIT_OF[cards[0]]

        def strength(x: int) -> int:
            return RANK_OF[x] + (100 if SUIT_OF[x] == t else 50 if SUIT_OF[x] == led else 0)

        return max(cards, key=strength) == c

    base = my_score([])

    def merit(c: int) -> tuple[int, int]:
        gain = my_score([*trick, c]) - base if wins(c) else 0
        # Equal gains: keep high cards for later, shed low ones.
        return gain, -RANK_OF[c]

    return CODES[max(legal, key=merit)]


# ----- Sore Spot: win tricks that carry no sore cards of yours, shed your sore suit ---------------


def _sore_policy(view: dict[str, Any]) -> Move:
    decision = view["decision"]
    legal = _ints(decision["legal"])
    number = sore_spot.NUMBER
    if decision["kind"] == "sore":
        # The suit I hold most of (by number) leaves the fewest of it out to hurt me; lay its cheapest card.
        def holding(suit: int) -> int:
            return sum(number[c] + 1 for c in legal if SUIT_OF[c] == suit)

        suit = max(range(4), key=holding)
        return CODES[min((c for c in legal if SUIT_OF[c] == suit), key=lambda c: number[c])]
    me = view["seat"]
    sore = [None if c is None else SUIT_OF[Card.parse(c)] for c in view["sore_cards"]]
    trick = _trick_cards(view)
    seats = [e["seat"] for e in view["trick"]["cards"]]

    def worth(cards: list[int], seat: int) -> int:
        return sum(-number[c] if SUIT_OF[c] == sore[seat] else 1 for c in cards)

    if not trick:  # leading rarely wins: lead my costliest sore card so someone else takes it
        return CODES[max(legal, key=lambda c: (SUIT_OF[c] == sore[me], number[c]))]
    best = []
    for c in legal:
        winner = sore_spot.trick_winner_index([*trick, c])
        if winner == len(trick):
            best.append(c)
    gain = worth([*trick], me)
    winning = [c for c in best if SUIT_OF[c] != sore[me]]
    if winning and gain > 0:
        return CODES[min(winning, key=lambda c: number[c])]
    losing = [c for c in legal if c not in best]
    if not losing:
        return CODES[min(legal, key=lambda c: (SUIT_OF[c] == sore[me], number[c]))]
    current = sore_spot.trick_winner_index(trick)
    victim = None if current is None else sore[seats[current]]

    def dump(c: int) -> tuple[int, int]:
        # Shed my own sore suit first, then the current winner's sore suit, high numbers first.
        return (2 if SUIT_OF[c] == sore[me] else 1 if SUIT_OF[c] == victim else 0, number[c])

    return CODES[max(losing, key=dump)]


POLICIES: dict[str, Policy] = {
    "spot-hearts": _hearts_policy(spot_hearts.POINTS),
    "card-commons": _hearts_policy(card_commons.POINTS),
    "sloppy-seconds": _sloppy_policy,
    "sore-spot": _sore_policy,
}


def heuristic_move(view: dict[str, Any]) -> Move:
    return POLICIES[view["game"]](view)
