"""`python -m arena simulate-ladder`: does the ladder find the true order? The real code, offline.

Graded house bots whose strength order is known (``search-MS`` searches MS ms per decision on top of the
game's heuristic; ``heuristic`` plays the heuristic; ``eps-X`` plays a random legal move with probability X;
``random`` always) play a ladder: matchmaking is
``arena.matchmaking.pick_table``, each match is played by ``arena.match.MatchRunner`` (with or without
duplicate rotation) and rated by ``core.elo.rating_deltas``. No Redis: ratings live in a dict, exactly as the
Lua script would apply them (sequential matches, so pre-match ratings are the current ones).

The result is one JSON line; ``spearman`` compares the final ladder order with the known strength order.
"""

from __future__ import annotations

import random
import time
from typing import Any

from scipy.stats import spearmanr

from arena.match import MatchRunner, make_drivers
from arena.matchmaking import Candidate, pick_table
from core.arena_model import MatchSpec, Member
from core.elo import INITIAL_RATING
from engine.seeds import SEED_BITS


def simulate_ladder(game: str, bots: list[str], games_per_bot: int, duplicate: bool, seed: int,
                    players: int = 4, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run matches until every bot has `games_per_bot` rated matches; bots are listed strongest first."""
    if len(set(bots)) != len(bots) or len(bots) < players:
        raise ValueError(f"need at least {players} distinct bots, got {bots}")
    rng = random.Random(seed)
    members = {name: Member.house(name) for name in bots}
    ratings = {m.bot_id: INITIAL_RATING for m in members.values()}
    games = {m.bot_id: 0 for m in members.values()}
    last: frozenset[str] | None = None
    matches = played = decisions = 0
    started = time.perf_counter()
    while min(games.values()) < games_per_bot:
        candidates = [Candidate(b, ratings[b], games[b]) for b in ratings]
        table = pick_table(candidates, players, rng, last_group=last)
        assert table is not None  # every bot is always available offline
        by_id = {m.bot_id: m for m in members.values()}
        spec = MatchSpec(
            match_id=f"sim{matches}", ladder_id="sim", game=game, players=players,
            options=dict(options or {}), seed=rng.getrandbits(SEED_BITS), duplicate=duplicate,
            entrants=[by_id[b] for b in table], deadline_ms=1000, strike_limit=5,
            pre_ratings={b: ratings[b] for b in table}, pre_games={b: games[b] for b in table},
        )
        result = MatchRunner(spec, make_drivers(spec, allow_private=True)).run()
        for bot, delta in result.deltas.items():
            ratings[bot] += delta
            games[bot] += 1
        last = frozenset(table)
        matches += 1
        played += len(result.games)
        decisions += sum(g["moves"] for g in result.games)
    ladder = sorted(ratings, key=lambda b: -ratings[b])
    known = [members[name].bot_id for name in bots]
    rho = spearmanr([known.index(b) for b in ladder], list(range(len(ladder)))).statistic
    return {
        "game": game, "players": players, "bots": bots, "games_per_bot": games_per_bot,
        "duplicate": duplicate, "seed": seed, "spearman": round(float(rho), 4), "matches": matches,
        "games_played": played, "decisions": decisions, "elapsed_s": round(time.perf_counter() - started, 2),
        "matches_per_min": round(60 * matches / max(time.perf_counter() - started, 1e-9), 1),
        "ladder": [{"bot": b.removeprefix("house:"), "rating": round(ratings[b], 1), "matches": games[b]}
                   for b in ladder],
    }


def simulate_many(game: str, bots: list[str], games_per_bot: int, duplicate: bool, seed: int, runs: int,
                  players: int = 4, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """`runs` independent ladders (seeds seed .. seed+runs-1): `spearman` is their mean."""
    results = [simulate_ladder(game, bots, games_per_bot, duplicate, seed + i, players, options)
               for i in range(runs)]
    first = dict(results[0])
    rhos = [r["spearman"] for r in results]
    first.update({
        "runs": runs, "spearman": round(sum(rhos) / runs, 4), "spearman_min": min(rhos),
        "spearman_by_seed": rhos, "matches": sum(r["matches"] for r in results),
        "games_played": sum(r["games_played"] for r in results),
        "decisions": sum(r["decisions"] for r in results),
        "elapsed_s": round(sum(r["elapsed_s"] for r in results), 2),
        "matches_per_min": round(60 * sum(r["matches"] for r in results)
                                 / max(sum(r["elapsed_s"] for r in results), 1e-9), 1),
    })
    return first
