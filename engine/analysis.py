"""A second opinion on every decision of one seat: :func:`analyse` replays the record and values every
candidate move from that seat's view at the time (sampled worlds, never the record's hidden cards).

Design: docs/engine.md#analysis-of-a-game-engineanalysisanalyse
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from typing import Any

from .bots.search import DEFAULT_BUDGET_MS, candidates, evaluate, move_key
from .errors import EngineError
from .game import start_from_record
from .shapes import Move, SeatView

Progress = Callable[[int, int], None]
MIN_WORLDS = 4  # a decision's values average at least this many worlds, even past the budget


def analyse(record: Mapping[str, Any], seat: int, budget_ms: int = DEFAULT_BUDGET_MS, seed: int = 0,
            progress: Progress | None = None, worlds: int | None = None) -> dict[str, Any]:
    """Every decision ``seat`` made in ``record``, valued from its information at the time.

    ``worlds``: the deterministic budget, exactly that many worlds per decision and no clock (the same
    seed then gives the same report on any machine); ``budget_ms`` is then ignored.

    ``progress(done, total)`` is called after each of the seat's decisions.  Returns
    ``{"game", "players", "seat", "budget_ms", "over", "decisions": [...], "total_regret",
    "mean_regret", "total_behind_heuristic", "mean_behind_heuristic", "seat_total", "totals",
    "elapsed_s"}``; each decision is ``{"index" (in the record's moves), "round", "kind", "legal",
    "candidates": [{"move", "value"}], "chosen", "best", "regret", "heuristic", "behind_heuristic",
    "forced", "worlds"}`` (:func:`behind_heuristic`).  Raises :class:`~engine.errors.EngineError` on a
    bad record.

    >>> import engine
    >>> from engine.bots import make_bot, play_game
    >>> g = play_game(engine.new_game("sore-spot", 3, {"rounds": 1}, seed=4),
    ...               [make_bot("heuristic"), make_bot("random", 1), make_bot("random", 2)])
    >>> report = analyse(g.record(), seat=1, budget_ms=5)
    >>> len(report["decisions"]), all(d["regret"] >= 0 for d in report["decisions"])
    (13, True)
    >>> all(d["behind_heuristic"] <= d["regret"] for d in report["decisions"])
    True
    """
    started = time.perf_counter()
    game = start_from_record(record)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < game.players:
        raise EngineError(f"seat must be an integer from 0 to {game.players - 1}, not {seat!r}")
    moves = record.get("moves") or []
    total = sum(1 for m in moves if isinstance(m, dict) and m.get("seat") == seat)
    decisions: list[dict[str, Any]] = []
    for index, entry in enumerate(moves):
        if entry.get("seat") == seat:
            view = game.view(seat)
            rng = random.Random(f"{seed}/{index}")
            decisions.append(_decision(view, entry["move"], index, budget_ms, rng, worlds))
            if progress is not None:
                progress(len(decisions), total)
        game.apply(entry["seat"], entry["move"])
    regrets = [d["regret"] for d in decisions]
    behind = [d["behind_heuristic"] for d in decisions]
    return {
        "game": game.game_id, "players": game.players, "seat": seat, "budget_ms": budget_ms,
        "over": game.over, "decisions": decisions,
        "total_regret": round(sum(regrets), 2),
        "mean_regret": round(sum(regrets) / len(regrets), 3) if regrets else 0.0,
        "total_behind_heuristic": round(sum(behind), 2),
        "mean_behind_heuristic": round(sum(behind) / len(behind), 3) if behind else 0.0,
        "seat_total": game.totals[seat], "totals": list(game.totals),
        "elapsed_s": round(time.perf_counter() - started, 2),
    }


def _decision(view: SeatView, chosen: Any, index: int, budget_ms: int,
              rng: random.Random, worlds: int | None = None) -> dict[str, Any]:
    decision = view["decision"]
    if decision is None:
        raise EngineError(f"move {index}: seat {view['seat']} had nothing to decide")
    chosen_key = move_key(chosen)
    moves = candidates(view)
    if chosen_key not in {move_key(m) for m in moves}:
        moves.append(sorted(chosen) if isinstance(chosen, list) else chosen)
    forced = len(decision["legal"]) <= decision["count"]
    out: dict[str, Any] = {"index": index, "round": view["round"], "kind": decision["kind"],
                           "legal": decision["legal"], "chosen": chosen, "forced": forced}
    if forced:
        out.update(candidates=[{"move": chosen, "value": None}], best=chosen, regret=0.0, heuristic=chosen,
                   behind_heuristic=0.0, worlds=0)
        return out
    ev = evaluate(view, budget_ms / 1000, rng, moves, min_worlds=MIN_WORLDS, prune=False, worlds=worlds)
    values = ev.values()
    out["candidates"] = [{"move": m, "value": None if v is None else round(v, 2)}
                         for m, v in zip(ev.moves, values, strict=True)]
    out["worlds"] = ev.worlds
    out["heuristic"] = ev.fallback  # always among the candidates valued: evaluate adds it
    by_key = {move_key(m): v for m, v in zip(ev.moves, values, strict=True)}
    out["behind_heuristic"] = round(behind_heuristic(by_key, chosen, ev.fallback), 2)
    if not ev.worlds:
        out.update(best=None, regret=0.0)
        return out
    best = ev.best_value()
    out["best"] = best
    out["regret"] = round(max(0.0, by_key[move_key(best)] - by_key[chosen_key]), 2)  # type: ignore[operator]
    return out


def behind_heuristic(values: Mapping[str, float | None], chosen: Move, heuristic: Move) -> float:
    """How many points the ``chosen`` move is worth less than the house heuristic's move in the same
    position: the heuristic's value minus the chosen move's, negative when the chosen move is worth more,
    0 when it is the heuristic's move or either was never valued.

    ``values`` maps each candidate's :func:`~engine.bots.search.move_key` to its value.  Unlike regret,
    the yardstick is a fixed move rather than the best of the noisy values: a decision where the move
    played is the heuristic's costs exactly 0, so a bot's mean is not drowned by the spread of the
    positions it met, and no noise of the worlds is added to every decision.

    >>> values = {"QS": -4.0, "3D": 1.5, "2H": 0.25}
    >>> behind_heuristic(values, chosen="QS", heuristic="3D"), behind_heuristic(values, "2H", "QS")
    (5.5, -4.25)
    >>> behind_heuristic(values, chosen="3D", heuristic="3D"), behind_heuristic({"QS": None}, "QS", "3D")
    (0.0, 0.0)
    """
    chosen_value, heuristic_value = values.get(move_key(chosen)), values.get(move_key(heuristic))
    if chosen_value is None or heuristic_value is None:
        return 0.0
    return heuristic_value - chosen_value


def regret_by_bot(game: str, bots: list[str], games: int, budget_ms: int, seed: int = 1,
                  options: dict[str, Any] | None = None, players: int | None = None,
                  worlds: int | None = None, search_worlds: int | None = None,
                  same_positions: bool = False) -> dict[str, Any]:
    """Play ``games`` games of ``players`` seats (default: one per bot), analyse every seat, and report
    each bot name's mean regret and mean :func:`behind_heuristic` per decision (forced moves included,
    at 0).

    Seat s of game g holds ``bots[(g + s) % len(bots)]``: over ``len(bots)`` games every bot sits in
    every seat once, so a graded set longer than a table (seven bots, four seats) is measured too.
    ``worlds``: the analysis's deterministic budget (:func:`analyse`); ``search_worlds``: the same for
    the search bots that play.  ``spearman`` (``spearman_behind_heuristic``) is Spearman's rho between
    the order of ``bots`` (listed strongest first) and the order by mean regret (mean behind the
    heuristic), lowest first: 1.0 when the analysis ranks them so.

    On the bots' own games regret compares each move with the best of noisy values, so every decision
    adds its position's spread to a bot's mean; behind the heuristic compares it with one fixed move, and
    only the decisions where a bot departs from the heuristic move its mean.  In Sloppy Seconds only the
    second orders the graded set (docs/engine.md, "Behind the heuristic").

    ``same_positions`` (duplicate analysis): every bot answers every decision of every game, whoever
    made it, from that seat's view; each position's candidates are valued once and every bot's answer
    is judged by the same values.  Bots are then compared on the same positions, so what differs
    between them is their choices alone, not the positions they happened to meet.  The cost is that of
    the plain analysis plus one answer per bot per decision (a search bot's search).
    """
    from .bots import make_bot, play_game
    from .game import new_game

    n = len(bots)
    seats = n if players is None else players
    regrets: dict[str, list[float]] = {name: [] for name in bots}
    behind: dict[str, list[float]] = {name: [] for name in bots}
    started = time.perf_counter()
    for g in range(games):
        seating = [bots[(s + g) % n] for s in range(seats)]
        played = play_game(new_game(game, seats, options, seed=f"{seed}/{g}"),
                           [make_bot(name, seed=f"{seed}/{g}/{s}", worlds=search_worlds)
                            for s, name in enumerate(seating)])
        record = played.record()
        if same_positions:
            answers = {name: make_bot(name, seed=f"{seed}/{g}/answers/{name}", worlds=search_worlds)
                       for name in bots}
            for name, judged in _answer_positions(record, answers, budget_ms, g, worlds).items():
                regrets[name] += [regret for regret, _ in judged]
                behind[name] += [points for _, points in judged]
            continue
        for s, name in enumerate(seating):
            report = analyse(record, s, budget_ms, seed=g, worlds=worlds)
            regrets[name] += [d["regret"] for d in report["decisions"]]
            behind[name] += [d["behind_heuristic"] for d in report["decisions"]]
    means = _means(regrets)
    behind_means = _means(behind)
    return {
        "game": game, "bots": bots, "players": seats, "games": games, "budget_ms": budget_ms,
        "worlds": worlds, "search_worlds": search_worlds, "options": dict(options or {}),
        "same_positions": same_positions,
        "mean_regret": means, "spearman": graded_spearman(bots, means),
        "decisions": {name: len(r) for name, r in regrets.items()},
        "mean_behind_heuristic": behind_means,
        "spearman_behind_heuristic": graded_spearman(bots, behind_means),
        "elapsed_s": round(time.perf_counter() - started, 1),
    }


def _means(per_bot: Mapping[str, list[float]]) -> dict[str, float]:
    return {name: round(sum(xs) / len(xs), 3) for name, xs in per_bot.items() if xs}


def graded_spearman(graded: list[str], measure: Mapping[str, float]) -> float | None:
    """Spearman's rho between the order of ``graded`` (strongest first) and the order by ``measure``
    (lowest first, i.e. lower is better play); None for fewer than three distinct names measured.

    >>> graded_spearman(["search", "heuristic", "eps-0.5", "random"],
    ...                 {"search": 0.1, "heuristic": 0.5, "eps-0.5": 0.4, "random": 2.0})
    0.8
    """
    from scipy.stats import spearmanr

    ranked = [name for name in graded if name in measure]
    if len(ranked) <= 2 or len(set(ranked)) != len(ranked):
        return None
    return round(float(spearmanr(range(len(ranked)), [measure[name] for name in ranked]).statistic), 3)


def _answer_positions(record: Mapping[str, Any], answers: Mapping[str, Any], budget_ms: int, seed: int,
                      worlds: int | None) -> dict[str, list[tuple[float, float]]]:
    """Each bot's (regret, behind the heuristic) on every decision of ``record``
    (``regret_by_bot(same_positions=True)``).

    A decision's candidates, with every bot's answer added, are valued once from the deciding seat's
    view, with the same worlds as :func:`analyse` would use there; a forced decision is 0 for all.
    """
    game = start_from_record(record)
    out: dict[str, list[tuple[float, float]]] = {name: [] for name in answers}
    for index, entry in enumerate(record.get("moves") or []):
        view = game.view(entry["seat"])
        decision = view["decision"]
        if decision is None:
            raise EngineError(f"move {index}: seat {entry['seat']} had nothing to decide")
        if len(decision["legal"]) <= decision["count"]:
            for judged in out.values():
                judged.append((0.0, 0.0))
        else:
            chosen = {name: bot.choose(view) for name, bot in answers.items()}
            moves = candidates(view)
            keys = {move_key(m) for m in moves}
            for move in chosen.values():
                if move_key(move) not in keys:
                    moves.append(sorted(move) if isinstance(move, list) else move)
                    keys.add(move_key(move))
            rng = random.Random(f"{seed}/{index}")
            ev = evaluate(view, budget_ms / 1000, rng, moves, min_worlds=MIN_WORLDS, prune=False,
                          worlds=worlds)
            values = ev.values()
            by_key = {move_key(m): v for m, v in zip(ev.moves, values, strict=True)}
            best = max((v for v in values if v is not None), default=None)
            for name, move in chosen.items():
                value = by_key.get(move_key(move))
                regret = 0.0 if best is None or value is None else round(max(0.0, best - value), 2)
                out[name].append((regret, round(behind_heuristic(by_key, move, ev.fallback), 2)))
        game.apply(entry["seat"], entry["move"])
    return out
