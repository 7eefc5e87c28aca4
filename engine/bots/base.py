"""Bot interface, the random bot, epsilon mixtures and a loop that plays a whole game."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any, Final, Protocol

from ..shapes import Decision, Move, Phase, SeatView
from ..state import GameState

PLAY: Final = Phase.PLAY
PASS: Final = Phase.PASS


class Bot(Protocol):
    name: str

    def choose(self, view: SeatView) -> Move: ...


def choose_random(rng: random.Random, decision: Decision | None) -> Move:
    """The random policy, defined exactly so that a benchmark run is reproducible.

    A play or sore card: ``legal[int(rng.random() * len(legal))]``.  A pass: that draw
    three times without replacement from the legal cards in order.
    """
    if decision is None:
        raise ValueError("this seat has nothing to decide now")
    legal = decision["legal"]
    kind = decision["kind"]
    # The engine's decisions carry the Phase member, so identity settles a play before any text is
    # compared (a decision read from JSON has "pass", equal to PASS). float(len(...)): the same product
    # as with the int, which compiled code multiplies as machine floats.
    if kind is PLAY or kind != PASS:
        return legal[int(rng.random() * float(len(legal)))]
    pool = list(legal)
    picked = [pool.pop(int(rng.random() * float(len(pool)))) for _ in range(decision["count"])]
    return picked


class RandomBot:
    name = "random"

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: SeatView) -> Move:
        return choose_random(self.rng, view["decision"])


class EpsilonBot:
    """The game's heuristic, but a uniformly random legal move with probability ``epsilon``.

    ``eps-0.0`` is the heuristic and ``eps-1.0`` plays like ``random``: a graded scale of strength.
    """

    def __init__(self, epsilon: float, seed: int | str | None = None) -> None:
        self.epsilon = epsilon
        self.name = f"eps-{epsilon:g}"
        self.rng = random.Random(seed)

    def choose(self, view: SeatView) -> Move:
        from .heuristics import heuristic_move  # late: heuristics import game modules

        if self.rng.random() < self.epsilon:
            return choose_random(self.rng, view["decision"])
        return heuristic_move(view)


class HeuristicBot(EpsilonBot):
    name = "heuristic"

    def __init__(self, seed: int | str | None = None) -> None:
        super().__init__(0.0, seed)
        self.name = "heuristic"


BOT_NAMES = (
    "random",
    "heuristic",
    "eps-0.1",
    "eps-0.2",
    "eps-0.3",
    "eps-0.4",
    "eps-0.5",
    "eps-0.6",
    "eps-0.7",
    "eps-0.8",
    "eps-0.9",
    "search",
    "search-5",
    "search-10",
    "search-50",
)
_EPS = re.compile(r"^eps-(0(\.\d+)?|1(\.0+)?)$")
_SEARCH = re.compile(r"^search-([1-9]\d{0,2})$")  # search-1 .. search-999: stays inside a 1 s deadline


def make_bot(name: object, seed: int | str | None = None) -> Bot:
    """A house bot by name: ``random``, ``heuristic``, ``eps-X`` (0 <= X <= 1), ``search`` or ``search-MS``.

    ``search`` is the search bot at its default budget; ``search-MS`` thinks at most MS milliseconds
    (1..999) per decision (:mod:`engine.bots.search`).
    """
    if name == "random":
        return RandomBot(seed)
    if name == "heuristic":
        return HeuristicBot(seed)
    if isinstance(name, str) and _EPS.match(name):
        return EpsilonBot(float(name[4:]), seed)
    if isinstance(name, str) and (name == "search" or _SEARCH.match(name)):
        from .search import DEFAULT_BUDGET_MS, SearchBot  # late: search imports the game modules

        budget = DEFAULT_BUDGET_MS if name == "search" else int(name[7:])
        return SearchBot(budget, seed, name=name)
    raise ValueError(
        f"unknown house bot {name!r}; use random, heuristic, eps-0.1 .. eps-0.9, search or search-MS (1..999)"
    )


def play_game(game: GameState[Any], bots: Sequence[Bot]) -> GameState[Any]:
    """Let ``bots[seat]`` play every decision of ``game`` until it is over."""
    while not game.over:
        for seat in game.to_act():
            game.apply(seat, bots[seat].choose(game.view(seat)))
    return game
