"""The one encoder: a seat's view (as the engine builds it and the arena sends it) as a fixed-size array, its
legal cards as a mask over the 52 card actions. The environments and the policy bot both call it.
Design: docs/training.md#the-observation
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from engine.card_tables import CODES, INT_OF_CODE
from engine.rules import MAX_TARGET

#: The action space: one card, ``suit * 13 + rank_index`` (clubs, diamonds, hearts, spades; 2 up to the Ace).
ACTIONS = 52
PHASES = ("sore", "pass", "play", "over")
DIRECTIONS = ("hold", "left", "right", "across")
SUITS = "CDHS"
SCORE_SCALE = 100.0  # scores and round points are given in hundreds
CARDS_PER_SEAT_SCALE = 13.0
SCORE_BOUND = 2.0 * MAX_TARGET / SCORE_SCALE  # a total never passes the largest target by that much
ROUND_BOUND = float(MAX_TARGET)


@dataclass(frozen=True)
class Layout:
    """Where each part of the observation sits: ``parts[name] = (start, length)``, in order."""

    players: int
    parts: dict[str, tuple[int, int]]
    size: int

    def slice(self, name: str) -> slice:
        start, length = self.parts[name]
        return slice(start, start + length)


def _parts(players: int) -> list[tuple[str, int]]:
    """The parts of the observation in order (docs/training.md has the table); ``r`` counts seats from the
    observing seat (0 = itself, 1 = the seat to its left, ...)."""
    n = players
    parts: list[tuple[str, int]] = [("hand", 52), ("picked", 52), ("passed", 52), ("received", 52)]
    parts += [(f"played/{r}", 52) for r in range(n)]
    parts += [(f"trick/{r}", 52) for r in range(n)]
    parts += [(f"won/{r}", 52) for r in range(n)]
    parts += [(f"sore/{r}", 52) for r in range(n)]
    parts += [("phase", len(PHASES)), ("pass_direction", len(DIRECTIONS)), ("to_pick", 1),
              ("leader", n), ("dealer", n), ("hand_sizes", n), ("scores", n),
              ("trump", 4), ("broken", 4), ("hearts_broken", 1), ("tricks_done", 1), ("round", 1),
              ("seat", n)]
    return parts


@cache
def layout(players: int) -> Layout:
    """The observation's layout for ``players`` seats (the same for every game).

    >>> layout(4).size, layout(4).parts["hand"], layout(3).size
    (1080, (0, 52), 867)
    """
    parts: dict[str, tuple[int, int]] = {}
    at = 0
    for name, length in _parts(players):
        parts[name] = (at, length)
        at += length
    return Layout(players, parts, at)


def bounds(players: int) -> tuple[np.ndarray, np.ndarray]:
    """Each element's low and high: 0 and 1, except the picks left (0-3), hand sizes and tricks done (0-4),
    scores (within ``SCORE_BOUND``) and the round (0 up)."""
    lay = layout(players)
    low = np.zeros(lay.size, np.float32)
    high = np.ones(lay.size, np.float32)
    high[lay.slice("to_pick")] = 3.0
    high[lay.slice("hand_sizes")] = 52 / CARDS_PER_SEAT_SCALE
    high[lay.slice("tricks_done")] = 52 / CARDS_PER_SEAT_SCALE
    low[lay.slice("scores")] = -SCORE_BOUND
    high[lay.slice("scores")] = SCORE_BOUND
    high[lay.slice("round")] = ROUND_BOUND
    return low, high


def encode(view: Mapping[str, Any], picked: Iterable[int] = ()) -> np.ndarray:
    """``view`` (a seat's view: engine ``GameState.view`` or the JSON the arena sends) as a float32 array of
    ``layout(players).size``; ``picked``: the cards (ints) already chosen toward a multi-card decision.

    >>> import engine
    >>> g = engine.new_game("spot-hearts", 4, seed=1)
    >>> obs = encode(g.view(0))
    >>> int(obs[layout(4).slice("hand")].sum()), int(obs[layout(4).slice("phase")].argmax())
    (13, 1)
    """
    n: int = view["players"]
    me: int = view["seat"]
    lay = layout(n)
    parts = lay.parts
    obs = np.zeros(lay.size, np.float32)
    ones: list[int] = []
    code = INT_OF_CODE
    ones.extend(code[c] for c in view["hand"])
    chosen = list(picked)
    chosen.extend(code[c] for c in view.get("chosen") or ())
    at = parts["picked"][0]
    ones.extend(at + c for c in chosen)
    if "passed" in view:
        at = parts["passed"][0]
        ones.extend(at + code[c] for c in view["passed"])
        at = parts["received"][0]
        ones.extend(at + code[c] for c in view["received"] or ())
    played = parts["played/0"][0]
    won = parts["won/0"][0]
    for trick in view["tricks"]:
        seat = trick["leader"]
        winner = trick["winner"]
        won_at = won + ((winner - me) % n) * 52 if winner is not None else -1
        for c in trick["cards"]:
            card = code[c]
            ones.append(played + ((seat - me) % n) * 52 + card)
            if won_at >= 0:
                ones.append(won_at + card)
            seat = (seat + 1) % n
    at = parts["trick/0"][0]
    current = view["trick"]
    ones.extend(at + ((e["seat"] - me) % n) * 52 + code[e["card"]] for e in current["cards"])
    sore = view.get("sore_cards")
    if sore:
        at = parts["sore/0"][0]
        ones.extend(at + ((s - me) % n) * 52 + code[c] for s, c in enumerate(sore) if c is not None)
    phase = view["phase"]
    ones.append(parts["phase"][0] + PHASES.index(phase))
    direction = view.get("pass_direction")
    if direction is not None:
        ones.append(parts["pass_direction"][0] + DIRECTIONS.index(direction))
    leader = current["leader"]
    if leader is not None:
        ones.append(parts["leader"][0] + (leader - me) % n)
    ones.append(parts["dealer"][0] + (view["dealer"] - me) % n)
    trump = view.get("trump")
    if trump:
        ones.append(parts["trump"][0] + SUITS.index(trump))
    at = parts["broken"][0]
    ones.extend(at + SUITS.index(s) for s in view.get("broken") or ())
    if view.get("hearts_broken"):
        ones.append(parts["hearts_broken"][0])
    ones.append(parts["seat"][0] + me)
    obs[ones] = 1.0
    decision = view.get("decision")
    if decision is not None:
        obs[parts["to_pick"][0]] = decision["count"] - len(chosen)
    sizes = view["hand_sizes"]
    scores = view["scores"]
    hs, sc = parts["hand_sizes"][0], parts["scores"][0]
    for r in range(n):
        s = (me + r) % n
        obs[hs + r] = sizes[s] / CARDS_PER_SEAT_SCALE
        obs[sc + r] = scores[s] / SCORE_SCALE
    obs[parts["tricks_done"][0]] = len(view["tricks"]) / CARDS_PER_SEAT_SCALE
    obs[parts["round"][0]] = view["round"]
    return obs


def legal_actions(view: Mapping[str, Any], picked: Iterable[int] = ()) -> list[int]:
    """The legal actions now: the seat's legal cards (ints) not already picked, in card order."""
    skip = set(picked)
    return sorted(c for c in (INT_OF_CODE[x] for x in view["legal"]) if c not in skip)


def action_mask(view: Mapping[str, Any], picked: Iterable[int] = ()) -> np.ndarray:
    """1 for every legal action (:func:`legal_actions`), 0 elsewhere; int8, as PettingZoo's card games.

    >>> import engine
    >>> g = engine.new_game("sore-spot", 3, seed=2)
    >>> int(action_mask(g.view(0)).sum()) == len(g.view(0)["legal"])
    True
    """
    mask = np.zeros(ACTIONS, np.int8)
    legal = legal_actions(view, picked)
    if legal:
        mask[legal] = 1
    return mask


def card_code(action: int) -> str:
    """The card code of an action (``0`` is ``2C``, ``51`` is ``AS``).

    >>> card_code(0), card_code(49)
    ('2C', 'QS')
    """
    return CODES[action]
