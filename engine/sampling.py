"""Guessing the hidden cards from one seat's view: :func:`knowledge` collects what the view and the rules tell
about the other hands, :func:`sample_world` deals the unseen cards within those limits.

Design: docs/engine.md#enginesample_worldview-rng
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from .cards import CODES, HEARTS, SUIT_OF, Card
from .game import rules_for
from .games.hearts import HeartsFamily
from .rules import DIRECTION_NAMES, QUEEN_OF_SPADES
from .shapes import SeatView

PASS_OFFSETS = {name: offset for offset, name in DIRECTION_NAMES.items()}  # "left" -> 1, ...
_GREEDY_TRIES = 20


class NoWorldError(ValueError):
    """The view admits no deal of the unseen cards (a view that no game could have produced)."""


@dataclass(frozen=True)
class Knowledge:
    """What one seat knows about every hand, read from its view.

    ``fixed[s]``: cards known to be in seat s's hand now; ``allowed[s]``: unseen cards seat s may
    hold; ``sizes[s]``: how many cards seat s holds; ``unseen``: cards in the other hands.
    """

    seat: int
    sizes: tuple[int, ...]
    fixed: tuple[frozenset[int], ...]
    allowed: tuple[frozenset[int], ...]
    unseen: frozenset[int]


def played_this_round(view: SeatView) -> list[tuple[int, int, int]]:
    """``(trick number, seat, card)`` for every card played this round, in order."""
    n = view["players"]
    out: list[tuple[int, int, int]] = []
    for t, trick in enumerate(view["tricks"]):
        for i, code in enumerate(trick["cards"]):
            out.append((t, (trick["leader"] + i) % n, Card.parse(code)))
    for entry in view["trick"]["cards"]:
        out.append((len(view["tricks"]), entry["seat"], Card.parse(entry["card"])))
    return out


def knowledge(view: SeatView) -> Knowledge:
    """Collect what ``view``'s seat knows about every hand (docs/engine.md, "Search primitives")."""
    game, n, me = view["game"], view["players"], view["seat"]
    deck = set(rules_for(game).deck(n, view["options"]))
    mine = {Card.parse(c) for c in view["hand"]}
    plays = played_this_round(view)
    gone = {c for _, _, c in plays}
    gone |= {Card.parse(c) for c in view.get("sore_cards") or [] if c is not None}
    unseen = frozenset(deck - mine - gone)
    allowed = [set(unseen) for _ in range(n)]
    allowed[me] = set()
    follows = game != "sore-spot"
    by_trick: dict[int, list[tuple[int, int]]] = {}
    for t, seat, c in plays:
        by_trick.setdefault(t, []).append((seat, c))
    broken = False  # Spot Hearts: a heart or the Q♠ has been played this round
    for t in sorted(by_trick):
        cards = by_trick[t]
        lead_seat, lead = cards[0]
        led = SUIT_OF[lead]
        if game == "spot-hearts" and t > 0 and SUIT_OF[lead] == HEARTS and not broken:
            allowed[lead_seat] &= {c for c in unseen if SUIT_OF[c] == HEARTS}  # R-SH-BREAK
        for seat, c in cards[1:]:
            if follows and SUIT_OF[c] != led:
                allowed[seat] -= {x for x in unseen if SUIT_OF[x] == led}
                if game == "spot-hearts" and t == 0 and _penalty(c):
                    allowed[seat] &= {x for x in unseen if _penalty(x)}  # R-SH-FIRST
        broken = broken or any(_penalty(c) for _, c in cards)
    fixed: list[set[int]] = [set() for _ in range(n)]
    fixed[me] = set(mine)
    rules = rules_for(game)
    if isinstance(rules, HeartsFamily) and view["phase"] == "play" and not plays:
        opener = rules.opening_card(n)  # the seat to lead the round's first trick holds its opening card
        if opener in unseen:
            fixed[view["to_act"][0]].add(opener)
    if view.get("passed") and view.get("pass_direction") in PASS_OFFSETS:
        target = (me + PASS_OFFSETS[view["pass_direction"]]) % n
        for c in (Card.parse(x) for x in view["passed"]):
            if c in unseen:
                fixed[target].add(c)
    for s in range(n):
        if s != me:
            allowed[s] -= fixed[s]
    return Knowledge(
        seat=me,
        sizes=tuple(view["hand_sizes"]),
        fixed=tuple(frozenset(f) for f in fixed),
        allowed=tuple(frozenset(a) for a in allowed),
        unseen=unseen,
    )


def _penalty(c: int) -> bool:
    return SUIT_OF[c] == HEARTS or c == QUEEN_OF_SPADES


def deal_unseen(know: Knowledge, rng: random.Random) -> list[list[int]]:
    """Every seat's hand (card ints, sorted): the known cards plus the unseen ones dealt within the limits.

    Cards go out most-constrained first, each to a seat allowed to hold it, chosen with weight equal to
    the room left in that hand.  A dead end starts again; after ``_GREEDY_TRIES`` of them the deal checks
    Hall's condition before each card (so it cannot get stuck).  Every consistent deal has a positive
    chance.  Raises :class:`NoWorldError` when no deal fits.
    """
    n = len(know.sizes)
    free = sorted(know.unseen - set().union(*know.fixed))
    options = {c: [s for s in range(n) if c in know.allowed[s]] for c in free}
    room0 = [know.sizes[s] - len(know.fixed[s]) for s in range(n)]
    if any(r < 0 for r in room0) or sum(room0) != len(free):
        raise NoWorldError(f"hand sizes {list(know.sizes)} do not fit {len(free)} unseen cards")
    masks = {c: sum(1 << s for s in options[c]) for c in free}
    if not _hall(Counter(masks.values()), room0):
        raise NoWorldError("no deal of the unseen cards fits what this view shows")
    for attempt in range(_GREEDY_TRIES + 1):
        checked = attempt == _GREEDY_TRIES
        order = sorted(free, key=lambda c: (len(options[c]), rng.random()))
        room = list(room0)
        left = Counter(masks.values())
        hands = [sorted(f) for f in know.fixed]
        for c in order:
            left[masks[c]] -= 1
            seats = [s for s in options[c] if room[s] > 0]
            while seats:
                pick = rng.random() * sum(room[s] for s in seats)
                for s in seats:
                    pick -= room[s]
                    if pick < 0:
                        break
                room[s] -= 1
                if not checked or _hall(left, room):
                    break
                room[s] += 1
                seats.remove(s)
            if not seats:
                break
            hands[s].append(c)
        else:
            return [sorted(h) for h in hands]
    raise NoWorldError("no deal of the unseen cards fits what this view shows")


def _hall(cards_by_mask: Counter[int], room: list[int]) -> bool:
    """Hall's condition: for every set of seats, the cards that only those seats may hold fit their room."""
    n = len(room)
    for seats in range(1, 1 << n):
        need = sum(k for mask, k in cards_by_mask.items() if k and mask & ~seats == 0)
        if need > sum(room[s] for s in range(n) if seats >> s & 1):
            return False
    return True


def sample_world(view: SeatView, rng: random.Random) -> list[list[str]]:
    """Full hands (card codes, seat order) for every seat, consistent with everything ``view`` shows.

    The view's own hand is returned as it is; the other hands hold the unseen cards (see
    :func:`knowledge` for the limits).  Only the view is read: no hidden state, no seed.

    >>> import random, engine
    >>> g = engine.new_game("spot-hearts", players=4, seed=5)
    >>> world = sample_world(g.view(2), random.Random(0))
    >>> world[2] == g.view(2)["hand"], len(set(sum(world, [])))
    (True, 52)
    >>> g = engine.new_game("sloppy-seconds", players=4, seed=3)
    >>> hands = sample_world(g.view(0), random.Random(1))
    >>> hands[0] == g.view(0)["hand"], [len(h) for h in hands]
    (True, [13, 13, 13, 13])
    """
    return [[CODES[c] for c in hand] for hand in deal_unseen(knowledge(view), rng)]
