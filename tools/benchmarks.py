"""Run the benchmarks and rewrite docs/benchmarks.md from the JSON they print. Not part of `make test`.

    python tools/benchmarks.py                # every benchmark (tens of minutes), then the doc
    python tools/benchmarks.py engine api     # only these; every other table keeps its last figures
    python tools/benchmarks.py --render       # rewrite the doc from the saved results (--list: names)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "benchmarks.md"
RESULTS = ROOT / "var" / "benchmarks"
RELIABILITY = ROOT / "var" / "reliability"
GAMES = ("spot-hearts", "sore-spot", "card-commons", "sloppy-seconds")
MISSING = "—"

Row = tuple[str, str, str]  # measure, latest result, target


@dataclass(frozen=True)
class Benchmark:
    name: str
    title: str
    about: str
    commands: tuple[str, ...]
    rows: Callable[[list[Any]], list[Row]]
    #: Files under var/reliability/ written by a make target, instead of commands run here.
    reliability_files: tuple[str, ...] = ()
    make_target: str = ""


# --- reading the JSON -----------------------------------------------------------------------------------

def dig(data: Any, *path: str | int, default: Any = None) -> Any:
    """``data[path[0]][path[1]]...`` or ``default`` when any step is missing."""
    for step in path:
        try:
            data = data[step]
        except (KeyError, IndexError, TypeError):
            return default
    return data


def num(value: Any, digits: int = 0, unit: str = "") -> str:
    """A figure with thousands separators (``12,345``, ``0.57``), or a dash when it was not measured."""
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return MISSING
    text = f"{value:,.{digits}f}"
    return f"{text} {unit}".rstrip() if unit else text


def ratio(value: Any) -> str:
    return MISSING if not isinstance(value, int | float) else f"{value:.2f}×"


def yes(value: Any) -> str:
    return MISSING if value is None else ("passed" if value else "**failed**")


# --- one function per table -----------------------------------------------------------------------------

def engine_rows(outputs: list[Any]) -> list[Row]:
    # One output per command: `python -m engine bench --json` prints every game's row in one JSON list.
    by_game = {dig(row, "game"): row for out in outputs for row in (out if isinstance(out, list) else [out])}
    hearts = dig(by_game, "spot-hearts", "rounds_per_s")
    openspiel = dig(by_game, "openspiel-hearts", "rounds_per_s")
    rows = []
    for game in GAMES:
        out = by_game.get(game)
        rounds = dig(out, "rounds_per_s")
        if game == "spot-hearts":
            share = f" ({rounds / openspiel:.2f}× OpenSpiel)" if rounds and openspiel else ""
            target = "≥ 1.0× OpenSpiel's C++ Hearts (driven from Python)"
        else:
            share = f" ({rounds / hearts:.2f}× Spot Hearts)" if rounds and hearts else ""
            target = "≥ Spot Hearts ÷ 1.5"
        label = f"{game}: rounds/s ({dig(out, 'engine', default='?')} engine)"
        rows.append((label, num(rounds) + share, target))
        rows.append((f"{game}: decisions/s", num(dig(out, "decisions_per_s")), ""))
    rows.append(("OpenSpiel's C++ Hearts driven from Python: rounds/s", num(openspiel), "reference"))
    return rows


def api_rows(outputs: list[Any]) -> list[Row]:
    out = outputs[0] if outputs else {}
    rows = []
    for key, label in (("hello", "`GET /api/hello`"), ("get_seat_state", "`GET` seat state"),
                       ("post_move", "`POST` move")):
        run = dig(out, "median", key, default={})
        rows.append((f"{label}: req/s", num(dig(run, "req_per_s")), "reference" if key == "hello" else ""))
        rows.append((f"{label}: p50 / p99", f"{num(dig(run, 'p50_ms'), 1)} / {num(dig(run, 'p99_ms'), 1)} ms",
                     "p99 < 25 ms"))
        cpu = num(dig(run, "server_cpu_ms_per_request"), 2, "ms")
        rows.append((f"{label}: server CPU per request", cpu, ""))
    ratios = dig(out, "ratios_median", default={})
    rows += [
        ("GET ÷ hello (by server CPU)", f"{ratio(dig(ratios, 'get_vs_hello'))} "
         f"({ratio(dig(ratios, 'get_vs_hello_by_server_cpu'))})", "≥ 0.75×"),
        ("POST ÷ hello (by server CPU)", f"{ratio(dig(ratios, 'post_vs_hello'))} "
         f"({ratio(dig(ratios, 'post_vs_hello_by_server_cpu'))})", "≥ 0.50×"),
        ("errors", yes(dig(out, "targets_met", "zero_errors")).replace("passed", "0"), "0"),
    ]
    return rows


def bench_http_rows(outputs: list[Any]) -> list[Row]:
    clients = dig(outputs, 0, "clients", default={}) or {}
    return [(f"{name}: calls/s", f"{num(dig(r, 'calls_per_s'))} (p50 {num(dig(r, 'p50_us'))} µs, "
             f"p99 {num(dig(r, 'p99_us'))} µs)", "the fastest: the arena's own" if "arena" in name else "")
            for name, r in clients.items()]


def arena_rows(outputs: list[Any]) -> list[Row]:
    out = outputs[0] if outputs else {}
    med = dig(out, "median_ratios", default={})
    return [
        ("bare keep-alive loop: decisions/s", num(dig(out, "bare_loop", "decisions_per_s")), "reference"),
        ("one worker (in-process): decisions/s, best (median) share of bare",
         f"{num(dig(out, 'one_worker_in_process', 'decisions_per_s'))}: {ratio(dig(out, 'worker_vs_bare'))} "
         f"({ratio(dig(med, 'worker_vs_bare'))})", "≥ 0.50× bare"),
        ("full Spot Hearts game, wall time min / mean",
         f"{num(dig(out, 'one_worker_in_process', 'game_wall_ms_min'))} / "
         f"{num(dig(out, 'one_worker_in_process', 'game_wall_ms_mean'))} ms", ""),
        ("RQ workers 1 → 2: decisions/s, best (median) speed-up",
         f"{num(dig(out, 'rq_1_worker', 'decisions_per_s'))} → "
         f"{num(dig(out, 'rq_2_workers', 'decisions_per_s'))}: {ratio(dig(out, 'two_vs_one'))} "
         f"({ratio(dig(med, 'two_vs_one'))})", "≥ 1.7×"),
        ("worker / bot CPU per decision (1 worker)",
         f"{num(dig(out, 'rq_1_worker', 'worker_cpu_us_per_decision'))} / "
         f"{num(dig(out, 'rq_1_worker', 'bot_cpu_us_per_decision'))} µs", ""),
        ("house bots only, RQ workers 1 → 2: best (median) speed-up",
         f"{ratio(dig(out, 'house_two_vs_one'))} ({ratio(dig(med, 'house_two_vs_one'))})", ""),
    ]


SLOW_GOALS = {"100ms": "≥ 0.80× of 0 ms", "300ms": "≥ 0.60× of 0 ms"}


def arena_slow_rows(outputs: list[Any]) -> list[Row]:
    slow = dig(outputs, 0, "slow_bots", default={}) or {}
    runs = dig(slow, "runs", default=[]) or []
    rows = [("worker processes; measured window after the ramp-up",
             f"{num(dig(slow, 'arena_workers'))}; {num(dig(slow, 'window_s'))} s",
             "`make run`'s default arena"),
            ("load average (1 min) before each run",
             ", ".join(num(dig(r, "loadavg_before", 0), 1) for r in runs) or MISSING, "")]
    for delay, median in (dig(slow, "median", default={}) or {}).items():
        per_run = ", ".join(num(dig(r, "by_delay", delay, "decisions_per_s")) for r in runs)
        share = dig(slow, "median_share_of_0ms", delay)
        dry = sum(bool(d) for d in dig(median, "queue_ran_dry", default=[]) or [])
        rows.append((f"bots {delay} away: decisions/s, median (each run); share of 0 ms",
                     f"{num(dig(median, 'decisions_per_s'))} ({per_run}); {ratio(share)}"
                     + (f" (**the queue ran dry in {dry} run(s)**: bound by the bench, not the arena)"
                        if dry else ""),
                     SLOW_GOALS.get(delay, "")))
        rows.append((f"bots {delay} away: failed decisions (strikes) in each run (deadline "
                     f"{num(dig(slow, 'deadline_ms'))} ms)",
                     ", ".join(num(n) for n in dig(median, "failed_decisions", default=[])) or MISSING, "0"))
        rows.append((f"bots {delay} away: matches in flight per worker process; its RSS (largest); KiB per "
                     "match in flight above the idle process; arena's own time per decision, p99",
                     f"{num(dig(median, 'in_flight_per_process'), 1)}; "
                     f"{num(dig(median, 'rss_mib_per_process_max'))} MiB; "
                     f"{num(dig(median, 'kib_per_match_in_flight'))} KiB; "
                     f"{num(dig(median, 'arena_ms_p99'), 1)} ms",
                     "≤ 30 KiB a match" if delay == "100ms" else ""))
        rows.append((f"bots {delay} away: CPU per decision of the worker processes; of the bench's bots (on "
                     "the same 2 cores)",
                     f"{num(dig(median, 'worker_cpu_us_per_decision'))} µs; "
                     f"{num(dig(median, 'bot_cpu_us_per_decision'))} µs", ""))
    return rows


def mixed_field_rows(outputs: list[Any]) -> list[Row]:
    mixed = dig(outputs, 0, "mixed_field", default={}) or {}
    field = dig(mixed, "field", default={}) or {}
    paused = dig(mixed, "paused_after_3_health_checks", default={}) or {}
    return [
        ("the field", "; ".join(f"{group}: {what}" for group, what in field.items()) or MISSING, ""),
        ("near bots' matches: decisions/s per match in flight, with → without the bad bots in the field",
         f"{num(dig(mixed, 'near_pace_per_match_with_bad'), 1)} → "
         f"{num(dig(mixed, 'near_pace_per_match_without_bad'), 1)}: {ratio(dig(mixed, 'near_pace_share'))}",
         "≥ 0.90×"),
        ("near bots: strikes", num(dig(mixed, "near_strikes")), "0"),
        ("bad bots: strikes in finished matches",
         ", ".join(f"{bot} {n}" for bot, n in (dig(mixed, "strikes_by_bad_bot", default={}) or {}).items())
         or "none", ""),
        ("bots that forfeited a match (5 strikes)",
         ", ".join(f"{bot} ×{n}" for bot, n in (dig(mixed, "forfeits_by_bot", default={}) or {}).items())
         or "none", ""),
        ("paused after 3 health checks", ", ".join(bot for bot, yes in paused.items() if yes) or "none", ""),
    ]


def ladder_rows(outputs: list[Any]) -> list[Row]:
    rows = []
    for out in outputs:
        k, dup, replayed = dig(out, "games_per_bot"), dig(out, "duplicate"), dig(out, "replay_deals")
        target = "ρ ≥ 0.95" if dup and not replayed and k == 50 else ""
        form = "duplicate, one deal replayed per match" if replayed else "duplicate"
        form = form if dup else "no duplicate"
        rows.append((f"K = {k}, {form}: ρ mean (min of {dig(out, 'runs')})",
                     f"{num(dig(out, 'spearman'), 3)} ({num(dig(out, 'spearman_min'), 3)}), "
                     f"{num(dig(out, 'games_played'))} games", target))
    return rows


def pace_rows(outputs: list[Any]) -> list[Row]:
    rows = []
    for out in outputs:
        delay = dig(out, "bot_delay_ms")
        who = "house bots only" if delay is None else f"with a registered bot {delay} ms away"
        before, default = (dig(out, "runs", name, "ladders", default={}) or {}
                           for name in ("before_search", "default"))
        for ladder, pace in sorted(default.items()):
            share = dig(out, "pace_ratio_default_vs_before", ladder)
            match_s = f"{num(dig(before, ladder, 'mean_match_s'), 2)} → {num(pace.get('mean_match_s'), 2)} s"
            # The ladder's own search bot (its house set's first); older runs named one for every ladder.
            search_bot = (pace.get("house_bots") or [dig(out, "search_bot")])[0]
            rows.append((f"{ladder}, {who}: rated matches/min before → with `{search_bot}`"
                         f"{stale_search_bot(ladder, search_bot)}",
                         f"{num(dig(before, ladder, 'rated_per_min'), 1)} → "
                         f"{num(pace.get('rated_per_min'), 1)} ({ratio(share)}); match {match_s}",
                         "≥ 0.50×"))
    return rows


def stale_search_bot(ladder: str, measured: str | None) -> str:
    """A note when a row was measured with another search bot than the ladder's house set has now: such
    rows (and rows of one table measured under different sets) are not comparable until the next run."""
    from core.arena.model import LADDER_SEARCH_BOTS

    now = LADDER_SEARCH_BOTS.get(ladder.rsplit("-", 1)[0])
    if now is None or measured in (None, now):
        return ""
    return f" (measured before the ladder's bot became `{now}`)"


def contention_rows(outputs: list[Any]) -> list[Row]:
    rows = []
    for out in outputs:
        nice = dig(out, "analysis_nice")
        who = "default niceness (19)" if nice is None else f"niceness {nice}"
        alone, busy = (dig(out, "median_decisions_per_s", name) for name in ("alone", "busy"))
        meanwhile = dig(out, "analyses_meanwhile", default=[]) or []
        analysed = sum(r.get("analysed_decisions", 0) for r in meanwhile)
        cores = [r["worker_cores_used"] for r in meanwhile if "worker_cores_used" in r]
        workers = num(dig(out, "analysis_workers"))
        rows.append((f"ladder decisions/s alone → with {workers} analysis worker(s) busy at {who}",
                     f"{num(alone)} → {num(busy)}: {num(dig(out, 'slowdown_percent'), 1)} % slower "
                     f"(best runs: {num(dig(out, 'slowdown_percent_best'), 1)} %); {num(analysed)} decisions "
                     f"analysed meanwhile on {num(sum(cores) / len(cores) if cores else None, 2)} cores",
                     "≤ 5 % slower" if nice is None else "reference"))
    return rows


def challenge_pace_rows(outputs: list[Any]) -> list[Row]:
    rows = []
    for out in outputs:
        alone, flooded = (dig(out, name, default={}) or {} for name in ("alone", "flooded"))
        answers = ", ".join(f"{n} × {status}" for status, n in (flooded.get("flood_answers") or {}).items())
        rows.append((f"the four ladders' rated matches/min alone → under a flood of challenges from "
                     f"{num(dig(out, 'flooders'))} owners ({num(dig(out, 'challenge_workers'))} challenge "
                     "worker)",
                     f"{num(alone.get('ladder_rated_per_min'), 1)} → "
                     f"{num(flooded.get('ladder_rated_per_min'), 1)} "
                     f"({ratio(dig(out, 'pace_ratio_flooded_vs_alone'))}); "
                     f"{num(flooded.get('challenges_played_per_min'), 1)} challenges played/min meanwhile",
                     "≥ 0.90×"))
        if answers:
            rows.append(("the flood's answers (201 queued, 429 challenge-quota-exceeded, 503 "
                         "challenge-queue-full)", answers, ""))
    return rows


def play_table_rows(outputs: list[Any]) -> list[Row]:
    rows = []
    for out in outputs:
        where = f"{num(dig(out, 'tables'))} tables, {num(dig(out, 'round_trip_ms', 'moves'))} moves"
        first = "a person's table page: from its load to the first legal card shown, p50 (max)"
        rows.append((f"{first} ({where})",
                     f"{num(dig(out, 'first_legal_card_ms', 'p50'), 1, 'ms')} "
                     f"({num(dig(out, 'first_legal_card_ms', 'max'), 1, 'ms')})", "< 1,000 ms"))
        rows.append(("a move's round trip as the page sees it (POST .../moves), p50 / p99",
                     f"{num(dig(out, 'round_trip_ms', 'p50'), 1, 'ms')} / "
                     f"{num(dig(out, 'round_trip_ms', 'p99'), 1, 'ms')}", "p99 < 250 ms"))
    return rows


def tournament_pace_rows(outputs: list[Any]) -> list[Row]:
    rows = []
    for out in outputs:
        walls = dig(out, "wall_s", default=[]) or []
        events = num(len(walls) if walls else dig(out, "events"))
        each = [r for r in dig(out, "pace_ratio_per_event", default=[]) or [] if isinstance(r, int | float)]
        spread = f"; per event {ratio(min(each))}–{ratio(max(each))}" if each else ""
        rows.append((f"a {num(dig(out, 'field'))}-bot Swiss event of {num(dig(out, 'rounds'))} rounds "
                     f"({dig(out, 'game', default=MISSING)}, 4 seats): wall time, median of {events} events",
                     f"{num(dig(out, 'wall_s_median'), 1)} s"
                     + (f" ({num(min(walls), 1)}–{num(max(walls), 1)} s)" if walls else ""), ""))
        rows.append((f"the four ladders' rated matches/min with no event → while one plays ({events} of each "
                     f"window, {num(dig(out, 'window_s'))} s in all each)",
                     f"{num(dig(out, 'ladder_rated_per_min_alone'), 1)} → "
                     f"{num(dig(out, 'ladder_rated_per_min_during_event'), 1)} "
                     f"({ratio(dig(out, 'pace_ratio'))}{spread})",
                     "≥ 0.90×"))
        rows.append(("the graded house bots' final places against their grades (Spearman, mean of the "
                     "events)", num(dig(out, "spearman_graded_mean"), 2), "> 0"))
    return rows


def idle_rows(outputs: list[Any]) -> list[Row]:
    rows = []
    for out in outputs:
        gap = dig(out, "house_only_gap_s")
        gap_text = f"{num(gap)} s" if gap else "as set"
        processes = num(dig(out, "processes"))
        rows.append((f"`make run` with no outside bot, house-only gap {gap_text}: CPU a minute ({processes} "
                     "processes), memory",
                     f"{num(dig(out, 'cpu_s_per_minute'), 1)} CPU s ({num(dig(out, 'cores'), 2)} cores), "
                     f"{num(dig(out, 'rss_mib'))} MiB; {num(dig(out, 'rated_matches'))} rated matches",
                     "≤ 0.2 cores" if gap is None else ""))
    return rows


def dead_bot_rows(outputs: list[Any]) -> list[Row]:
    rows = []
    for out in outputs:
        for name, bot in (dig(out, "bots") or {}).items():
            if bot.get("listed") == "ranked":
                place = f"ranked {bot['rank']} of {bot['of']}"
            else:
                place = f"not ranked ({bot.get('listed', '?')})"
            where = f"after {num(dig(out, 'minutes'))} min on {dig(out, 'ladder')}"
            rows.append((f"{where}: `{name}` (first check: {bot.get('probe')})",
                         f"{place}; Elo {num(bot.get('rating'))}, {num(bot.get('matches'))} rated matches, "
                         f"{num(bot.get('forfeits'))} forfeited",
                         "never above a bot that answers" if name.startswith("dead-") else ""))
    return rows


def decision_log_rows(outputs: list[Any]) -> list[Row]:
    rows = []
    for out in outputs:
        for game in dig(out, "per_game", default=[]) or []:
            with_log = dig(game, "store_ms", "with", default={})
            without = dig(game, "store_ms", "without", default={})
            decisions, games = num(dig(game, "decisions_per_match")), num(dig(game, "games_per_match"))
            name, replays = dig(game, "game"), num(dig(game, "replay_bytes_per_match"))
            rows.append((f"{name}: decision log per match ({decisions} decisions in {games} games; "
                         f"replays {replays} B)",
                         f"{num(dig(game, 'log_bytes_per_match'))} B "
                         f"({num(dig(game, 'log_bytes_per_decision'), 1)} B a decision)", ""))
            rows.append((f"{dig(game, 'game')}: storing a match's result, p50 / p99 over "
                         f"{num(dig(game, 'matches'))} matches, with the log → without",
                         f"{num(with_log.get('p50'), 2)} / {num(with_log.get('p99'), 2)} ms → "
                         f"{num(without.get('p50'), 2)} / {num(without.get('p99'), 2)} ms", ""))
    return rows


def load_rows(outputs: list[Any]) -> list[Row]:
    out = outputs[0] if outputs else {}
    rows = [
        ("requests (5xx, network errors)", f"{num(dig(out, 'requests'))} ({num(dig(out, 'http_5xx'))}, "
         f"{num(dig(out, 'network_errors'))})", "0 5xx"),
        ("lost or doubled moves", num(dig(out, "lost_or_doubled_count")), "0"),
        ("finished tables replayed by the engine CLI", f"{num(dig(out, 'replays_verified_by_engine_cli'))} / "
         f"{num(dig(out, 'tables_finished'))}", "all"),
        ("tables whole in Redis", f"{num(whole_tables(out))} / {num(dig(out, 'tables_checked_in_redis'))}",
         "all"),
    ]
    for endpoint, stats in sorted((dig(out, "endpoints", default={}) or {}).items()):
        latency = f"{num(dig(stats, 'p50_ms'))} / {num(dig(stats, 'p99_ms'))} ms"
        rows.append((f"`{endpoint}` p50 / p99", latency, ""))
    rows.append(("verdict", yes(dig(out, "passed")), "passed"))
    return rows


def whole_tables(out: Any) -> int | None:
    checked = dig(out, "tables_checked_in_redis")
    return None if checked is None else checked - len(dig(out, "corrupt_tables", default=[]) or [])


def soak_rows(outputs: list[Any]) -> list[Row]:
    out = outputs[0] if outputs else {}
    rated = dig(out, "rated_per_ladder", default={}) or {}
    per_ladder = ", ".join(f"{ladder} {count:,}" for ladder, count in sorted(rated.items()))
    return [
        ("matches rated", f"{num(dig(out, 'matches', 'rated'))} ({per_ladder or MISSING})", ""),
        ("rating problems (each match rated exactly once)", num(len(dig(out, "problems", default=[]) or [])),
         "0"),
        ("stuck / aborted matches", f"{num(len(dig(out, 'stuck', default={}) or {}))} / "
         f"{num(dig(out, 'matches', 'aborted', default=0))}", "0 stuck"),
        ("registered bots that played", f"{num(dig(out, 'registered_bots_that_played'))} / "
         f"{num(dig(out, 'setup', 'registered_http_bots'))}", "all"),
        ("match created → rated, p50 / p99", f"{num(dig(out, 'match_created_to_rated', 'p50_s'), 2)} / "
         f"{num(dig(out, 'match_created_to_rated', 'p99_s'), 2)} s", ""),
        ("verdict", yes(dig(out, "passed")), "passed"),
    ]


def faults_rows(outputs: list[Any]) -> list[Row]:
    rows = []
    for out in outputs:
        command = dig(out, "command", default="?")
        if "redis-restart" in command:
            detail = (f"{dig(out, 'fault')}: {num(dig(out, 'rated_before_still_rated_unchanged'))} / "
                      f"{num(dig(out, 'rated_before_fault'))} ratings unchanged, first new rating after "
                      f"{num(dig(out, 'first_new_rating_after_fault_s'), 1)} s")
        elif "api-restart" in command:
            detail = (f"{dig(out, 'fault')}: API back after {num(dig(out, 'api_back_after_s'), 1)} s, "
                      f"{num(dig(out, 'client_tables_finished_after_fault'))} tables finished after")
        else:
            detail = (f"{num(dig(out, 'matches', 'rated'))} matches rated, "
                      f"{num(len(dig(out, 'strikes_on_good_bots', default=[]) or []))} strikes on good bots")
        rows.append((f"`{command}`", f"{yes(dig(out, 'passed'))}: {detail}", "passed"))
    return rows


def failover_rows(outputs: list[Any]) -> list[Row]:
    rows = []
    for out in outputs:
        wait = dig(out, "wait_ms")
        setting = f"TA_REDIS_WAIT_MS={wait}" if wait else "no WAIT"
        store_s, api_s = dig(out, "writes_accepted_after_s"), dig(out, "api_writes_accepted_after_s")
        rows += [
            (f"{setting}: writes accepted again after the SIGKILL (Redis; the API)",
             f"{num(store_s, 1)} s; {num(api_s, 1)} s (down-after {num(dig(out, 'down_after_ms'))} ms)",
             "< 15 s"),
            (f"{setting}: acknowledged moves lost", num(dig(out, "acknowledged_moves_lost")), "0"),
            (f"{setting}: ratings lost / rating problems (applied twice, …)",
             f"{num(dig(out, 'ratings_lost'))} of {num(dig(out, 'rated_before_fault'))} / "
             f"{num(len(dig(out, 'rating_problems', default=[]) or []))}", "0 / 0"),
            (f"{setting}: processes died", num(len(dig(out, "processes_died", default=[]) or [])), "0"),
            (f"{setting}: drill", f"{yes(dig(out, 'passed'))}: {num(dig(out, 'matches', 'rated'))} matches "
             f"rated, {num(dig(out, 'client_tables_finished'))} client tables finished", "passed"),
        ]
        costs = dig(out, "move_commit_cost", default=[]) or []
        if wait and len(costs) == 2:
            bare, waited = costs
            rows.append((f"move commit p50 / p90 / p99, no WAIT → WAIT 1 {wait} (one replica, loopback, "
                         f"{num(waited.get('moves'))} commits each)",
                         f"{num(bare.get('p50_ms'), 2)} / {num(bare.get('p90_ms'), 2)} / "
                         f"{num(bare.get('p99_ms'), 2)} ms → {num(waited.get('p50_ms'), 2)} / "
                         f"{num(waited.get('p90_ms'), 2)} / {num(waited.get('p99_ms'), 2)} ms", ""))
    return rows


def redis_rows(outputs: list[Any]) -> list[Row]:
    out = outputs[0] if outputs else {}
    rows = []
    move = dig(out, "api", "per_move", default={}) or {}
    if move:
        rows.append(("API: per accepted POST move",
                     f"{num(move.get('commands'), 1)} commands, {num(move.get('net_in_bytes'))} B in / "
                     f"{num(move.get('net_out_bytes'))} B out, {num(move.get('redis_cpu_us'))} µs Redis CPU",
                     ""))
    ceilings = dig(out, "ceiling", "per_ladder", default={}) or {}
    for phase in dig(out, "phases", default=[]) or []:
        per = phase.get("per_match_less_idle", {})
        top = ceilings.get(phase.get("ladder"), {})
        kind = "duplicate" if phase.get("duplicate") else "single game"
        rows.append((f"{phase.get('game')}, {kind}: per rated match",
                     f"{num(per.get('commands'))} commands, {num(per.get('net_in_bytes'))} B in / "
                     f"{num(per.get('net_out_bytes'))} B out, {num(per.get('redis_cpu_us'))} µs Redis CPU; "
                     f"one core: {num(top.get('matches_per_s_one_core'))} matches/s, "
                     f"{num(dig(top, 'bots_20ms', 'concurrent_bots'))} / "
                     f"{num(dig(top, 'bots_100ms', 'concurrent_bots'))} concurrent 20 / 100 ms bots", ""))
    stored = dig(out, "storage", "mean_bytes", default={}) or {}
    if stored:
        rows.append(("stored per rated match (document + replay + idempotency key + entrants' history "
                     "and record)", f"{num(stored.get('stored_per_match'))} B (replay "
                     f"{num(stored.get('games'))} B)", ""))
    tables = dig(out, "api", "tables", default={}) or {}
    if tables.get("moves"):
        rows.append(("stored per move of a practice table (hash, move log, views)",
                     f"{num(tables.get('bytes_per_move'))} B", ""))
    rows.append(("arena workers on separate machines (network namespaces): finished matches per worker",
                 ", ".join(f"{k}: {v}" for k, v in (dig(out, "matches_by_worker", default={}) or {}).items())
                 or MISSING, ""))
    rows.append(("audit: every finished match rated exactly once",
                 f"{num(dig(out, 'audit', 'matches', 'rated'))} rated, "
                 f"{len(dig(out, 'audit', 'problems', default=[]) or [])} problems", "0 problems"))
    return rows


def growth_rows(outputs: list[Any]) -> list[Row]:
    """One row per curve: its values at each size, the fitted exponent, its goal and whether it is met; then
    the plot (written by the same command) and the curves it could not measure."""
    out = outputs[0] if outputs else {}
    rows: list[Row] = []
    for curve in dig(out, "curves", default=[]) or []:
        sizes, values = curve.get("sizes") or [], curve.get("values") or []
        figures = ", ".join(f"{n:,}: {num(v, 3 if abs(v) < 10 else 0)}"
                            for n, v in zip(sizes, values, strict=False))
        goal = [f"k ≤ {curve['max_exponent']:g}"] if curve.get("max_exponent") is not None else []
        if curve.get("limit") is not None:
            goal.append(f"≤ {curve['limit']:g} {curve.get('unit', '')} at {sizes[-1]:,}" if sizes else "")
        p99 = dig(curve, "extra", "p99_ms")
        tail = f" (p99: {', '.join(num(v, 1) for v in p99)} ms)" if p99 else ""
        rows.append((f"{curve.get('title')} ({curve.get('unit')}), by {curve.get('axis')}",
                     f"{figures}{tail}; k = {num(curve.get('exponent'), 2)}; {yes(curve.get('goal_met'))}",
                     "; ".join(goal) or "reference"))
        keys = dig(curve, "extra", "per_match_keys")
        if keys:
            rows.append(("bytes per match by key (MEMORY USAGE); per bot registered; per analysis",
                         ", ".join(f"{k.replace('_', ' ')} {num(v)}" for k, v in keys.items())
                         + f"; bot {num(dig(curve, 'extra', 'bytes_per_bot'))}; analysis "
                         f"{num(dig(curve, 'extra', 'bytes_per_analysis'))}; a day at 1 match/s without "
                         f"retention {num(dig(curve, 'extra', 'day_at_1_match_per_s_gib'), 2)} GiB", ""))
        retained = dig(curve, "extra", "year_at_1_match_per_s")
        if retained:
            rows.append(("a year at 1 match/s under the retention policy (defaults)",
                         f"{num(retained.get('total_gib'), 1)} GiB ("
                         + ", ".join(f"{k.replace('_', ' ')} {num(v, 1)}" for k, v in retained["gib"].items())
                         + f"; {retained.get('bots'):,} bots)", ""))
    rows.append(("plot", "![growth curves, log-log](growth.png)", ""))
    return rows


def inflight_rows(outputs: list[Any]) -> list[Row]:
    """The in-flight curves as the growth table shows curves, with their own plot."""
    rows = [row for row in growth_rows(outputs) if row[0] != "plot"]
    return [*rows, ("plot", "![matches in flight, log-log](growth-inflight.png)", "")]


MATCH_FLOOR_PARTS = (
    ("spec", "its MatchSpec"), ("game", "a Spot Hearts game halfway through"),
    ("connections", "4 kept-alive bot connections"),
    ("bookkeeping", "the match runner with its call and decision logs"), ("job", "the RQ job object"))
MATCH_FLOOR_RUNNERS = (
    ("greenlet", "a gevent greenlet"), ("thread", "a gevent-patched thread"),
    ("coroutine", "an asyncio task"),
    ("rq-worker", "an RQ worker of the pool, its thread and job (today's)"))


def match_floor_rows(outputs: list[Any]) -> list[Row]:
    out = outputs[0] if outputs else {}
    parts, depth = dig(out, "kib_per_match", default={}) or {}, dig(out, "depth")
    rows = [(f"a waiting match holds {what}", num(dig(parts, name), 1, "KiB")
             + ("" if name == "spec" else " (with its spec)"), "") for name, what in MATCH_FLOOR_PARTS]
    rows.append(("all of these at once: the state of a match in flight, whatever runs it",
                 num(dig(out, "state_kib"), 1, "KiB"), ""))
    for name, what in MATCH_FLOOR_RUNNERS:
        below = " (below RQ's own)" if name == "rq-worker" else ""
        rows.append((f"run by {what}, waiting {num(depth)} calls deep{below}: the runner alone; "
                     "state + runner",
                     f"{num(dig(parts, name), 1, 'KiB')}; "
                     f"{num(dig(out, 'state_plus_runner_kib', name), 1, 'KiB')}",
                     "≤ 30 KiB a match in flight" if name == "rq-worker" else ""))
    return rows


MEMORY_GAMES = (("spot-hearts", '{"target": 1}'), ("card-commons", '{"target": 1}'),
                ("sore-spot", '{"rounds": 1}'), ("sloppy-seconds", '{"target": 1}'))


def memory_commands() -> tuple[str, ...]:
    return tuple(f"python -m arena memory-gain --game {game} --options '{options}' --matches 60 "
                 f"--seed 1{flag}" for game, options in MEMORY_GAMES for flag in ("", " --replay-deals"))


def memory_rows(outputs: list[Any]) -> list[Row]:
    rows = []
    for out in outputs:
        replayed = dig(out, "replay_deals")
        form = "one deal replayed in every game of a match" if replayed else "fresh deals (the arena's)"
        rows.append((f"{dig(out, 'game')}, {form}: gain per match (won / lost, sign test p)",
                     f"{num(dig(out, 'gain_per_match'), 2)} ({dig(out, 'won')} / {dig(out, 'lost')}, "
                     f"p {dig(out, 'sign_test_p'):.2g}); "
                     f"{num(dig(out, 'recalled_decisions'))} decisions recalled",
                     "" if replayed else "no gain (p > 0.05)"))
    return rows


def ismcts_rows(outputs: list[Any]) -> list[Row]:
    rows = []
    for out in outputs:
        ms = dig(out, "ms_per_decision")
        p = dig(out, "p_value")
        rows += [
            (f"search bot, {ms} ms per decision: Card Commons points per seat and hand",
             num(dig(out, "ours_points_per_hand"), 2), "fewer than ISMCTS's"),
            (f"OpenSpiel's ISMCTS (random rollouts), {ms} ms per decision: points per seat and hand",
             num(dig(out, "ismcts_points_per_hand"), 2), "reference"),
            (f"duplicate deals won / lost / tied by the search bot, of {dig(out, 'deals')}: sign test p",
             f"{dig(out, 'deals_won')} / {dig(out, 'deals_lost')} / {dig(out, 'deals_tied')}: "
             + (f"p {p:.2g}" if isinstance(p, int | float) else MISSING), "won, p < 0.01"),
            ("decisions per second, both bots (time used per decision: search bot / ISMCTS)",
             f"{num(dig(out, 'decisions_per_s'), 1)} ({num(dig(out, 'ours_ms_per_decision'))} / "
             f"{num(dig(out, 'ismcts_ms_per_decision'))} ms)", ""),
        ]
    return rows


def training_rows(outputs: list[Any]) -> list[Row]:
    """`python -m tools.training_bench` (speed), `clients/examples/train_policy.py --no-ladder` (a policy)."""
    rows = []
    for out in outputs:
        if "games" in out:
            for game in GAMES:
                row = dig(out, "games", game, default={})
                ratio = dig(row, "aec_vs_engine")
                rows.append((f"{game}: cards/s, PettingZoo AEC environment (views in infos / without) vs the "
                             f"bare engine's random playouts ({dig(out, 'engine', default='?')} engine)",
                             f"{num(dig(row, 'aec_steps_per_s'))} / "
                             f"{num(dig(row, 'aec_no_view_steps_per_s'))} "
                             f"vs {num(dig(row, 'engine_steps_per_s'))}"
                             + (f" ({ratio:.2f}×)" if isinstance(ratio, int | float) else ""),
                             "≥ 0.5× the engine's"))
                ceiling = dig(row, "null_aec_vs_engine")
                rows.append((f"{game}: steps/s, an AEC environment that does nothing (the turn passed "
                             "round-robin, one preallocated observation) driven by the same loop: the "
                             "ceiling of any PettingZoo environment here",
                             num(dig(row, "null_aec_steps_per_s"))
                             + (f" ({ceiling:.2f}×)" if isinstance(ceiling, int | float) else ""), ""))
                free = dig(row, "free_observation_vs_engine")
                rows.append((f"{game}: steps/s, an AEC environment whose observation, mask and bookkeeping "
                             "cost nothing: the loop above, the engine's moves alone "
                             f"({num(dig(row, 'engine_moves_steps_per_s'))}/s) and a step's new arrays",
                             num(dig(row, "free_observation_steps_per_s"))
                             + (f" ({free:.2f}×)" if isinstance(free, int | float) else ""), ""))
                rows.append((f"{game}: cards/s, Gymnasium single-seat environment (random house bots)",
                             num(dig(row, "seat_env_steps_per_s")), ""))
                rows.append((f"{game}: OpenSpiel random simulations (deals)/s, our Python game",
                             num(dig(row, "openspiel_sims_per_s"), 1), ""))
            rows.append(("OpenSpiel's C++ `hearts`: random simulations (deals)/s, same loop",
                         num(dig(out, "openspiel_hearts_sims_per_s"), 1), "reference"))
        elif "mean_points" in out:
            deals = dig(out, "eval_deals")
            training = dig(out, "training", default={})
            rows.append((f"{dig(out, 'game')}: example policy trained {num(dig(training, 'seconds'), 1)} s "
                         f"({num(dig(training, 'episodes'))} deals), wall time to the end of its evaluation",
                         f"{num(dig(out, 'wall_s'), 1)} s", "< 60 s"))
            for opponents in ("random", "heuristic"):
                points = dig(out, "mean_points", opponents, default={})
                rows.append((f"{dig(out, 'game')}: mean points per deal against `{opponents}` over {deals} "
                             "deals, trained policy (random play in the same seat)",
                             f"{num(dig(points, 'trained'), 2)} ({num(dig(points, 'random_play'), 2)})",
                             "above random play"))
    return rows


def simulate_commands() -> tuple[str, ...]:
    return tuple(f"python -m arena simulate-ladder --game spot-hearts --games-per-bot {k}{dup} --seed 1 "
                 "--runs 5 --bots heuristic,eps-0.15,eps-0.3,eps-0.45,eps-0.6,eps-0.75,eps-0.9,random"
                 for k in (10, 25, 50) for dup in ("", " --duplicate", " --duplicate --replay-deals"))


BENCHMARKS = (
    Benchmark("engine", "Engine speed",
              "Complete rounds with random bots through the public API, every rule, passing included, "
              "next to OpenSpiel's Hearts in the same run; the best of 7 alternating runs (docs/engine.md).",
              ("python -m engine bench --rounds 2000 --seed 1 --repeat 7 --json",), engine_rows),
    Benchmark("api", "API throughput and latency",
              "gunicorn (gevent, 2 workers) on loopback, 16 keep-alive connections, the median of 3 rounds "
              "of 10 s; GET and POST next to a hello-world route the benchmark adds to the same app "
              "(tools/bench_app.py, docs/api.md).",
              ("python -m tools.bench_api",), api_rows),
    Benchmark("bench-http", "Bot-call HTTP clients",
              "Bare keep-alive loops of POST /move against one local bench bot: the data behind the arena's "
              "own HTTP client (docs/arena.md).", ("python -m tools.arena_bench_http",), bench_http_rows),
    Benchmark("arena", "Arena worker speed",
              "4 local HTTP bench bots, full Spot Hearts games; the best of 5 interleaved runs with the "
              "median in brackets (docs/arena.md).", ("python -m tools.arena_bench --repeat 5",), arena_rows),
    Benchmark("arena-slow", "Arena workers against slow bots",
              "The default arena of `make run` (2 processes of `python -m arena worker`) against 4 local "
              "bench bots (two event-loop processes) that answer every /move after 0, 20, 100 and 300 ms, "
              "side by side in each run, Spot Hearts to 100, a ladder's default 1 s deadline per decision; "
              "a queue that never runs dry, measured from the workers' own metrics over 20 s after the "
              "ramp-up; medians of 3 runs (docs/arena.md).",
              ("python -m tools.arena_bench --slow-only --repeat 3",), arena_slow_rows),
    Benchmark("arena-mixed", "A slow or failing bot costs only its own matches",
              "The default arena against a field of 34 bots, tables of 4 drawn at random: 28 bots 20 ms "
              "away, 2 at 900 ms, 2 that answer after the 1 s deadline, 2 closed ports; the near bots' "
              "matches next to a field of the 28 near bots alone (docs/arena.md).",
              ("python -m tools.arena_bench --slow-only --delays-ms '' --repeat 1 --mixed",),
              mixed_field_rows),
    Benchmark("ladder", "Does the ladder find the true order?",
              "The real matchmaking, match and Elo code offline, 8 house bots of known strength order, 5 "
              "independent ladders per row; ρ is Spearman's between ladder and true order. Duplicate: fresh "
              "deals scored against the reference; replayed: one deal per match, bots rotated (the format "
              "that shows a bot a deal twice), for comparison (docs/arena.md).",
              simulate_commands(), ladder_rows),
    Benchmark("memory", "Does remembering pay?",
              "A bot that remembers every card it has seen (arena.memorybot) against its memoryless twin, "
              "the house heuristic: 60 duplicate matches per row, each played by both on the same deals and "
              "seats against three heuristics; gain in the game's good direction (docs/arena.md).",
              memory_commands(), memory_rows),
    Benchmark("ismcts", "The search bot against OpenSpiel's ISMCTS",
              "An outside yardstick: the `search` house bot against OpenSpiel's ISMCTS (`pyspiel.ISMCTSBot`, "
              "random-rollout evaluator) at Card Commons, OpenSpiel's Hearts with the parameters that make "
              "it Card Commons played in lockstep with our engine; the same wall time per decision for both; "
              "every deal played twice with the seats swapped (duplicate), the sign test over the deals; "
              "points are Card Commons points, lower is better (docs/engine.md).",
              ("python -m tools.vs_ismcts",), ismcts_rows),
    Benchmark("training", "The training ground",
              "Cards played per second (a pass counts three) of the training ground's environments next to "
              "the engine's own random playouts, in the same run, 4 players, random legal actions, and next "
              "to an AEC environment that does nothing, driven by the same loop (what PettingZoo's calls and "
              "the loop cost: no environment here can be faster); "
              "OpenSpiel random simulations of one deal of our Python games next to OpenSpiel's C++ `hearts` "
              "driven by the same Python loop; then the example policy of docs/training.md (a linear policy, "
              "REINFORCE against `random`, 40 s on the CPU) and its mean points per deal, signed so that "
              "more is better, against `random` and `heuristic` on deals it never trained on.",
              ("python -m tools.training_bench", "python clients/examples/train_policy.py --no-ladder"),
              training_rows),
    Benchmark("ladder-pace", "Ladder pace with the search bot",
              "The four default ladders as `make run` plays them (the real scheduler, 2 processes of "
              "`python -m arena worker`) for 3 minutes after a 20 s warm-up, with the default house set and "
              "with the set before the search bot joined it; house bots only, then with one registered local "
              "bot answering after 20 and after 0 ms (docs/arena.md).",
              ("python -m tools.ladder_pace", "python -m tools.ladder_pace --bot-delay-ms 20",
               "python -m tools.ladder_pace --bot-delay-ms 0"), pace_rows),
    Benchmark("analysis-contention", "Analysis workers next to the ladder",
              "House-bot Spot Hearts matches drained by the arena of `make run` (2 processes of `python -m "
              "arena worker`, both cores busy), alone and with the analysis worker of the Procfile busy on a "
              "full queue (20 analyses at 250 ms per decision), 3 interleaved runs each; the slowdown of the "
              "median match throughput, with the analysis worker at its default niceness and at the match "
              "workers' (docs/arena.md).",
              ("python -m tools.analysis_contention",
               "python -m tools.analysis_contention --analysis-nice 0"), contention_rows),
    Benchmark("challenge-pace", "Challenges and the ladder's pace",
              "The four default ladders as `make run` plays them (the real scheduler, 2 processes of `python "
              "-m arena worker`, one registered local bot answering at once, so the ladder is bound by CPU) "
              "for 2 minutes after a 20 s warm-up, alone and with the challenge worker of the Procfile busy "
              "on a flood: 8 owners posting 4-player Spot Hearts challenges against the search bot through "
              "the API as fast as it takes them (docs/arena.md, Challenges).",
              ("python -m tools.challenge_pace",), challenge_pace_rows),
    Benchmark("play-table", "A person at the table",
              "A person plays Card Commons tables (target 1: one round) in a headless Chromium from the "
              "/play page, against a registered local HTTP bot and two house bots, on the processes of "
              "`make run` (gunicorn with 2 gevent workers, the house-bot and challenge workers); the page's "
              "own timings (docs/web.md, Play a table).",
              ("python -m tools.play_table",), play_table_rows),
    Benchmark("tournament-pace", "A Swiss event and the ladder's pace",
              "The four default ladders as `make run` plays them (the real scheduler, 2 processes of `python "
              "-m arena worker`, one registered local bot answering at once) and the tournaments worker of "
              "the Procfile: 16-bot Swiss events of 4 rounds in Spot Hearts (9 local bots answering at once, "
              "the graded house bots and the search bot): 12 created through the API one after another, each "
              "followed by as long a window without one, after a 20 s warm-up (docs/arena.md, "
              "Tournaments).",
              ("python -m tools.tournament_pace",), tournament_pace_rows),
    Benchmark("idle", "An idle arena",
              "The whole stack of `make run` (Redis, API, workers, scheduler) on free ports with an empty "
              "Redis and no outside bot, measured for 60 s after a 30 s warm-up: with the house-only gap "
              "the ladders had before it was a setting (3 s), and with the default (docs/arena.md, An idle "
              "arena).",
              ("python -m tools.idle_cost --house-only-gap-s 3", "python -m tools.idle_cost"), idle_rows),
    Benchmark("dead-bots", "Bots that never answer",
              "`make run` on free ports with one working bot (the random policy) and four that never play a "
              "card (moves answered with garbage, or after 2 s; a refused port; a host that does not "
              "resolve) on Sore Spot, among the house bots, for 10 minutes (docs/arena.md, New and "
              "provisional).",
              ("python -m tools.dead_bots --minutes 10",), dead_bot_rows),
    Benchmark("decision-log", "The decision log's cost",
              "Each game's default 4-player ladder format (duplicate: 4 games) between four local HTTP bots, "
              "played by the arena's match runner; each result stored twice by the real rating script, with "
              "its decision log and without one (docs/scaling.md, The decision log).",
              ("python -m tools.decision_log_cost --matches 20",), decision_log_rows),
    Benchmark("growth", "Growth",
              "How each cost grows as the arena grows, fitted as cost ≈ a·n^k: bots registered on one "
              "ladder (a tenth present, every present bot seated, the real scheduler tick, the ladder's API "
              "and web page under gunicorn), rated matches stored in Redis (the real worker code, house "
              "bots), parked long-polls and watchers; a cost per request or tick is flat when k ≤ 0.1 "
              "(docs/scaling.md, Growth; docs/arena.md, Retention).",
              ("python -m tools.growth --plot docs/growth.png",), growth_rows),
    Benchmark("inflight", "Matches in flight in one worker process",
              "One `python -m arena worker --max-in-flight N` (its lag ceiling out of the way, so the pool "
              "grows towards N whatever the CPU says) against 4 bench bots 100 ms away, N = 64, 250, 1,000 "
              "and 2,500: the steady pace over 15 s after the ramp-up, from the worker's own metrics "
              "(docs/scaling.md, Growth).",
              ("python -m tools.growth --curves inflight --plot docs/growth-inflight.png",), inflight_rows),
    Benchmark("match-floor", "What a match in flight holds",
              "Built 1,000 times in a fresh process each, RSS before and after: what a waiting match holds "
              "whatever runs it, and what each way of running it adds, each waiter 25 calls deep "
              "(docs/arena.md, Memory per match in flight).",
              ("python -m tools.match_floor",), match_floor_rows),
    Benchmark("redis", "The ceiling of one Redis",
              "Redis's own counters (INFO commandstats, stats, cpu) per rated match (house bots, real "
              "scheduler and RQ workers in 3 network namespaces) and per API move; the matches/s and bots "
              "one Redis core carries (docs/scaling.md).",
              ("python -m tools.redis_ceiling --machines 3",), redis_rows,
              reliability_files=("redis-ceiling.json",), make_target="make bench-redis"),
    Benchmark("load", "Load: practice tables",
              "200 clients long-polling and moving on practice tables for 5 minutes, every finished table "
              "replayed (docs/reliability.md).",
              ("python -m loadtest practice --clients 200 --seconds 300",), load_rows,
              reliability_files=("practice.json",), make_target="make load"),
    Benchmark("soak", "Soak: a ladder of 40 bots",
              "40 registered HTTP bots and the house bots on the four default ladders for 10 minutes, every "
              "rating audited (docs/reliability.md).",
              ("python -m loadtest ladder --bots 40 --seconds 600",), soak_rows,
              reliability_files=("ladder.json",), make_target="make soak"),
    Benchmark("faults", "Fault drills",
              "Redis and the API stopped and killed under load, misbehaving bots on the ladders "
              "(docs/reliability.md).",
              ("python -m loadtest faults ...",), faults_rows,
              reliability_files=("faults-redis.json", "faults-redis-kill.json", "faults-api-kill.json",
                                 "faults-api-term.json", "faults-bad-bots.json"), make_target="make faults"),
    Benchmark("failover", "Redis Sentinel failover",
              "The primary Redis SIGKILLed under ladder and practice load; Sentinel promotes the replica "
              "(deploy/redis/sentinel.conf's timings) and the stack carries on by itself "
              "(docs/reliability.md).",
              ("python -m loadtest faults redis-failover ...",), failover_rows,
              reliability_files=("faults-redis-failover.json", "faults-redis-failover-nowait.json"),
              make_target="make faults"),
)
BY_NAME = {b.name: b for b in BENCHMARKS}


# --- running ---------------------------------------------------------------------------------------------

def machine() -> dict[str, Any]:
    """What the figures were measured on: they are only comparable on the same kind of machine."""
    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text().splitlines() if cpuinfo.exists() else []
    model = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), "")
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return {"cpus": os.cpu_count(), "cpu_model": model or platform.processor(),
            "memory_gb": round(memory / 2**30, 1), "system": platform.system(),
            "python": platform.python_version(), "loadavg_1m": round(os.getloadavg()[0], 2)}


def parse_output(stdout: str) -> Any:
    """The JSON a command printed: the whole output, or else its last line that parses."""
    try:
        return json.loads(stdout)
    except json.JSONDecodeError:
        for line in reversed(stdout.strip().splitlines()):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                continue
    raise ValueError("the command printed no JSON")


def run(bench: Benchmark) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = machine()
    outputs = []
    for command in bench.commands:
        print(f"[{bench.name}] {command}", file=sys.stderr, flush=True)
        argv = shlex.split(command)
        if argv[0] == "python":
            argv[0] = sys.executable  # the interpreter running this tool: the project's venv
        done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{command} exited {done.returncode}: {done.stderr.strip()[-2000:]}")
        outputs.append(parse_output(done.stdout))
    return {"benchmark": bench.name, "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": {**started, "loadavg_1m_after": round(os.getloadavg()[0], 2)},
            "commands": list(bench.commands), "outputs": outputs}


def reliability_result(bench: Benchmark, folder: Path = RELIABILITY) -> dict[str, Any] | None:
    """A drill's saved JSON as a result, or None when the drill has not been run here."""
    files = [folder / name for name in bench.reliability_files if (folder / name).exists()]
    if not files:
        return None
    outputs = [json.loads(path.read_text()) for path in files]
    newest = max(path.stat().st_mtime for path in files)
    first = outputs[0]
    return {"benchmark": bench.name, "measured": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(newest)),
            "machine": {"cpus": dig(first, "machine", "cpus"),
                        "loadavg_1m_max": dig(first, "machine", "loadavg_1m_max")},
            "commands": [dig(out, "command", default=bench.commands[0]) for out in outputs],
            "outputs": outputs}


# --- the document ----------------------------------------------------------------------------------------

HEADER = """# Benchmarks

The current figures of every benchmark, one table each: the command that measures it, the machine it ran
on, the latest result and the target. Benchmarks are separate commands, never part of `make test`. This
page is generated: `python tools/benchmarks.py` runs the benchmarks and rewrites it (`--help` for running
some of them, or only re-rendering). The reliability drills are run by `make load`, `make soak` and
`make faults`; the tool turns their JSON (`var/reliability/`) into tables.

Figures from a shared machine move from run to run (±20 % is common on a 2-core VM; ratios move less):
compare runs on the same machine, and read a target as met when the run's own figures say so.
"""


def describe_machine(info: dict[str, Any]) -> str:
    parts = []
    if info.get("cpus"):
        parts.append(f"{info['cpus']} CPUs" + (f" ({info['cpu_model']})" if info.get("cpu_model") else ""))
    if info.get("memory_gb"):
        parts.append(f"{info['memory_gb']:g} GB")
    if info.get("system"):
        parts.append(f"{info['system']}, Python {info.get('python', '?')}")
    if "loadavg_1m" in info:
        parts.append(f"load average {info['loadavg_1m']:g} → {info.get('loadavg_1m_after', 0):g}")
    if info.get("loadavg_1m_max") is not None:
        parts.append(f"load average at most {info['loadavg_1m_max']:g}")
    return ", ".join(parts) or MISSING


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def section(bench: Benchmark, result: dict[str, Any] | None) -> str:
    """One benchmark's part of the page, between markers that let a later run replace just this part."""
    how = bench.make_target or "python tools/benchmarks.py " + bench.name
    lines = [f"<!-- benchmark:{bench.name} -->", f"## {bench.title}", "", bench.about, ""]
    if result is None:
        lines += [f"Not measured yet: run `{how}`.", ""]
    else:
        commands = "<br>".join(f"`{cell(c)}`" for c in result["commands"])
        lines += ["| measure | latest result | target |", "|---|---|---|",
                  f"| command | {commands} | |",
                  f"| machine | {cell(describe_machine(result['machine']))}; {result['measured']} | |"]
        lines += [f"| {cell(m)} | {cell(r)} |{' ' + cell(t) if t else ''} |"
                  for m, r, t in bench.rows(result["outputs"])]
        lines.append("")
    lines.append(f"<!-- /benchmark:{bench.name} -->")
    return "\n".join(lines)


def sections_of(text: str) -> dict[str, str]:
    return {m.group(1): m.group(0)
            for m in re.finditer(r"<!-- benchmark:([\w-]+) -->.*?<!-- /benchmark:\1 -->", text, re.S)}


# The hand-written part at the end of the page: runs measured once, by the commands they name, that no
# benchmark above repeats (dated, with their load). The tool keeps it as it is.
MEASURED_RUNS = "<!-- measured-runs: written by hand, kept by tools/benchmarks.py -->"


def render(results: dict[str, dict[str, Any] | None], previous: str = "") -> str:
    """The whole page: a fresh table where there is a result, else the previous page's part as it was; then
    the hand-written measured runs, unchanged."""
    kept = sections_of(previous)
    parts = [HEADER]
    for bench in BENCHMARKS:
        result = results.get(bench.name)
        parts.append(section(bench, result) if result is not None or bench.name not in kept
                     else kept[bench.name])
    page = "\n".join(parts) + "\n"
    if MEASURED_RUNS in previous:
        page += "\n" + previous[previous.index(MEASURED_RUNS):]
    return page


def saved(name: str) -> dict[str, Any] | None:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("names", nargs="*", help=f"benchmarks to run ({', '.join(BY_NAME)}); default all")
    parser.add_argument("--render", action="store_true",
                        help="run nothing; rewrite the doc from the saved results")
    parser.add_argument("--list", action="store_true", help="print every benchmark's commands")
    options = parser.parse_args(argv)
    if options.list:
        for bench in BENCHMARKS:
            print(f"{bench.name}: " + " ; ".join(bench.commands) + (f"  ({bench.make_target})"
                                                                   if bench.make_target else ""))
        return 0
    unknown = set(options.names) - set(BY_NAME)
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(sorted(unknown))}; known: {', '.join(BY_NAME)}")
    names = [] if options.render else options.names or list(BY_NAME)
    chosen = [BY_NAME[name] for name in names if not BY_NAME[name].make_target]
    RESULTS.mkdir(parents=True, exist_ok=True)
    failed = False
    for bench in chosen:
        try:
            result = run(bench)
        except (RuntimeError, ValueError) as exc:
            print(f"[{bench.name}] failed, its table is left as it was: {exc}", file=sys.stderr)
            failed = True
            continue
        (RESULTS / f"{bench.name}.json").write_text(json.dumps(result, indent=1))
    results = {b.name: reliability_result(b) if b.make_target else saved(b.name) for b in BENCHMARKS}
    DOC.write_text(render(results, DOC.read_text() if DOC.exists() else ""))
    print(f"wrote {DOC.relative_to(ROOT)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
