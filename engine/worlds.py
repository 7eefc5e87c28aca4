"""Determinized worlds: a playable game rebuilt from one seat's view and a guess of the hidden hands, through
the public API only, and :func:`margin`, the score a search gives a world.

Design: docs/engine.md#worlds-copies-margins-engineworlds
"""

from __future__ import annotations

from typing import Any

from .cards import CODES
from .game import new_game, rules_for
from .sampling import played_this_round
from .shapes import SeatView
from .state import GameState


def world_state(view: SeatView, hands: list[list[str]]) -> GameState[Any]:
    """The game at ``view``'s point of the round, with ``hands`` (current, seat order) as everyone's cards.

    ``view`` is a seat view in the ``sore`` or ``play`` phase, or in the ``pass`` phase with ``hands``
    already after the pass (the caller resolves passes, which are simultaneous and hidden).

    >>> import random, engine
    >>> from engine.sampling import sample_world
    >>> g = engine.new_game("sloppy-seconds", players=3, seed=4)
    >>> g.apply(1, g.legal_moves(1)[0])
    >>> w = world_state(g.view(2), sample_world(g.view(2), random.Random(0)))
    >>> w.view(2)["hand"] == g.view(2)["hand"], w.to_act() == g.to_act()
    (True, True)
    """
    game, n = view["game"], view["players"]
    rules = rules_for(game)
    plays = played_this_round(view)
    start = [list(h) for h in hands]
    for _, seat, c in plays:
        start[seat].append(CODES[c])
    sore = [c for c in view.get("sore_cards") or [] if c is not None]
    if sore:
        for seat, code in enumerate(view["sore_cards"]):
            if code is not None:
                start[seat].append(code)
    passes: list[list[str]] | None = None
    if rules.pass_offset(n, 0) not in (None, 0):
        # Round 0 of the world passes left: a stand-in pass that yields exactly these hands.
        passes = [sorted(start[(s + 1) % n])[:rules.pass_count] for s in range(n)]
        after = start
        start = [
            [c for c in after[s] if c not in passes[(s - 1) % n]] + passes[s] for s in range(n)
        ]
    options = dict(view["options"])
    # The seed only deals the rounds after this one, which a search never plays.
    world = new_game(game, n, options, seed=0, deals=[{"dealer": view["dealer"], "hands": start}])
    if passes is not None:
        for s in range(n):
            world.apply(s, passes[s])
    if sore:
        for s in range(n):
            world.apply(s, view["sore_cards"][s])
    elif view["phase"] == "sore" and view.get("chosen"):
        world.apply(view["seat"], view["chosen"][0])  # its own secret card; the others' stay undecided
    for _, seat, c in plays:
        world.apply(seat, CODES[c])
    return world


def margin(game: str, points: list[int], seat: int) -> float:
    """``seat``'s points minus the mean of the others', signed so that higher is better.

    >>> margin("spot-hearts", [25, 0, 40, 64], 1)
    43.0
    >>> margin("sloppy-seconds", [30, 5, 10, 5], 0)
    23.333333333333332
    """
    others = (sum(points) - points[seat]) / (len(points) - 1)
    diff = points[seat] - others
    return -diff if rules_for(game).low_wins else float(diff)
