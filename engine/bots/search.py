"""The search house bot: determinized Monte Carlo (perfect-information Monte Carlo, PIMC) with heuristic
rollouts, under a wall-clock budget per decision (or a fixed number of worlds).

Design: docs/engine.md#the-search-bot-search-search-ms
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

from ..cards import CODES, SUIT_OF, Card
from ..games import card_commons, spot_hearts
from ..sampling import PASS_OFFSETS, NoWorldError, sample_world
from ..shapes import Move, SeatView
from ..worlds import margin, world_state
from .heuristics import POLICIES, Situation, decision_of, heuristic_move, pass_danger
from .rollout import HeuristicRollout, OutOfTime

T = TypeVar("T")
DEFAULT_BUDGET_MS = 250
# Share of the budget the search plans to use: the rest absorbs the last rollout step, reading the
# result and a loaded machine's scheduling delays.
SAFETY = 0.75
KEEP = 4  # the race is never pruned below this many candidates (the heuristic's move among them)
# After each of these numbers of worlds the race is halved.  A single early cut to KEEP moves after two
# worlds drops Sore Spot's best move too often (docs/engine.md, "Is it stronger?").
PRUNE_AT = (4, 12, 30)
Z = 1.0  # standard errors a move must beat the heuristic's move by (Evaluation.best) ...
MIN_PAIRED = 2  # ... in at least this many common worlds
HEARTS_POINTS = {"spot-hearts": spot_hearts.POINTS, "card-commons": card_commons.POINTS}


def move_key(move: Move) -> str:
    """A move as one string: a card code, or a pass's codes sorted and joined by spaces."""
    return move if isinstance(move, str) else " ".join(sorted(move))


def candidate_passes(view: SeatView) -> list[list[str]]:
    """The passes a search compares (hearts games): never more than 15.

    * the heuristic's pass (the three most dangerous cards, :func:`~engine.bots.heuristics.pass_danger`);
    * every three of the five most dangerous cards;
    * for each suit of one to three cards: that whole suit, topped up with the most dangerous other
      cards (voiding a suit).
    """
    points = HEARTS_POINTS[view["game"]]
    decision = decision_of(view)
    hand: list[int] = sorted((Card.parse(c) for c in decision["legal"]),
                             key=lambda c: -pass_danger(c, points))
    count = decision["count"]
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


def candidates(view: SeatView) -> list[Move]:
    """The moves a search values for this view's decision: legal cards, or :func:`candidate_passes`."""
    decision = decision_of(view)
    if decision["kind"] == "pass":
        return list(candidate_passes(view))
    return list(decision["legal"])


@dataclass
class Evaluation:
    """Values (round margin, higher is better) of each candidate in the worlds where it was played.

    ``samples[i]`` maps a world's number to candidate i's value in it; every candidate still in the
    race is played in every world, so comparisons are paired.
    """

    moves: list[Move]
    fallback: Move
    samples: list[dict[int, float]] = field(default_factory=list)
    worlds: int = 0

    def values(self) -> list[float | None]:
        """Each candidate's mean value over the worlds where it was played (None: never played)."""
        return [sum(s.values()) / len(s) if s else None for s in self.samples]

    def best_value(self) -> Move:
        """The candidate with the highest mean value (the heuristic's move on ties)."""
        values = self.values()
        if values[self._anchor()] is None:
            return self.fallback
        return self.moves[max(range(len(self.moves)), key=lambda i: (values[i] if values[i] is not None
                                                                    else -1e9, i == self._anchor()))]

    def best(self) -> Move:
        """The bot's choice: the heuristic's move unless another beats it with confidence.

        For each candidate, the paired differences with the heuristic's move over their common worlds
        (at least ``MIN_PAIRED``); the candidate with the highest lower bound ``mean - Z * standard
        error`` wins if that bound is above zero.  A search with few worlds plays like the heuristic; with
        many, like plain PIMC.
        """
        anchor = self._anchor()
        best, best_bound = anchor, 0.0
        for i, sample in enumerate(self.samples):
            if i == anchor:
                continue
            diffs = [v - self.samples[anchor][w] for w, v in sample.items() if w in self.samples[anchor]]
            if len(diffs) < MIN_PAIRED:
                continue
            mean = sum(diffs) / len(diffs)
            var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
            bound = mean - Z * (var / len(diffs)) ** 0.5
            if bound > best_bound:
                best, best_bound = i, bound
        return self.moves[best]

    def _anchor(self) -> int:
        key = move_key(self.fallback)
        return next((i for i, m in enumerate(self.moves) if move_key(m) == key), 0)


def _others_passes(view: SeatView, hands: list[list[str]]) -> dict[int, list[str]]:
    """The other seats' passes in a world: the heuristic's, from their sampled hands."""
    count, policy = decision_of(view)["count"], POLICIES[view["game"]]
    return {
        s: list(policy(Situation(view["game"], view["players"], s, "pass", count, [Card.parse(c) for c in h],
                                 )))
        for s, h in enumerate(hands)
        if s != view["seat"]
    }


def _after_pass(view: SeatView, hands: list[list[str]],
                passes: dict[int, list[str]]) -> list[list[str]]:
    n = view["players"]
    offset = PASS_OFFSETS[view["pass_direction"]]
    out = [[c for c in hands[s] if c not in passes[s]] for s in range(n)]
    for s in range(n):
        out[(s + offset) % n].extend(passes[s])
    return [sorted(h, key=Card.parse) for h in out]


# Recent cost (s) of the steps a deadline cannot interrupt, per game: rebuilding a world and copying
# one.  A step starts only if it can end before the deadline, so a loaded machine delays no answer.
_COSTS: dict[tuple[str, str], float] = {}


def _timed(game: str, step: str, deadline: float, fn: Callable[[], T]) -> T:
    key = (game, step)
    started = time.monotonic()
    if started + _COSTS.get(key, 0.0) > deadline:
        if key in _COSTS:
            _COSTS[key] *= 0.7  # a refused step is not measured: let an estimate from a slow moment fade
        raise OutOfTime
    out = fn()
    spent = time.monotonic() - started
    old = _COSTS.get(key)
    # A scheduling hiccup (one step taking many times the usual) moves the estimate only a little.
    _COSTS[key] = spent if old is None else 0.8 * old + 0.2 * min(spent, 3 * old)
    return out


def evaluate(view: SeatView, budget_s: float, rng: random.Random,
             moves: list[Move] | None = None, min_worlds: int = 0, prune: bool = True,
             worlds: int | None = None) -> Evaluation:
    """Value every candidate move of ``view``'s decision in as many sampled worlds as ``budget_s`` allows.

    With ``prune``, after each number of worlds in ``PRUNE_AT`` the heuristic's move and the best half
    of the others stay in the race, never fewer than ``KEEP`` moves in all (the analysis values every
    candidate in every world: ``prune=False``).

    ``min_worlds`` (analysis, never a bot under a deadline): keep going past the budget until that
    many worlds have a value for every candidate.

    ``worlds`` (the deterministic budget): exactly that many worlds, no clock at all, so that the same
    ``rng`` seed gives the same evaluation on any machine under any load; ``budget_s`` is then ignored.
    """
    end = time.monotonic() + budget_s * SAFETY if worlds is None else float("inf")
    deadline = end if min_worlds <= 0 else float("inf")
    moves = list(moves if moves is not None else candidates(view))
    fallback = heuristic_move(view)
    if move_key(fallback) not in {move_key(m) for m in moves}:
        moves.append(fallback)
    ev = Evaluation(moves, fallback, [{} for _ in moves])
    if len(moves) < 2:
        return ev
    seat, game = view["seat"], view["game"]
    is_pass = decision_of(view)["kind"] == "pass"
    anchor = ev._anchor()
    active = list(range(len(moves)))
    last_world_s = 0.0
    while (time.monotonic() + last_world_s < deadline if worlds is None else ev.worlds < worlds):
        started = time.monotonic()
        try:
            hands = sample_world(view, rng)
        except NoWorldError:
            break
        # The heuristic's move first, then the others from a different start each world: a world the
        # deadline cuts short still pairs some candidates with the heuristic's move.
        others = [i for i in active if i != anchor]
        shift = ev.worlds % len(others) if others else 0
        order = [anchor, *others[shift:], *others[:shift]]
        world = ev.worlds
        try:
            if is_pass:
                passes = _others_passes(view, hands)
                for i in order:
                    after = _after_pass(view, hands, {**passes, seat: list(moves[i])})
                    w = _timed(game, "world", deadline, partial(world_state, view, after))
                    ev.samples[i][world] = margin(game, HeuristicRollout(w).play_round(w, deadline), seat)
            else:
                base = _timed(game, "world", deadline, partial(world_state, view, hands))
                for k, i in enumerate(order):
                    w = base if k == len(order) - 1 else _timed(game, "copy", deadline, base.copy)
                    w.apply(seat, moves[i])
                    ev.samples[i][world] = margin(game, HeuristicRollout(w).play_round(w, deadline), seat)
        except OutOfTime:
            if world in ev.samples[anchor]:
                ev.worlds += 1  # a partial world: the candidates it reached are paired with the anchor
            break
        ev.worlds += 1
        last_world_s = time.monotonic() - started  # what the next world will cost, roughly
        if prune and ev.worlds in PRUNE_AT and len(active) > KEEP:
            keep = max(KEEP, (len(active) + 1) // 2)
            last_world_s *= keep / len(active)
            active = _keep_best(ev, active, keep)
        if ev.worlds >= min_worlds:
            deadline = end
    return ev


def _keep_best(ev: Evaluation, active: list[int], keep: int) -> list[int]:
    """The heuristic's move and the ``keep - 1`` others with the best mean so far (unplayed ones last)."""
    anchor = ev._anchor()
    values = ev.values()
    others = sorted((i for i in active if i != anchor),
                    key=lambda i: -v if (v := values[i]) is not None else float("inf"))
    return sorted([anchor, *others[: keep - 1]])


class SearchBot:
    """PIMC with heuristic rollouts under a per-decision wall-clock budget (docs/engine.md, "The search
    bot").

    ``worlds``: the deterministic budget, exactly that many worlds per decision and no clock (duels and
    tests that must give the same games on any machine; the arena's bots keep their time budget).

    >>> import engine
    >>> g = engine.new_game("sore-spot", players=3, seed=2)
    >>> bot = SearchBot(budget_ms=20, seed=1)
    >>> bot.choose(g.view(0)) in g.legal_moves(0)
    True
    """

    def __init__(self, budget_ms: int = DEFAULT_BUDGET_MS, seed: int | str | None = None,
                 name: str | None = None, worlds: int | None = None) -> None:
        self.budget_ms = budget_ms
        self.worlds = worlds
        self.name = name or f"search-{budget_ms}"
        self.rng = random.Random(seed)

    def choose(self, view: SeatView) -> Move:
        return evaluate(view, self.budget_ms / 1000, self.rng, worlds=self.worlds).best()
