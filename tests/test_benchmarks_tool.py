"""tools/benchmarks.py turns what the benchmark commands print into docs/benchmarks.md (rendering only: the
benchmarks themselves are never run by the test suite)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("benchmarks_tool", ROOT / "tools" / "benchmarks.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def result(name: str, outputs: list) -> dict:
    return {"benchmark": name, "measured": "2026-12-01 01:00 UTC", "commands": ["python -m x"],
            "machine": {"cpus": 2, "cpu_model": "Test CPU", "memory_gb": 8.0, "system": "Linux",
                        "python": "3.11.7", "loadavg_1m": 0.5, "loadavg_1m_after": 1.25},
            "outputs": outputs}


def table(page: str, name: str) -> str:
    start = page.index(f"<!-- benchmark:{name} -->")
    return page[start:page.index(f"<!-- /benchmark:{name} -->", start)]


API_OUTPUT = {
    "median": {"hello": {"req_per_s": 4000.0, "p50_ms": 3.0, "p99_ms": 9.5, "server_cpu_ms_per_request": 0.4},
               "get_seat_state": {"req_per_s": 2400.0, "p50_ms": 6.1, "p99_ms": 14.0,
                                  "server_cpu_ms_per_request": 0.7},
               "post_move": {"req_per_s": 1300.0, "p50_ms": 11.1, "p99_ms": 24.6,
                             "server_cpu_ms_per_request": 1.2}},
    "ratios_median": {"get_vs_hello": 0.6, "post_vs_hello": 0.325, "get_vs_hello_by_server_cpu": 0.57,
                      "post_vs_hello_by_server_cpu": 0.33},
    "targets_met": {"zero_errors": True},
}


def test_a_result_becomes_its_table_with_command_machine_result_and_target(tool) -> None:
    engine = [[
        {"game": "spot-hearts", "engine": "compiled", "rounds_per_s": 1500.0, "decisions_per_s": 80000.0},
        {"game": "sore-spot", "engine": "compiled", "rounds_per_s": 1200.0, "decisions_per_s": 60000.0},
        {"game": "openspiel-hearts", "engine": "openspiel", "rounds_per_s": 1250.0},
    ]]
    page = tool.render({"engine": result("engine", engine), "api": result("api", [API_OUTPUT])})
    rows = table(page, "engine")
    assert "| command | `python -m x` | |" in rows
    assert "| machine | 2 CPUs (Test CPU), 8 GB, Linux, Python 3.11.7, load average 0.5 → 1.25; " \
           "2026-12-01 01:00 UTC | |" in rows
    assert "| spot-hearts: rounds/s (compiled engine) | 1,500 (1.20× OpenSpiel) | ≥ 1.0× OpenSpiel's" in rows
    assert "| sore-spot: rounds/s (compiled engine) | 1,200 (0.80× Spot Hearts) | ≥ Spot Hearts ÷ 1.5" in rows
    assert "| card-commons: rounds/s (? engine) | — |" in rows  # a game the run did not print
    assert "| OpenSpiel's C++ Hearts driven from Python: rounds/s | 1,250 | reference |" in rows
    api = table(page, "api")
    assert "| `POST` move: p50 / p99 | 11.1 / 24.6 ms | p99 < 25 ms |" in api
    assert "| POST ÷ hello (by server CPU) | 0.33× (0.33×) | ≥ 0.50× |" in api
    assert "| errors | 0 | 0 |" in api
    assert "Not measured yet: run `make soak`." in table(page, "soak")


def test_a_benchmark_not_run_keeps_its_previous_table(tool) -> None:
    first = tool.render({"api": result("api", [API_OUTPUT])})
    again = tool.render({}, previous=first)
    assert table(again, "api") == table(first, "api")
    newer = dict(API_OUTPUT, ratios_median={**API_OUTPUT["ratios_median"], "get_vs_hello": 0.9})
    replaced = tool.render({"api": result("api", [newer])}, previous=first)
    assert "| GET ÷ hello (by server CPU) | 0.90× (0.57×) |" in table(replaced, "api")
    assert replaced.count("<!-- benchmark:api -->") == 1


def test_ladder_and_arena_rows(tool) -> None:
    ladder = [{"games_per_bot": 50, "duplicate": True, "runs": 5, "spearman": 0.995, "spearman_min": 0.976,
               "games_played": 2048}]
    arena = {"bare_loop": {"decisions_per_s": 11156.0}, "one_worker_in_process": {"decisions_per_s": 7870.0},
             "worker_vs_bare": 0.705, "rq_1_worker": {"decisions_per_s": 6373.0},
             "rq_2_workers": {"decisions_per_s": 13874.0}, "two_vs_one": 2.177,
             "median_ratios": {"worker_vs_bare": 0.68, "two_vs_one": 2.4}}
    page = tool.render({"ladder": result("ladder", ladder), "arena": result("arena", [arena])})
    assert "| K = 50, duplicate: ρ mean (min of 5) | 0.995 (0.976), 2,048 games | ρ ≥ 0.95 |" in page
    speed_up = "| RQ workers 1 → 2: decisions/s, best (median) speed-up | 6,373 → 13,874: 2.18× (2.40×) |"
    assert f"{speed_up} ≥ 1.7× |" in page


def test_arena_slow_bot_rows(tool) -> None:
    def sample(rate: float) -> dict:
        return {"decisions_per_s": rate}

    runs = [{"loadavg_before": [3.5, 2, 1], "by_delay": {"0ms": sample(900.0), "100ms": sample(700.0)}},
            {"loadavg_before": [4.3, 2, 1], "by_delay": {"0ms": sample(1100.0), "100ms": sample(800.0)}}]
    slow = {"arena_workers": 2, "window_s": 20.0, "deadline_ms": 1000, "runs": runs,
            "median_share_of_0ms": {"0ms": 1.0, "100ms": 0.75},
            "median": {"0ms": {"decisions_per_s": 1000.0, "in_flight_per_process": 1.25,
                               "failed_decisions": [0, 0], "rss_mib_per_process_max": 70.4,
                               "kib_per_match_in_flight": 900.0, "arena_ms_p99": 0.4},
                       "100ms": {"decisions_per_s": 750.0, "in_flight_per_process": 62.0,
                                 "failed_decisions": [0, 3], "rss_mib_per_process_max": 72.0,
                                 "kib_per_match_in_flight": 61.4, "arena_ms_p99": 12.25}}}
    page = table(tool.render({"arena-slow": result("arena-slow", [{"slow_bots": slow}])}), "arena-slow")
    assert "| worker processes; measured window after the ramp-up | 2; 20 s |" in page
    assert "| load average (1 min) before each run | 3.5, 4.3 | |" in page
    assert ("| bots 100ms away: decisions/s, median (each run); share of 0 ms | 750 (700, 800); 0.75× |"
            in page)
    assert "0.75× | ≥ 0.80× of 0 ms |" in page
    assert "| 62.0; 72 MiB; 61 KiB; 12.2 ms | ≤ 30 KiB a match |" in page
    assert ("| bots 100ms away: failed decisions (strikes) in each run (deadline 1,000 ms) | 0, 3 | 0 |"
            in page)


def test_mixed_field_rows(tool) -> None:
    mixed = {"field": {"near": "28 bots 20 ms away", "refusing": "2 closed ports"},
             "near_pace_per_match_with_bad": 41.25, "near_pace_per_match_without_bad": 44.0,
             "near_pace_share": 0.9375, "near_strikes": 0,
             "strikes_by_bad_bot": {"late0": 40, "refusing1": 35}, "forfeits_by_bot": {"late0": 8},
             "paused_after_3_health_checks": {"late0": False, "refusing1": True}}
    page = table(tool.render({"arena-mixed": result("arena-mixed", [{"mixed_field": mixed}])}), "arena-mixed")
    assert "| the field | near: 28 bots 20 ms away; refusing: 2 closed ports | |" in page
    assert "with → without the bad bots in the field | 41.2 → 44.0: 0.94× | ≥ 0.90× |" in page
    assert "| near bots: strikes | 0 | 0 |" in page
    assert "| bad bots: strikes in finished matches | late0 40, refusing1 35 | |" in page
    assert "| bots that forfeited a match (5 strikes) | late0 ×8 | |" in page
    assert "| paused after 3 health checks | refusing1 | |" in page


def test_ladder_pace_rows(tool) -> None:
    def run(pace: float, seconds: float) -> dict:
        return {"ladders": {"spot-hearts-4p": {"rated_per_min": pace, "mean_match_s": seconds}}}

    pace = {"search_bot": "search-10", "bot_delay_ms": 20,
            "pace_ratio_default_vs_before": {"spot-hearts-4p": 0.8},
            "runs": {"before_search": run(20.0, 0.04), "default": run(16.0, 2.5)}}
    page = table(tool.render({"ladder-pace": result("ladder-pace", [pace])}), "ladder-pace")
    # Spot Hearts' ladder plays search-5 now: a row measured with search-10 says so.
    assert ("| spot-hearts-4p, with a registered bot 20 ms away: rated matches/min before → with "
            "`search-10` (measured before the ladder's bot became `search-5`) | 20.0 → 16.0 (0.80×); "
            "match 0.04 → 2.50 s | ≥ 0.50× |") in page
    # A run that lists each ladder's house set names that ladder's own search bot.
    pace["runs"]["default"]["ladders"]["spot-hearts-4p"]["house_bots"] = ["search-5", "heuristic"]
    page = table(tool.render({"ladder-pace": result("ladder-pace", [pace])}), "ladder-pace")
    assert "rated matches/min before → with `search-5` | 20.0 → 16.0 (0.80×)" in page


def test_the_measured_runs_part_is_kept_as_written(tool) -> None:
    written = f"{tool.MEASURED_RUNS}\n## Measured runs\n\nA run on 2026-12-01 (load average 3): 5/s.\n"
    page = tool.render({}, previous=tool.render({}) + "\n" + written)
    assert page.endswith(written) and page.count(tool.MEASURED_RUNS) == 1
    fresh = tool.render({"ladder-pace": result("ladder-pace", [])}, previous=page)
    assert fresh.endswith(written)
    assert tool.MEASURED_RUNS not in tool.render({})


def test_challenge_pace_rows(tool) -> None:
    out = {"flooders": 8, "challenge_workers": 1, "pace_ratio_flooded_vs_alone": 0.95,
           "alone": {"ladder_rated_per_min": 40.0},
           "flooded": {"ladder_rated_per_min": 38.0, "challenges_played_per_min": 6.5,
                       "flood_answers": {"201": 30, "429": 900}}}
    page = table(tool.render({"challenge-pace": result("challenge-pace", [out])}), "challenge-pace")
    assert ("| the four ladders' rated matches/min alone → under a flood of challenges from 8 owners (1 "
            "challenge worker) | 40.0 → 38.0 (0.95×); 6.5 challenges played/min meanwhile | ≥ 0.90× |"
            ) in page
    assert "| 30 × 201, 900 × 429 |" in page




def test_play_table_rows(tool) -> None:
    out = {"tables": 5, "first_legal_card_ms": {"p50": 71.2, "max": 75.2},
           "round_trip_ms": {"moves": 70, "p50": 13.2, "p99": 19.7}}
    page = table(tool.render({"play-table": result("play-table", [out])}), "play-table")
    assert ("| a person's table page: from its load to the first legal card shown, p50 (max) (5 tables, 70 "
            "moves) | 71.2 ms (75.2 ms) | < 1,000 ms |") in page
    assert ("| a move's round trip as the page sees it (POST .../moves), p50 / p99 | 13.2 ms / 19.7 ms |"
            in page)


def test_tournament_pace_rows(tool) -> None:
    out = {"field": 16, "rounds": 4, "game": "spot-hearts", "events": 6, "wall_s_median": 41.2,
           "wall_s": [39.0, 41.2, 52.5, 40.0, 44.1, 42.0], "window_s": 250.4,
           "ladder_rated_per_min_alone": 110.0,
           "ladder_rated_per_min_during_event": 104.5, "pace_ratio": 0.95, "spearman_graded_mean": 0.671,
           "pace_ratio_per_event": [0.91, None, 1.02]}
    page = table(tool.render({"tournament-pace": result("tournament-pace", [out])}), "tournament-pace")
    assert ("| a 16-bot Swiss event of 4 rounds (spot-hearts, 4 seats): wall time, median of 6 events | "
            "41.2 s (39.0–52.5 s) | |") in page
    assert ("| the four ladders' rated matches/min with no event → while one plays (6 of each window, 250 s "
            "in all each) | 110.0 → 104.5 (0.95×; per event 0.91×–1.02×) | ≥ 0.90× |") in page
    assert ("| the graded house bots' final places against their grades (Spearman, mean of the events) | "
            "0.67 | > 0 |") in page


def test_idle_rows(tool) -> None:
    before = {"house_only_gap_s": 3.0, "processes": 22, "cpu_s_per_minute": 61.77, "cores": 1.029,
              "rss_mib": 642, "rated_matches": 77}
    after = {**before, "house_only_gap_s": None, "cpu_s_per_minute": 5.35, "cores": 0.089, "rated_matches": 4}
    page = table(tool.render({"idle": result("idle", [before, after])}), "idle")
    assert "| `make run` with no outside bot, house-only gap 3 s: CPU a minute (22 processes), memory | " \
           "61.8 CPU s (1.03 cores), 642 MiB; 77 rated matches | |" in page
    assert "house-only gap as set: CPU a minute (22 processes), memory | 5.3 CPU s (0.09 cores), 642 MiB; " \
           "4 rated matches | ≤ 0.2 cores |" in page


def test_dead_bot_rows(tool) -> None:
    out = {"minutes": 10.0, "ladder": "sore-spot-4p", "ranked": 8, "bots": {
        "working-random": {"probe": "ok", "listed": "ranked", "rank": 8, "of": 8, "rating": 1038.8,
                           "matches": 379, "forfeits": 0},
        "dead-garbage": {"probe": "ok", "listed": "new", "rank": None, "of": 8, "rating": 1415.7,
                         "matches": 3, "forfeits": 3}}}
    page = table(tool.render({"dead-bots": result("dead-bots", [out])}), "dead-bots")
    assert "| after 10 min on sore-spot-4p: `working-random` (first check: ok) | ranked 8 of 8; Elo 1,039, " \
           "379 rated matches, 0 forfeited | |" in page
    assert "`dead-garbage` (first check: ok) | not ranked (new); Elo 1,416, 3 rated matches, 3 forfeited | " \
           "never above a bot that answers |" in page


def test_decision_log_rows(tool) -> None:
    store_ms = {"with": {"p50": 6.04, "p99": 7.5}, "without": {"p50": 4.3, "p99": 5.0}}
    out = {"per_game": [{"game": "spot-hearts", "matches": 20, "games_per_match": 4,
                         "decisions_per_match": 2728, "log_bytes_per_match": 27005,
                         "log_bytes_per_decision": 9.9, "replay_bytes_per_match": 93455,
                         "store_ms": store_ms}]}
    page = table(tool.render({"decision-log": result("decision-log", [out])}), "decision-log")
    assert ("| spot-hearts: decision log per match (2,728 decisions in 4 games; replays 93,455 B) | 27,005 B "
            "(9.9 B a decision) | |") in page
    assert ("| spot-hearts: storing a match's result, p50 / p99 over 20 matches, with the log → without | "
            "6.04 / 7.50 ms → 4.30 / 5.00 ms | |") in page


def test_the_ismcts_duel_becomes_its_table(tool) -> None:
    out = {"deals": 100, "ms_per_decision": 100, "ours_points_per_hand": 5.4, "ismcts_points_per_hand": 7.625,
           "p_value": 0.0031, "decisions_per_s": 13.74, "deals_won": 62, "deals_lost": 35, "deals_tied": 3,
           "ours_ms_per_decision": 61.7, "ismcts_ms_per_decision": 83.7}
    page = table(tool.render({"ismcts": result("ismcts", [out])}), "ismcts")
    assert ("| search bot, 100 ms per decision: Card Commons points per seat and hand | 5.40 | fewer than "
            "ISMCTS's |") in page
    assert "| 7.62 | reference |" in page
    assert "| 62 / 35 / 3: p 0.0031 | won, p < 0.01 |" in page
    assert "| 13.7 (62 / 84 ms) |" in page


def test_reliability_drills_are_read_from_their_json(tool, tmp_path: Path) -> None:
    soak = {"command": "python -m loadtest ladder --bots 40 --seconds 600", "machine": {"loadavg_1m_max": 5},
            "matches": {"rated": 3359}, "problems": [], "stuck": {}, "rated_per_ladder": {"a": 2, "b": 3357},
            "registered_bots_that_played": 40, "setup": {"registered_http_bots": 40},
            "match_created_to_rated": {"p50_s": 0.9, "p99_s": 1.9}, "passed": True}
    (tmp_path / "ladder.json").write_text(json.dumps(soak))
    bench = tool.BY_NAME["soak"]
    found = tool.reliability_result(bench, tmp_path)
    assert found["commands"] == [soak["command"]]
    page = table(tool.render({"soak": found}), "soak")
    assert "| matches rated | 3,359 (a 2, b 3,357) | |" in page
    assert "load average at most 5;" in page and "| verdict | passed | passed |" in page
    assert tool.reliability_result(tool.BY_NAME["faults"], tmp_path) is None  # not run here


def test_parse_output_takes_indented_json_or_the_last_json_line(tool) -> None:
    assert tool.parse_output('{\n  "a": 1\n}\n') == {"a": 1}
    assert tool.parse_output('starting...\n{"a": 2}\n') == {"a": 2}
    with pytest.raises(ValueError):
        tool.parse_output("no json here")


def test_the_committed_page_is_what_the_tool_renders(tool) -> None:
    """docs/benchmarks.md is the tool's output: rendering it again with no new result changes nothing."""
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    assert tool.render({}, previous=page) == page
    assert set(tool.sections_of(page)) == set(tool.BY_NAME)


def test_the_contention_table_gives_the_slowdown_and_what_was_analysed(tool) -> None:
    out = {"analysis_nice": None, "analysis_workers": 1, "slowdown_percent": 2.71,
           "slowdown_percent_best": 4.9,
           "median_decisions_per_s": {"alone": 17659.9, "busy": 17180.6},
           "analyses_meanwhile": [{"analysed_decisions": 130, "worker_cores_used": 0.3},
                                  {"analysed_decisions": 100, "worker_cores_used": 0.2}]}
    rows = table(tool.render({"analysis-contention": result("analysis-contention", [out])}),
                 "analysis-contention")
    assert ("| ladder decisions/s alone → with 1 analysis worker(s) busy at default niceness (19) | 17,660 → "
            "17,181: 2.7 % slower (best runs: 4.9 %); 230 decisions analysed meanwhile on 0.25 cores | "
            "≤ 5 % slower |") in rows


def test_the_failover_drill_becomes_its_table(tool, tmp_path: Path) -> None:
    def drill(wait_ms: int, lost: int) -> dict:
        return {"command": f"python -m loadtest faults redis-failover --seconds 60 --wait-ms {wait_ms}",
                "machine": {"cpus": 2, "loadavg_1m_max": 3.5}, "wait_ms": wait_ms, "down_after_ms": 5000,
                "writes_accepted_after_s": 6.42, "api_writes_accepted_after_s": 6.9,
                "acknowledged_moves_lost": lost, "ratings_lost": 0, "rated_before_fault": 90,
                "rating_problems": [], "processes_died": [], "matches": {"rated": 200},
                "client_tables_finished": 120, "passed": not lost,
                "move_commit_cost": [
                    {"wait_ms": 0, "moves": 800, "p50_ms": 0.21, "p90_ms": 0.38, "p99_ms": 5.8},
                    {"wait_ms": wait_ms or 200, "moves": 800, "p50_ms": 0.3, "p90_ms": 1.37, "p99_ms": 12.8}]}

    (tmp_path / "faults-redis-failover.json").write_text(json.dumps(drill(200, 0)))
    (tmp_path / "faults-redis-failover-nowait.json").write_text(json.dumps(drill(0, 2)))
    found = tool.reliability_result(tool.BY_NAME["failover"], tmp_path)
    page = table(tool.render({"failover": found}), "failover")
    assert ("| TA_REDIS_WAIT_MS=200: writes accepted again after the SIGKILL (Redis; the API) | 6.4 s; 6.9 s "
            "(down-after 5,000 ms) | < 15 s |") in page
    assert "| TA_REDIS_WAIT_MS=200: acknowledged moves lost | 0 | 0 |" in page
    assert "| no WAIT: acknowledged moves lost | 2 | 0 |" in page and "| no WAIT: drill | **failed**" in page
    assert "0.21 / 0.38 / 5.80 ms → 0.30 / 1.37 / 12.80 ms" in page


def test_the_training_ground_becomes_its_table(tool) -> None:
    speed = {"engine": "compiled", "games": {
        "spot-hearts": {"engine_steps_per_s": 1000000, "aec_steps_per_s": 48000, "aec_vs_engine": 0.048,
                        "aec_no_view_steps_per_s": 50000, "seat_env_steps_per_s": 110000,
                        "null_aec_steps_per_s": 1100000, "null_aec_vs_engine": 1.1,
                        "engine_moves_steps_per_s": 1200000, "free_observation_steps_per_s": 480000,
                        "free_observation_vs_engine": 0.48, "openspiel_sims_per_s": 960.5}},
        "openspiel_hearts_sims_per_s": 14500.0}
    example = {"game": "sore-spot", "training": {"episodes": 44600, "steps": 579800, "seconds": 40.0},
               "eval_deals": 200, "wall_s": 41.2,
               "mean_points": {"random": {"trained": -10.97, "random_play": -17.7},
                               "heuristic": {"trained": -15.13, "random_play": -21.5}}}
    rows = table(tool.render({"training": result("training", [speed, example])}), "training")
    assert "## The training ground" in rows
    assert ("| spot-hearts: cards/s, PettingZoo AEC environment (views in infos / without) vs the bare "
            "engine's random playouts (compiled engine) | 48,000 / 50,000 vs 1,000,000 (0.05×) | ≥ 0.5× the "
            "engine's |") in rows
    assert ("| spot-hearts: steps/s, an AEC environment that does nothing (the turn passed round-robin, one "
            "preallocated observation) driven by the same loop: the ceiling of any PettingZoo environment "
            "here | 1,100,000 (1.10×) | |") in rows
    assert ("| spot-hearts: steps/s, an AEC environment whose observation, mask and bookkeeping cost "
            "nothing: the loop above, the engine's moves alone (1,200,000/s) and a step's new arrays | "
            "480,000 (0.48×) | |") in rows
    assert "| spot-hearts: OpenSpiel random simulations (deals)/s, our Python game | 960.5 | |" in rows
    assert ("| OpenSpiel's C++ `hearts`: random simulations (deals)/s, same loop | 14,500.0 | reference |"
            in rows)
    assert "| card-commons: cards/s, Gymnasium single-seat environment (random house bots) | — | |" in rows
    assert ("| sore-spot: mean points per deal against `heuristic` over 200 deals, trained policy (random "
            "play in the same seat) | -15.13 (-21.50) | above random play |") in rows
    assert "wall time to the end of its evaluation | 41.2 s | < 60 s |" in rows


def test_inflight_rows(tool) -> None:
    curve = {"key": "inflight.kib_per_match", "title": "RSS above the idle process, per match in flight",
             "unit": "KiB", "axis": "matches in flight in one worker process", "sizes": [64, 250],
             "values": [126.6, 114.8], "exponent": -0.07, "max_exponent": 0.1, "limit": 30.0,
             "goal_met": False}
    page = table(tool.render({"inflight": result("inflight", [{"curves": [curve]}])}), "inflight")
    assert ("| RSS above the idle process, per match in flight (KiB), by matches in flight in one worker "
            "process | 64: 127, 250: 115; k = -0.07; **failed** | k ≤ 0.1; ≤ 30 KiB at 250 |") in page
    assert "| plot | ![matches in flight, log-log](growth-inflight.png) | |" in page


def test_match_floor_rows(tool) -> None:
    parts = {"spec": 2.15, "game": 13.44, "connections": 8.68, "bookkeeping": 11.2, "job": 3.18,
             "state": 29.72, "greenlet": 7.77, "thread": 9.79, "coroutine": 7.34, "rq-worker": 19.8}
    runs = {"greenlet": 37.49, "thread": 39.51, "coroutine": 37.06, "rq-worker": 49.52}
    out = {"depth": 25, "kib_per_match": parts, "state_kib": 29.72, "state_plus_runner_kib": runs}
    page = table(tool.render({"match-floor": result("match-floor", [out])}), "match-floor")
    assert "| a waiting match holds its MatchSpec | 2.1 KiB | |" in page
    assert "| a waiting match holds a Spot Hearts game halfway through | 13.4 KiB (with its spec) | |" in page
    assert "whatever runs it | 29.7 KiB | |" in page
    assert "| run by an asyncio task, waiting 25 calls deep: the runner alone; state + runner | 7.3 KiB; " \
           "37.1 KiB | |" in page
    assert "(below RQ's own): the runner alone; state + runner | 19.8 KiB; 49.5 KiB | ≤ 30 KiB a match in " \
           "flight |" in page
