"""`python -m arena simulate-ladder`: does the ladder find the true order? The real code, offline.

House bots of known strength order play a ladder through the real matchmaking, match runner and Elo code;
with a `Concurrency` (``--max-active``), on simulated time, as the scheduler plays it.
Design: docs/arena.md#does-the-ladder-find-the-true-order--python--m-arena-simulate-ladder
"""

from __future__ import annotations

import heapq
import random
import re
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from arena.drivers import DecisionRequest, DriverAnswer, SeatDriver
from arena.ladder_quality import pair_meetings, quality_report
from arena.match import MatchRunner, house_seed, make_drivers, replayed_deal
from arena.matchmaking import Candidate, pick_table
from arena.memorybot import TWIN, Memory, MemoryDriver
from core.arena.elo import INITIAL_RATING
from core.arena.model import LadderConfig, MatchResult, MatchSpec, Member
from engine.seeds import SEED_BITS

# In `--bots`, the memory bot (arena.memorybot): it remembers every card it sees in the ladder's matches.
MEMORY_BOT = "memory"


@dataclass
class Matches:
    """How the simulated ladder plays its matches: the real MatchRunner, with the ladder's memory bot (one
    memory for all its matches) and, with `replay_deals`, every game of a match on its first game's deal
    (the format that shows a bot a deal twice)."""

    replay_deals: bool = False
    memory: Memory = field(default_factory=Memory)

    def drivers(self, spec: MatchSpec) -> dict[str, SeatDriver]:
        house = [m for m in spec.entrants if m.house_bot != MEMORY_BOT]
        drivers = make_drivers(replace(spec, entrants=house), allow_private=True)
        for member in spec.entrants:
            if member.house_bot == MEMORY_BOT:
                drivers[member.bot_id] = MemoryDriver(self.memory, house_seed(spec, member))
        return drivers

    def play(self, spec: MatchSpec, drivers: dict[str, SeatDriver]) -> MatchResult:
        deal_seed = replayed_deal(spec) if self.replay_deals else None
        return MatchRunner(spec, drivers, deal_seed=deal_seed).run()


def _spec(number: int, game: str, players: int, options: dict[str, Any] | None, seed: int, duplicate: bool,
          entrants: list[Member], ratings: dict[str, float], games: dict[str, int]) -> MatchSpec:
    """The spec of the simulated ladder's match `number`, with the entrants' ratings as they are now."""
    ids = [m.bot_id for m in entrants]
    return MatchSpec(
        match_id=f"sim{number}", ladder_id="sim", game=game, players=players, options=dict(options or {}),
        seed=seed, duplicate=duplicate, entrants=entrants, deadline_ms=1000, strike_limit=5,
        pre_ratings={b: ratings[b] for b in ids}, pre_matches={b: games[b] for b in ids},
    )


def _ladder_rows(ratings: dict[str, float], games: dict[str, int]) -> list[dict[str, Any]]:
    """The final ladder, best first, under the house bots' own names."""
    return [{"bot": b.removeprefix("house:"), "rating": round(ratings[b], 1), "matches": games[b]}
            for b in sorted(ratings, key=lambda b: -ratings[b])]


def simulate_ladder(game: str, bots: list[str], games_per_bot: int, duplicate: bool, seed: int,
                    players: int = 4, options: dict[str, Any] | None = None,
                    replay_deals: bool = False) -> dict[str, Any]:
    """Run matches until every bot has `games_per_bot` rated matches; bots are listed strongest first."""
    if len(set(bots)) != len(bots) or len(bots) < players:
        raise ValueError(f"need at least {players} distinct bots, got {bots}")
    rng = random.Random(seed)
    matches_of = Matches(replay_deals)
    members = {name: Member.house(name) for name in bots}
    ratings = {m.bot_id: INITIAL_RATING for m in members.values()}
    games = {m.bot_id: 0 for m in members.values()}
    last: frozenset[str] | None = None
    matches = played = decisions = 0
    tables: list[list[str]] = []
    started = time.perf_counter()
    while min(games.values()) < games_per_bot:
        candidates = [Candidate(b, ratings[b], games[b]) for b in ratings]
        table = pick_table(candidates, players, rng, last_group=last)
        assert table is not None  # every bot is always available offline
        by_id = {m.bot_id: m for m in members.values()}
        spec = _spec(matches, game, players, options, rng.getrandbits(SEED_BITS), duplicate,
                     [by_id[b] for b in table], ratings, games)
        result = matches_of.play(spec, matches_of.drivers(spec))
        for bot, delta in result.deltas.items():
            ratings[bot] += delta
            games[bot] += 1
        last = frozenset(table)
        tables.append(table)
        matches += 1
        played += len(result.games)
        decisions += sum(g["moves"] for g in result.games)
    known = [members[name].bot_id for name in bots]
    return {**_quality(known, ratings, tables),
        "game": game, "players": players, "bots": bots, "games_per_bot": games_per_bot,
        "duplicate": duplicate, "replay_deals": replay_deals, "seed": seed,
        "matches": matches, "memory_recalled_decisions": matches_of.memory.recalled,
        "games_played": played, "decisions": decisions, "elapsed_s": round(time.perf_counter() - started, 2),
        "matches_per_min": round(60 * matches / max(time.perf_counter() - started, 1e-9), 1),
        "ladder": _ladder_rows(ratings, games),
    }


def _quality(known: list[str], ratings: dict[str, float], tables: list[list[str]]) -> dict[str, Any]:
    """The ladder-quality figures (`matches` is the caller's: it counts the matches it played)."""
    report = quality_report(known, ratings, tables)
    del report["matches"]
    return report


@dataclass(frozen=True)
class Concurrency:
    """How the live ladder runs matches: in flight at once, the scheduler's tick, the bots' decision times."""

    max_active: int = LadderConfig.max_active
    tick_s: float = 1.0
    delays_ms: dict[str, float] = field(default_factory=dict)  # per bot name; default: decision_ms(name)
    house_only_gap_s: float = 0.0  # the ladder's gap between house-only tables (LadderConfig: 3 s)
    mixing: bool = True  # pick_table with meeting counts and free times, as Scheduler.fill calls it


def decision_ms(bot: str, delays_ms: dict[str, float] | None = None) -> float:
    """Simulated time a bot takes per decision: `delays_ms` if it names the bot, else MS for ``search-MS``,
    else 0 (the other house bots answer in well under a millisecond).

    >>> decision_ms("search-5"), decision_ms("heuristic"), decision_ms("eps-0.2", {"eps-0.2": 40.0})
    (5.0, 0.0, 40.0)
    """
    if delays_ms and bot in delays_ms:
        return float(delays_ms[bot])
    found = re.fullmatch(r"search-(\d+(?:\.\d+)?)", bot)
    return float(found.group(1)) if found else 0.0


class _CountingDriver:
    """A seat driver that counts its decisions (the simulated duration of a match is built from them)."""

    def __init__(self, inner: SeatDriver) -> None:
        self.inner = inner
        self.decisions = 0

    def wake_up(self) -> Any:
        return self.inner.wake_up()

    def begin_game(self, game_no: int, payload: dict[str, Any]) -> Any:
        return self.inner.begin_game(game_no, payload)

    def decide(self, request: DecisionRequest) -> DriverAnswer:
        self.decisions += 1
        return self.inner.decide(request)

    def end_game(self, game_no: int, payload: dict[str, Any]) -> Any:
        return self.inner.end_game(game_no, payload)


def simulate_concurrent_ladder(game: str, bots: list[str], games_per_bot: int, duplicate: bool, seed: int,
                               players: int = 4, options: dict[str, Any] | None = None,
                               concurrency: Concurrency = Concurrency(),
                               replay_deals: bool = False) -> dict[str, Any]:
    """The ladder as the scheduler runs it, on simulated time, until every bot has `games_per_bot` rated
    matches; bots are listed strongest first."""
    if len(set(bots)) != len(bots) or len(bots) < players:
        raise ValueError(f"need at least {players} distinct bots, got {bots}")
    if concurrency.max_active < 1 or concurrency.tick_s <= 0:
        raise ValueError("max_active must be at least 1 and tick_s positive")
    rng = random.Random(seed)
    matches_of = Matches(replay_deals)
    members = {name: Member.house(name) for name in bots}
    by_id = {m.bot_id: m for m in members.values()}
    per_decision_s = {m.bot_id: decision_ms(name, concurrency.delays_ms) / 1000
                      for name, m in members.items()}
    ratings = {b: INITIAL_RATING for b in by_id}
    games = dict.fromkeys(by_id, 0)
    running: list[tuple[float, int, list[str], MatchResult]] = []  # a heap by finish time
    free_since: dict[str, float] = {}
    met: Counter[frozenset[str]] = Counter()
    tables: list[list[str]] = []
    last: frozenset[str] | None = None
    last_house_only = -1e18
    now = 0.0
    in_flight_sum = decisions = played = 0
    started = time.perf_counter()
    while min(games.values()) < games_per_bot:
        while running and running[0][0] <= now:  # results of matches over by this tick, in finish order
            _, _, _, result = heapq.heappop(running)
            for bot, delta in result.deltas.items():
                ratings[bot] += delta
                games[bot] += 1
        busy = {b for _, _, seated, _ in running for b in seated}
        for bot in by_id if len(running) < concurrency.max_active else ():
            # As Scheduler.fill: a wait counts from the first tick that sees the bot free, with room to play.
            if bot in busy:
                free_since.pop(bot, None)
            else:
                free_since.setdefault(bot, now)
        while len(running) < concurrency.max_active:
            candidates = [Candidate(b, ratings[b], games[b], available=b not in busy, busy=b in busy)
                          for b in by_id]
            waited = {b: now - t for b, t in free_since.items()}
            table = pick_table(candidates, players, rng, last_group=last,
                               meetings=met if concurrency.mixing else None,
                               waited_s=waited if concurrency.mixing else None)
            if table is None or now - last_house_only < concurrency.house_only_gap_s:
                break
            last_house_only = now
            spec = _spec(len(tables), game, players, options, rng.getrandbits(SEED_BITS), duplicate,
                         [by_id[b] for b in table], ratings, games)
            drivers = {b: _CountingDriver(d) for b, d in matches_of.drivers(spec).items()}
            result = matches_of.play(spec, dict(drivers))
            duration = sum(d.decisions * per_decision_s[b] for b, d in drivers.items())
            decisions += sum(d.decisions for d in drivers.values())
            played += len(result.games)
            heapq.heappush(running, (now + duration, len(tables), table, result))
            tables.append(table)
            met.update(pair_meetings([table]))
            busy.update(table)
            for bot in table:  # seated: its next wait starts when it is free again
                free_since.pop(bot, None)
            last = frozenset(table)
        in_flight_sum += len(running)
        now += concurrency.tick_s
    known = [members[name].bot_id for name in bots]
    ticks = max(round(now / concurrency.tick_s), 1)
    return {
        "game": game, "players": players, "bots": bots, "games_per_bot": games_per_bot,
        "duplicate": duplicate, "replay_deals": replay_deals, "seed": seed,
        "concurrency": asdict(concurrency),
        "memory_recalled_decisions": matches_of.memory.recalled,
        "matches": len(tables), **_quality(known, ratings, tables),
        "simulated_s": round(now, 1), "matches_in_flight_mean": round(in_flight_sum / ticks, 2),
        "rated_per_simulated_min": round(60 * len(tables) / max(now, 1e-9), 1), "games_played": played,
        "decisions": decisions, "elapsed_s": round(time.perf_counter() - started, 2),
        "ladder": _ladder_rows(ratings, games),
    }


def simulate_many(game: str, bots: list[str], games_per_bot: int, duplicate: bool, seed: int, runs: int,
                  players: int = 4, options: dict[str, Any] | None = None,
                  concurrency: Concurrency | None = None, replay_deals: bool = False) -> dict[str, Any]:
    """`runs` independent ladders (seeds seed .. seed+runs-1): `spearman` is their mean. With `concurrency`
    each is `simulate_concurrent_ladder`, else `simulate_ladder` (sequential matches)."""
    if concurrency is None:
        results = [simulate_ladder(game, bots, games_per_bot, duplicate, seed + i, players, options,
                                   replay_deals) for i in range(runs)]
    else:
        results = [simulate_concurrent_ladder(game, bots, games_per_bot, duplicate, seed + i, players,
                                              options, concurrency, replay_deals) for i in range(runs)]
    first = dict(results[0])
    rhos = [r["spearman"] for r in results]
    first.update({
        "runs": runs, "spearman": round(sum(rhos) / runs, 4), "spearman_min": min(rhos),
        "spearman_by_seed": rhos, "pairs_never_met_by_seed": [r["pairs_never_met"] for r in results],
        "spread_by_seed": [r["spread"] for r in results], "groups_by_seed": [r["groups"] for r in results],
        "memory_minus_twin_by_seed": [memory_minus_twin(r) for r in results],
        "matches": sum(r["matches"] for r in results),
        "games_played": sum(r["games_played"] for r in results),
        "decisions": sum(r["decisions"] for r in results),
        "elapsed_s": round(sum(r["elapsed_s"] for r in results), 2),
        "matches_per_min": round(60 * sum(r["matches"] for r in results)
                                 / max(sum(r["elapsed_s"] for r in results), 1e-9), 1),
    })
    return first


def memory_minus_twin(result: dict[str, Any]) -> float | None:
    """The memory bot's final rating less its memoryless twin's (None unless both played the ladder)."""
    ratings = {row["bot"]: row["rating"] for row in result["ladder"]}
    if MEMORY_BOT not in ratings or TWIN not in ratings:
        return None
    return round(float(ratings[MEMORY_BOT]) - float(ratings[TWIN]), 1)
