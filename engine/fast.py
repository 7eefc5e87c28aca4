"""Fast path: Spot Hearts rounds with random play, for benchmarks and simulations.

The public API builds views and validates every move; that is right for a
service and too slow for millions of simulated decisions.  This module plays the
same games with the same random policy (:func:`engine.bots.choose_random`, one
shared RNG, seats in ``to_act`` order) straight on per-suit lists of ints.
``tests/engine/test_fast.py`` proves it identical to the public engine, trick by
trick, on the same seeds.

>>> rounds = list(spot_hearts_random_rounds(seed=1, rounds=3))
>>> [sum(r.points) for r in rounds]
[129, 129, 129]
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from .cards import HEARTS
from .games.spot_hearts import POINTS, SpotHearts
from .rules import QUEEN_OF_SPADES, TWO_OF_CLUBS, hearts_pass_offset
from .state import deal_from_seed, first_dealer_from_seed

_RULES = SpotHearts()
_TARGET = _RULES.info.options["target"].default
_DECK = tuple(range(52))


@dataclass
class FastRound:
    game: int  # index of the game in the run
    round_no: int
    dealer: int
    points: list[int]
    decisions: int
    plays: list[int] = field(default_factory=list)  # every card in play order, when recorded
    winners: list[int] = field(default_factory=list)  # trick winners, when recorded


def bench_game_seed(seed: int | str, index: int) -> str:
    """The seed of the ``index``-th game of a benchmark run (shared with the public-API bench)."""
    return f"{seed}/{index}"


def spot_hearts_random_rounds(
    seed: int | str, rounds: int, target: int = _TARGET, record: bool = False
) -> Iterator[FastRound]:
    """Play ``rounds`` rounds of back-to-back Spot Hearts games with random play.

    Game ``i`` is seeded :func:`bench_game_seed` (``seed``, i); decisions draw from
    ``random.Random(seed)``.  With ``record`` each round also lists plays and trick winners.
    """
    rng = random.Random(seed)
    draw = rng.random
    played = 0
    game_index = 0
    while played < rounds:
        game_seed = bench_game_seed(seed, game_index)
        first_dealer = first_dealer_from_seed(game_seed, 4)
        totals = [0, 0, 0, 0]
        round_no = 0
        while played < rounds:
            dealer = (first_dealer + round_no) % 4
            hands = deal_from_seed(game_seed, round_no, _DECK, 4, dealer)
            decisions = 0
            offset = hearts_pass_offset(4, round_no)
            if offset:
                passes = []
                for hand in hands:
                    pool = list(hand)
                    passes.append([pool.pop(int(draw() * len(pool))) for _ in range(3)])
                decisions += 4
                for seat in range(4):
                    for c in passes[seat]:
                        hands[seat].remove(c)
                for seat in range(4):
                    hands[(seat + offset) % 4].extend(passes[seat])
            # Per seat, per suit sorted lists: suit-major concatenation is the engine's legal order.
            suits = [[sorted(c for c in hand if c // 13 == s) for s in range(4)] for hand in hands]
            leader = next(s for s in range(4) if TWO_OF_CLUBS in hands[s])
            won = [0, 0, 0, 0]
            broken = False
            plays: list[int] = []
            winners: list[int] = []
            for trick_no in range(13):
                seat = leader
                mine = suits[seat]
                if trick_no == 0:
                    lead = TWO_OF_CLUBS  # R-SH-LEAD: a one-card choice still draws, like the engine's bot
                    draw()
                else:
                    if broken or not (mine[0] or mine[1] or mine[3]):
                        legal = mine[0] + mine[1] + mine[2] + mine[3]
                    else:
                        legal = mine[0] + mine[1] + mine[3]
                    lead = legal[int(draw() * len(legal))]
                mine[lead // 13].remove(lead)
                led = lead // 13
                best = lead
                winner = seat
                penalty = POINTS[lead]
                if penalty:
                    broken = True
                if record:
                    plays.append(lead)
                for _ in range(3):
                    seat = (seat + 1) % 4
                    mine = suits[seat]
                    legal = mine[led]
                    if not legal:
                        legal = mine[0] + mine[1] + mine[2] + mine[3]
                        if trick_no == 0:  # R-SH-FIRST
                            safe = [c for c in legal if c // 13 != HEARTS and c != QUEEN_OF_SPADES]
                            legal = safe or legal
                    c = legal[int(draw() * len(legal))]
                    mine[c // 13].remove(c)
                    if record:
                        plays.append(c)
                    if c // 13 == led and c > best:
                        best = c
                        winner = seat
                    if POINTS[c]:
                        penalty += POINTS[c]
                        broken = True
                won[winner] += penalty
                leader = winner
                if record:
                    winners.append(winner)
            decisions += 52
            played += 1
            for s in range(4):
                totals[s] += won[s]
            yield FastRound(game_index, round_no, dealer, won, decisions, plays, winners)
            round_no += 1
            if max(totals) >= target:
                break
        game_index += 1
