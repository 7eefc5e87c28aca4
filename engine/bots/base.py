"""Bot interface, the random bot, epsilon mixtures and a loop that plays a whole game."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final, Protocol

from ..shapes import Decision, Move, Phase, SeatView
from ..state import GameState
from .names import describe_house_bot_names, parse_house_bot_name

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


def make_bot(name: object, seed: int | str | None = None, worlds: int | None = None) -> Bot:
    """A house bot by name: ``random``, ``heuristic``, ``eps-X`` (0 <= X <= 1), ``search`` or ``search-MS``.

    ``search`` is the search bot at its default budget; ``search-MS`` thinks at most MS milliseconds
    (1..999) per decision (:mod:`engine.bots.search`). The names are those of :mod:`engine.bots.names`.
    ``worlds`` gives a search bot the deterministic budget instead: that many worlds per decision, no
    clock (the other bots ignore it). Every bot decides from a seat view (``GameState.view(seat)``), the
    shape the API gives polling clients and the arena sends to HTTP bots.

    >>> import engine
    >>> from engine.bots import make_bot
    >>> g = engine.new_game("sore-spot", players=3, seed=2)
    >>> bot = make_bot("heuristic", seed=1)
    >>> move = bot.choose(g.view(0))
    >>> move in g.legal_moves(0)
    True
    """
    parsed = parse_house_bot_name(name)
    if parsed is None:
        raise ValueError(f"unknown house bot {name!r}; use {describe_house_bot_names()}")
    stem, number = parsed
    if stem == "random":
        return RandomBot(seed)
    if stem == "heuristic":
        return HeuristicBot(seed)
    if stem == "eps":
        return EpsilonBot(float(number or 0), seed)
    from .search import DEFAULT_BUDGET_MS, SearchBot  # late: search imports the game modules

    budget = DEFAULT_BUDGET_MS if number is None else int(number)
    return SearchBot(budget, seed, name=str(name), worlds=worlds)


def play_game(game: GameState[Any], bots: Sequence[Bot]) -> GameState[Any]:
    """Let ``bots[seat]`` play every decision of ``game`` until it is over."""
    while not game.over:
        for seat in game.to_act():
            game.apply(seat, bots[seat].choose(game.view(seat)))
    return game
