"""The memory bot: it remembers every card it has seen, in every game of every match, and on a deal it has not
seen plays exactly as its memoryless twin, the house ``heuristic``. The arena's test of its own match format.

Design: docs/arena.md#does-remembering-pay--python--m-arena-memory-gain
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

from scipy.stats import binomtest

from arena.drivers import DecisionRequest, DriverAnswer
from arena.match import MatchRunner, house_seed, make_drivers, replayed_deal
from core.arena.model import MatchSpec, Member, MemberKind
from engine import rules_for
from engine.bots import make_bot
from engine.bots.rollout import HeuristicRollout
from engine.bots.search import candidates
from engine.cards import CODES, Card
from engine.sampling import NoWorldError, deal_unseen, knowledge, played_this_round
from engine.shapes import Move, SeatView
from engine.worlds import margin, world_state

TWIN = "heuristic"
# A new hand is "a deal seen before" when it shares this many cards with a remembered hand (passes and the
# cards it never saw played move a few).
RECOGNISE_AT = 10
WORLDS = 2  # rollouts per candidate move in a recalled deal


@dataclass
class Memory:
    """Every round the bot has seen: (table, round) -> the cards it saw in each seat's hand."""

    rounds: dict[tuple[str, int], tuple[str, list[set[int]]]] = field(default_factory=dict)
    recalled: int = 0  # decisions taken with a remembered deal

    def observe(self, table: str, view: SeatView) -> None:
        n, me = view["players"], view["seat"]
        _, seen = self.rounds.setdefault((table, view["round"]), (view["game"], [set() for _ in range(n)]))
        if view["phase"] == "play":  # after any pass: the hand it plays from
            seen[me] |= {Card.parse(c) for c in view["hand"]}
        for _, seat, card in played_this_round(view):
            seen[seat].add(card)

    def recall(self, table: str, view: SeatView) -> list[set[int]] | None:
        """The remembered hands of a deal this hand comes from, seat by seat as they sit now; None if new."""
        n, me = view["players"], view["seat"]
        mine = {Card.parse(c) for c in view["hand"]} | {c for _, s, c in played_this_round(view) if s == me}
        best, found = 0, None
        for (other, round_no), (game, seen) in self.rounds.items():
            if other == table or round_no != view["round"] or game != view["game"] or len(seen) != n:
                continue
            for seat in range(n):
                overlap = len(mine & seen[seat])
                if overlap > best:
                    best, found = overlap, [seen[(s - me + seat) % n] for s in range(n)]
        return found if best >= RECOGNISE_AT else None


class MemoryBot:
    """Plays as its twin unless its memory knows the deal (docs/arena.md, "Does remembering pay?")."""

    def __init__(self, memory: Memory, seed: int | str) -> None:
        self.memory = memory
        self.twin = make_bot(TWIN, seed)
        self.rng = random.Random(f"memory:{seed}")

    def choose(self, table: str, view: SeatView) -> Move:
        self.memory.observe(table, view)
        remembered = self.memory.recall(table, view) if view["phase"] == "play" else None
        if remembered is None:
            return self.twin.choose(view)
        moves = candidates(view)
        if len(moves) < 2:
            return moves[0]
        try:
            worlds = [self._world(view, remembered) for _ in range(WORLDS)]
        except NoWorldError:
            return self.twin.choose(view)
        self.memory.recalled += 1
        values = [sum(self._value(view, hands, move) for hands in worlds) for move in moves]
        return moves[max(range(len(moves)), key=lambda i: (values[i], -i))]

    def _world(self, view: SeatView, remembered: list[set[int]]) -> list[list[str]]:
        """Everyone's hand now: the remembered cards where they can still be, the rest dealt at random."""
        know = knowledge(view)
        fixed = list(know.fixed)
        for seat in range(len(fixed)):
            if seat == know.seat:
                continue
            placed = sorted((remembered[seat] & know.allowed[seat]) - fixed[seat])
            self.rng.shuffle(placed)
            room = know.sizes[seat] - len(fixed[seat])
            fixed[seat] = fixed[seat] | frozenset(placed[:max(room, 0)])
        hands = deal_unseen(replace(know, fixed=tuple(fixed)), self.rng)  # the unplaced cards, at random
        return [[CODES[c] for c in hand] for hand in hands]

    @staticmethod
    def _value(view: SeatView, hands: list[list[str]], move: Move) -> float:
        world = world_state(view, hands)
        world.apply(view["seat"], move)
        return margin(view["game"], HeuristicRollout(world).play_round(world, float("inf")), view["seat"])


class MemoryDriver:
    """A seat driver for the memory bot: one memory for every game of every match it is given."""

    def __init__(self, memory: Memory, seed: int | str) -> None:
        self.memory = memory
        self.seed = seed
        self.bot = MemoryBot(memory, seed)

    def wake_up(self) -> None:
        return None

    def begin_game(self, game_no: int, payload: dict[str, Any]) -> None:
        self.bot = MemoryBot(self.memory, f"{self.seed}:{game_no}")

    def decide(self, request: DecisionRequest) -> DriverAnswer:
        return DriverAnswer(self.bot.choose(request.table_id, request.view))

    def end_game(self, game_no: int, payload: dict[str, Any]) -> None:
        return None



def memory_gain(game: str, matches: int, seed: int = 1, options: dict[str, Any] | None = None,
                opponents: tuple[str, ...] = (TWIN,), replay_deals: bool = False, players: int = 4,
                ) -> dict[str, Any]:
    """What remembering is worth: each match is played twice on the same deals, once by the memory bot and
    once by its twin in the same seat, against the same house bots; the gain is the difference of its score
    (in the game's good direction), match by match, over matches that share one memory.

    ``replay_deals`` plays every game of a match on the first game's deal (bots rotated): the format that
    lets a bot play a deal it has seen.
    """
    low_wins = rules_for(game).low_wins
    memory = Memory()
    gains: list[float] = []
    for i in range(matches):
        others = [opponents[k % len(opponents)] for k in range(players - 1)]
        entrants = [Member("probe", MemberKind.HOUSE, house_bot=TWIN),
                    *(Member(f"house-{k}", MemberKind.HOUSE, house_bot=b) for k, b in enumerate(others))]
        spec = MatchSpec(f"memory-{seed}-{i}", "memory", game, players, dict(options or {}), seed + i, True,
                         entrants, 1000, 5, {m.bot_id: 1500.0 for m in entrants},
                         {m.bot_id: 0 for m in entrants})
        deal_seed = replayed_deal(spec) if replay_deals else None
        scores = []
        for remembering in (False, True):
            drivers = make_drivers(spec, allow_private=False)
            if remembering:
                drivers["probe"] = MemoryDriver(memory, house_seed(spec, entrants[0]))
            scores.append(MatchRunner(spec, drivers, deal_seed=deal_seed).run().totals["probe"])
        gains.append((scores[0] - scores[1]) if low_wins else (scores[1] - scores[0]))
    won, lost = sum(g > 0 for g in gains), sum(g < 0 for g in gains)
    return {"game": game, "options": dict(options or {}), "matches": matches, "seed": seed,
            "replay_deals": replay_deals, "opponents": list(opponents),
            "gain_per_match": round(sum(gains) / matches, 2), "won": won, "lost": lost,
            "sign_test_p": float(binomtest(won, won + lost).pvalue) if won + lost else 1.0,
            "recalled_decisions": memory.recalled}
