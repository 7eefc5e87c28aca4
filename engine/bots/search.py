"""The search house bot: determinized Monte Carlo (perfect-information Monte Carlo, PIMC).

For one decision, until its wall-clock budget is spent, the bot repeats:

1. draw a world: the hidden hands dealt at random within everything the seat's view shows
   (:func:`engine.sampling.sample_world`; never the real hidden cards);
2. rebuild the game at this point of the round in that world (:func:`engine.worlds.world_state`);
3. for every candidate move, play it in a copy of the world and finish the round with the heuristic in
   every seat (:class:`engine.bots.rollout.HeuristicRollout`); score it with
   :func:`engine.worlds.margin` (the seat's round points minus the others' mean, higher is better).

Every candidate is played in the same worlds (a world counts only once all candidates have a value in
it); the move with the best mean wins, the heuristic's own move on ties and when no world finished in
time.  Candidates are every legal card for a play or a sore card; for a pass, the set
:func:`candidate_passes` documents.  A move with a single legal choice is returned at once.

The budget is a deadline on ``time.monotonic()`` at 75 % of the budget, checked before each world,
each candidate and every rollout step: on a loaded machine the bot plays fewer worlds, never later.
The other 25 % absorb the step in progress and the scheduler's delays on a busy machine.

>>> import engine
>>> g = engine.new_game("sore-spot", players=3, seed=2)
>>> bot = SearchBot(budget_ms=20, seed=1)
>>> bot.choose(g.view(0)) in g.legal_moves(0)
True
"""

from __future__ import annotations

import itertools
import random
import time
from dataclasses import dataclass, field
from typing import Any

from ..cards import CODES, SUIT_OF, Card
from ..games import card_commons, spot_hearts
from ..rules import DIRECTION_NAMES
from ..sampling import NoWorldError, sample_world
from ..state import Move
from ..worlds import clone, margin, world_state
from .heuristics import POLICIES, Situation, heuristic_move, pass_danger
from .rollout import HeuristicRollout, OutOfTime

DEFAULT_BUDGET_MS = 250
# Share of the budget the search plans to use: the rest absorbs the last rollout step, reading the
# result and a loaded machine's scheduling delays.
SAFETY = 0.75
HEARTS_POINTS = {"spot-hearts": spot_hearts.POINTS, "card-commons": card_commons.POINTS}
_OFFSETS = {name: offset for offset, name in DIRECTION_NAMES.items()}


def move_key(move: Move) -> str:
    """A move as one string: a card code, or a pass's codes sorted and joined by spaces."""
    return move if isinstance(move, str) else " ".join(sorted(move))


def candidate_passes(view: dict[str, Any]) -> list[list[str]]:
    """The passes a search compares (hearts games): never more than 15.

    * the heuristic's pass (the three most dangerous cards, :func:`~engine.bots.heuristics.pass_danger`);
    * every three of the five most dangerous cards;
    * for each suit of one to three cards: that whole suit, topped up with the most dangerous other
      cards (voiding a suit).
    """
    points = HEARTS_POINTS[view["game"]]
    hand = sorted((Card.parse(c) for c in view["decision"]["legal"]), key=lambda c: -pass_danger(c, points))
    count = view["decision"]["count"]
    found: dict[str, list[str]] = {}

    def add(cards: list[int]) -> None:
        move = sorted(CODES[c] for c in cards)
        found.setdefault(move_key(move), move)

    add(hand[:count])
    for trio in itertools.combinations(hand[:5], count):
        add(list(trio))
    for suit in range(4):
        cards = [c for c in hand if SUIT_OF[c] == suit]
        if 0 < len(cards) <= count:
            add(cards + [c for c in hand if SUIT_OF[c] != suit][: count - len(cards)])
    return list(found.values())


def candidates(view: dict[str, Any]) -> list[Move]:
    """The moves a search values for this view's decision: legal cards, or :func:`candidate_passes`."""
    decision = view["decision"]
    if decision["kind"] == "pass":
        return list(candidate_passes(view))
    return list(decision["legal"])


@dataclass
class Evaluation:
    """Mean value (round margin, higher is better) of each candidate over ``worlds`` sampled worlds."""

    moves: list[Move]
    totals: list[float] = field(default_factory=list)
    worlds: int = 0
    fallback: Move | None = None

    def values(self) -> list[float | None]:
        return [t / self.worlds if self.worlds else None for t in self.totals]

    def best(self) -> Move:
        if not self.worlds:
            return self.fallback if self.fallback is not None else self.moves[0]
        fallback = move_key(self.fallback) if self.fallback is not None else None
        i = max(range(len(self.moves)), key=lambda i: (self.totals[i], move_key(self.moves[i]) == fallback))
        return self.moves[i]


def _others_passes(view: dict[str, Any], hands: list[list[str]]) -> dict[int, list[str]]:
    """The other seats' passes in a world: the heuristic's, from their sampled hands."""
    count, policy = view["decision"]["count"], POLICIES[view["game"]]
    return {
        s: list(policy(Situation(view["game"], view["players"], s, "pass", count, [Card.parse(c) for c in h],
                                 )))
        for s, h in enumerate(hands)
        if s != view["seat"]
    }


def _after_pass(view: dict[str, Any], hands: list[list[str]],
                passes: dict[int, list[str]]) -> list[list[str]]:
    n = view["players"]
    offset = _OFFSETS[view["pass_direction"]]
    out = [[c for c in hands[s] if c not in passes[s]] for s in range(n)]
    for s in range(n):
        out[(s + offset) % n].extend(passes[s])
    return [sorted(h, key=Card.parse) for h in out]


def _check(deadline: float) -> None:
    if time.monotonic() > deadline:
        raise OutOfTime


def evaluate(view: dict[str, Any], budget_s: float, rng: random.Random,
             moves: list[Move] | None = None, min_worlds: int = 0) -> Evaluation:
    """Value every candidate move of ``view``'s decision in as many sampled worlds as ``budget_s`` allows.

    ``min_worlds`` (analysis, never a bot under a deadline): keep going past the budget until that
    many worlds have a value for every candidate.
    """
    end = time.monotonic() + budget_s * SAFETY
    deadline = end if min_worlds <= 0 else float("inf")
    moves = list(moves if moves is not None else candidates(view))
    ev = Evaluation(moves, [0.0] * len(moves), fallback=heuristic_move(view))
    if len(moves) < 2:
        return ev
    seat, game = view["seat"], view["game"]
    is_pass = view["decision"]["kind"] == "pass"
    last_world_s = 0.0
    while time.monotonic() + last_world_s < deadline:
        started = time.monotonic()
        try:
            hands = sample_world(view, rng)
        except NoWorldError:
            break
        try:
            if is_pass:
                others = _others_passes(view, hands)
                results = []
                for m in moves:
                    _check(deadline)
                    w = world_state(view, _after_pass(view, hands, {**others, seat: list(m)}))
                    results.append(HeuristicRollout(w).play_round(w, deadline))
            else:
                base = world_state(view, hands)
                results = []
                for i, m in enumerate(moves):
                    _check(deadline)
                    w = base if i == len(moves) - 1 else clone(base)
                    w.apply(seat, m)
                    results.append(HeuristicRollout(w).play_round(w, deadline))
        except OutOfTime:
            break
        for i, points in enumerate(results):
            ev.totals[i] += margin(game, points, seat)
        ev.worlds += 1
        last_world_s = time.monotonic() - started
        if ev.worlds >= min_worlds:
            deadline = end
    return ev


class SearchBot:
    """PIMC with heuristic rollouts under a per-decision wall-clock budget (see the module docstring)."""

    def __init__(self, budget_ms: int = DEFAULT_BUDGET_MS, seed: int | str | None = None,
                 name: str | None = None) -> None:
        self.budget_ms = budget_ms
        self.name = name or f"search-{budget_ms}"
        self.rng = random.Random(seed)

    def choose(self, view: dict[str, Any]) -> Move:
        return evaluate(view, self.budget_ms / 1000, self.rng).best()
