"""``python -m engine duel``: is house bot A stronger than house bot B? Paired games (duplicate deals, or A in
one seat per game), a sign test and a Wilcoxon signed-rank test.

Design: docs/engine.md#is-it-stronger-python--m-engine-duel
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from .bots import make_bot, play_game
from .game import new_game, rules_for
from .shapes import Move, SeatView
from .state import GameState


class TimedBot:
    """Wraps a bot and records the wall time of each of its decisions."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.name = bot.name
        self.times: list[float] = []

    def choose(self, view: SeatView) -> Move:
        started = time.perf_counter()
        move: Move = self.bot.choose(view)
        self.times.append(time.perf_counter() - started)
        return move


def signed(game: GameState[Any], seat: int) -> int:
    return -game.totals[seat] if game.rules.low_wins else game.totals[seat]


def place(game: GameState[Any], seat: int) -> int:
    mine = signed(game, seat)
    return 1 + sum(1 for s in range(game.players) if signed(game, s) > mine)


def duel(game: str, bot_a: str, bot_b: str, games: int, players: int = 4, duplicate: bool = True,
         seed: int = 1, options: dict[str, Any] | None = None, worlds: int | None = None) -> dict[str, Any]:
    """Play ``games`` deals of A against B; one JSON-ready summary (docs/engine.md, "Is it stronger?").

    ``worlds``: search bots play exactly that many worlds per decision instead of their time budget, so
    the same seed gives the same games, hence the same p-values, on any machine under any load.
    """
    from scipy.stats import binomtest, wilcoxon

    rules_for(game).validate_options(players, dict(options or {}))
    diffs: list[float] = []
    places_a: list[int] = []
    places_b: list[int] = []
    scores_a: list[float] = []
    scores_b: list[float] = []
    times: list[float] = []
    started = time.perf_counter()
    for d in range(games):
        deal = f"{seed}/{d}"

        def play(a_seat: int | None, deal: str = deal) -> tuple[GameState[Any], TimedBot | None]:
            bots: list[Any] = [make_bot(bot_b, seed=f"{deal}/{s}", worlds=worlds) for s in range(players)]
            timed = None
            if a_seat is not None:
                timed = bots[a_seat] = TimedBot(make_bot(bot_a, seed=f"{deal}/{a_seat}/a", worlds=worlds))
            return play_game(new_game(game, players, options, seed=deal), bots), timed

        if duplicate:
            base, _ = play(None)
            for s in range(players):
                g, timed = play(s)
                assert timed is not None
                times += timed.times
                diffs.append(signed(g, s) - signed(base, s))
                places_a.append(place(g, s))
                places_b.append(place(base, s))
                scores_a.append(signed(g, s))
                scores_b.append(signed(base, s))
        else:
            s = d % players
            g, timed = play(s)
            assert timed is not None
            times += timed.times
            others = [signed(g, o) for o in range(players) if o != s]
            diffs.append(signed(g, s) - statistics.mean(others))
            places_a.append(place(g, s))
            places_b.append(round(statistics.mean(place(g, o) for o in range(players) if o != s)))
            scores_a.append(signed(g, s))
            scores_b.append(statistics.mean(others))
    better = sum(1 for x in diffs if x > 0)
    worse = sum(1 for x in diffs if x < 0)
    sign_p = binomtest(better, better + worse, 0.5, alternative="greater").pvalue if better + worse else 1.0
    wil_p = wilcoxon(diffs, alternative="greater").pvalue if any(diffs) else 1.0
    return {
        "game": game, "players": players, "options": dict(options or {}), "a": bot_a, "b": bot_b,
        "duplicate": duplicate, "worlds": worlds, "deals": games, "pairs": len(diffs), "seed": seed,
        "mean_place_a": round(statistics.mean(places_a), 3),
        "mean_place_b": round(statistics.mean(places_b), 3),
        "mean_score_a": round(statistics.mean(scores_a), 2),
        "mean_score_b": round(statistics.mean(scores_b), 2),
        "mean_diff": round(statistics.mean(diffs), 2), "a_better": better, "a_worse": worse,
        "sign_p": float(sign_p), "wilcoxon_p": float(wil_p),
        "a_decisions": len(times), "a_decisions_per_s": round(len(times) / sum(times), 1) if times else None,
        "a_ms_mean": round(1000 * statistics.mean(times), 2) if times else None,
        "a_ms_max": round(1000 * max(times), 2) if times else None,
        "elapsed_s": round(time.perf_counter() - started, 1),
    }
