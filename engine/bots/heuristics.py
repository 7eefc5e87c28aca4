"""Per-game heuristic policies: simple, explainable, and clearly better than random. Each decides from a
:class:`Situation`, built from a seat view by :func:`heuristic_move` or kept up to date by the rollouts.

Design: docs/engine.md#house-bots
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from ..cards import CODES, RANK_OF, SUIT_OF, SUITS, Card
from ..games import card_commons, sloppy_seconds, sore_spot, spot_hearts
from ..rules import QUEEN_OF_SPADES, TWO_OF_CLUBS
from ..shapes import Decision, Move, SeatView


@dataclass
class Situation:
    """One seat's decision in card ints: everything a heuristic policy reads."""

    game: str
    players: int
    seat: int
    kind: str  # "play", "pass" or "sore"
    count: int
    legal: list[int]
    trick: list[int] = field(default_factory=list)
    trick_seats: list[int] = field(default_factory=list)
    won: list[list[int]] = field(default_factory=list)  # Sloppy Seconds: per seat, per suit, values won
    broken: list[int] = field(default_factory=list)  # Sloppy Seconds: suits broken, in order
    trump: int | None = None  # Sloppy Seconds
    sore: list[int | None] = field(default_factory=list)  # Sore Spot: each seat's sore suit, once laid
    played: list[int] = field(default_factory=list)  # Sloppy Seconds: the cards of finished tricks


Policy = Callable[[Situation], Move]


def decision_of(view: SeatView) -> Decision:
    """The seat's pending decision (ValueError when it has none)."""
    decision = view["decision"]
    if decision is None:
        raise ValueError("this seat has nothing to decide now")
    return decision


def situation(view: SeatView) -> Situation:
    """The :class:`Situation` of a seat view's decision."""
    decision = decision_of(view)
    n = view["players"]
    sit = Situation(
        game=view["game"], players=n, seat=view["seat"], kind=decision["kind"], count=decision["count"],
        legal=[Card.parse(c) for c in decision["legal"]],
        trick=[Card.parse(e["card"]) for e in view["trick"]["cards"]],
        trick_seats=[e["seat"] for e in view["trick"]["cards"]],
    )
    if view["game"] == "sloppy-seconds":
        sit.won = [[0] * 4 for _ in range(n)]
        for t in view["tricks"]:
            winner = t["winner"]
            if winner is None:
                continue
            for code in t["cards"]:
                c = Card.parse(code)
                sit.won[winner][SUIT_OF[c]] += sloppy_seconds.VALUE[c]
                sit.played.append(c)
        sit.broken = [SUITS.index(s) for s in view.get("broken", [])]
        trump = view.get("trump")
        sit.trump = None if trump is None else SUITS.index(trump)
    if view["game"] == "sore-spot":
        sit.sore = [None if c is None else SUIT_OF[Card.parse(c)] for c in view["sore_cards"]]
    return sit


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
    def policy(sit: Situation) -> Move:
        legal = sit.legal
        if sit.kind == "pass":
            worst = sorted(legal, key=lambda c: pass_danger(c, points), reverse=True)[: sit.count]
            return [CODES[c] for c in worst]
        trick = sit.trick
        if not trick:  # lead the lowest card, hearts last
            return CODES[min(legal, key=lambda c: (points[c] > 0, RANK_OF[c]))]
        led = SUIT_OF[trick[0]]
        if SUIT_OF[legal[0]] != led:  # void: dump the costliest, then the highest card
            return CODES[max(legal, key=lambda c: (points[c], RANK_OF[c]))]
        high = max(RANK_OF[c] for c in trick if SUIT_OF[c] == led)
        under = [c for c in legal if RANK_OF[c] < high]
        if under:  # duck as high as possible
            return CODES[max(under, key=lambda c: RANK_OF[c])]
        last = len(trick) == sit.players - 1
        safe = [c for c in legal if c != QUEEN_OF_SPADES]
        if last and not any(points[c] for c in trick):
            return CODES[max(safe or legal, key=lambda c: RANK_OF[c])]
        return CODES[min(safe or legal, key=lambda c: RANK_OF[c])]

    return policy


# ----- Sloppy Seconds: play for second place in every suit ---------------------------------------

# R-SL-RANK: the points in one suit of a full deck (Ace 1 … King 13: 91)
SLOPPY_SUIT_POINTS = sum(v for c, v in enumerate(sloppy_seconds.VALUE) if SUIT_OF[c] == SUIT_OF[0])
SPREAD = 0.25  # a suit's final totals may still move by this much per point of it still out (plus 1)


def sloppy_trick_winner(cards: list[int], trump: int | None, broken: list[int]) -> tuple[int, int | None]:
    """(index of the winning card, trump after the trick) for a trick so far, breaking suits as played.

    >>> sloppy_trick_winner([Card.parse(c) for c in ["9D", "4H", "KD", "2S"]], None, [])
    (3, 3)
    """
    led = SUIT_OF[cards[0]]
    broken = list(broken)
    for c in cards[1:]:
        suit = SUIT_OF[c]
        if suit != led and suit not in broken:
            broken.append(suit)
            if len(broken) == 2 and trump is None:
                trump = suit

    def strength(x: int) -> int:
        return RANK_OF[x] + (100 if SUIT_OF[x] == trump else 50 if SUIT_OF[x] == led else 0)

    return max(range(len(cards)), key=lambda i: strength(cards[i])), trump


def suit_outlook(totals: list[int], me: int, out: int) -> float:
    """What one suit is worth to seat ``me``: its total times the chance that it ends *second*.

    With ``out`` points of the suit still to be won, each other seat ends above me with a logistic chance
    in (its total - mine) / (SPREAD * out + 1); exactly one above me is second place.  With nothing out
    it is the suit's score (R-SL-SECOND).

    >>> suit_outlook([40, 30, 0, 0], 1, 0), suit_outlook([40, 30, 0, 0], 0, 0)
    (30.0, 0.0)
    >>> round(suit_outlook([20, 10, 0, 0], 1, 40), 1), round(suit_outlook([20, 10, 0, 0], 0, 40), 1)
    (4.8, 7.7)
    """
    mine = totals[me]
    if out == 0:
        return float(sloppy_seconds.second_place_scores(totals)[me])
    if mine == 0:
        return 0.0
    spread = SPREAD * out + 1.0
    above = [1.0 / (1.0 + math.exp((mine - t) / spread)) for s, t in enumerate(totals) if s != me]
    second = 0.0
    for j, p in enumerate(above):
        only = p
        for k, q in enumerate(above):
            if k != j:
                only *= 1.0 - q
        second += only
    return second * mine


def sloppy_outlook(won: list[list[int]], me: int, suit: int, players: int) -> float:
    """:func:`suit_outlook` of ``suit`` for the winnings ``won`` (per seat, per suit)."""
    totals = [w[suit] for w in won]
    two_out = players == 3 and suit == SUIT_OF[TWO_OF_CLUBS]  # R-SL-DEAL: the 2♣ is out with 3 players
    full = SLOPPY_SUIT_POINTS - (sloppy_seconds.VALUE[TWO_OF_CLUBS] if two_out else 0)
    return suit_outlook(totals, me, full - sum(totals))


def sloppy_lead_merit(sit: Situation, now: list[float]) -> Callable[[int], tuple[float, int]]:
    """How good a lead is: the change in the outlook of its suit once the trick is won, each follower
    adding the mean value of that suit's unseen cards.  A lead above every unseen card of its suit
    is taken by the seat; any other lead by an opponent, each as likely."""
    me, n, value = sit.seat, sit.players, sloppy_seconds.VALUE
    seen = set(sit.played) | set(sit.legal)  # on lead every card in hand is legal
    # Per suit, over its unseen cards: how many, their points and their highest rank (-1: none).
    count, points_out, top = [0] * 4, [0] * 4, [-1] * 4
    for x in range(52):
        if x not in seen and not (n == 3 and x == TWO_OF_CLUBS):
            suit = SUIT_OF[x]
            count[suit] += 1
            points_out[suit] += value[x]
            top[suit] = max(top[suit], RANK_OF[x])

    def merit(c: int) -> tuple[float, int]:
        suit, out = SUIT_OF[c], count[SUIT_OF[c]]
        points = value[c]
        if out:
            points += round(min(n - 1, out) * points_out[suit] / out)
        takers = [me] if top[suit] < RANK_OF[c] else [s for s in range(n) if s != me]
        gain = 0.0
        for taker in takers:
            won = [list(w) for w in sit.won]
            won[taker][suit] += points
            gain += sloppy_outlook(won, me, suit, n) - now[suit]
        return gain / len(takers), -RANK_OF[c]

    return merit


def _sloppy_policy(sit: Situation) -> Move:
    """Play the card with the best outlook after the trick goes where it would go now (exact when playing
    last), the lower card among equal outlooks; lead by :func:`sloppy_lead_merit`.

    The outlook (:func:`suit_outlook`) credits a suit's points by the chance they end second, so the seat
    takes cards where it trails a suit's leader and feeds cards to a leader that is out of reach.  A card
    is valued by the change in the outlook of the suits its trick holds: the others do not change.
    """
    me, n, value = sit.seat, sit.players, sloppy_seconds.VALUE
    now = [sloppy_outlook(sit.won, me, suit, n) for suit in range(4)]
    if not sit.trick:
        return CODES[max(sit.legal, key=sloppy_lead_merit(sit, now))]

    def merit(c: int) -> tuple[float, int]:
        cards = [*sit.trick, c]
        seats = [*sit.trick_seats, me]
        index, _ = sloppy_trick_winner(cards, sit.trump, sit.broken)
        won = [list(w) for w in sit.won]
        suits: list[int] = []
        for x in cards:
            won[seats[index]][SUIT_OF[x]] += value[x]
            if SUIT_OF[x] not in suits:
                suits.append(SUIT_OF[x])
        return sum(sloppy_outlook(won, me, suit, n) - now[suit] for suit in suits), -RANK_OF[c]

    return CODES[max(sit.legal, key=merit)]


# ----- Sore Spot: win tricks that carry no sore cards of yours, shed your sore suit ---------------


def _sore_policy(sit: Situation) -> Move:
    legal = sit.legal
    number = sore_spot.NUMBER
    if sit.kind == "sore":
        # The suit I hold most of (by number) leaves the fewest of it out to hurt me; lay its cheapest card.
        def holding(suit: int) -> int:
            return sum(number[c] + 1 for c in legal if SUIT_OF[c] == suit)

        suit = max(range(4), key=holding)
        return CODES[min((c for c in legal if SUIT_OF[c] == suit), key=lambda c: number[c])]
    me, sore, trick, seats = sit.seat, sit.sore, sit.trick, sit.trick_seats

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


def heuristic_move(view: SeatView) -> Move:
    """The game's heuristic move for a seat view.

    >>> import engine
    >>> g = engine.new_game("spot-hearts", players=4, seed=1)
    >>> heuristic_move(g.view(0))          # pass the three most dangerous cards
    ['AH', 'KC', 'KD']
    """
    return POLICIES[view["game"]](situation(view))
