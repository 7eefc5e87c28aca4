"""The trick-arena CLI against a real service on 127.0.0.1 and real bot servers."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner
from rich.console import Console
from trickarena import ArenaClient

import engine
from clients.cli import main
from tests.clients.starters import EXAMPLES, STARTERS, starter_bot
from tests.conftest import REPO_ROOT
from tests.web.site import build_site


@pytest.fixture(autouse=True)
def wide_console(monkeypatch) -> None:
    """Rich tables are sized to the terminal; a test's fake one is 80 columns and would truncate names."""
    import clients.cli

    monkeypatch.setattr(clients.cli, "console", Console(width=200, force_terminal=False))


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output


def test_games_and_register(live_server) -> None:
    out = run("--api", live_server, "games")
    for game in engine.GAMES:
        assert game in out
    out = run("--api", live_server, "register", "cli-bot", "--game", "spot-hearts", "--url",
              "http://127.0.0.1:9009")
    assert "registered cli-bot" in out and "owner token (shown once)" in out
    with ArenaClient(live_server) as api:
        assert [b.name for b in api.bots("spot-hearts")] == ["cli-bot"]


def test_register_error_is_one_line_not_a_traceback(live_server) -> None:
    result = CliRunner().invoke(main, ["--api", live_server, "register", "x", "--game", "no-such-game"])
    assert result.exit_code == 1
    assert "API error 422" in result.output and "Traceback" not in result.output


def test_unreachable_api_is_reported(unused_url="http://127.0.0.1:9") -> None:
    result = CliRunner().invoke(main, ["--api", unused_url, "games"])
    assert result.exit_code == 1 and "cannot reach the API" in result.output


def test_ladder_and_replays_of_matches_and_tables(app, live_server, redis_url, key_prefix) -> None:
    site = build_site(app, redis_url, key_prefix, matches=2)
    out = run("--api", live_server, "ladder", "spot-hearts")
    assert "spot-hearts-4p" in out
    header = next(line for line in out.splitlines() if "Elo" in line)
    assert "matches" in header and "games" not in header  # the column counts rated matches
    for name in ("heuristic", "eps-0.3", "eps-0.6", "random"):
        assert name in out
    rows = [line for line in out.splitlines() if "house" in line]
    assert len(rows) == 4 and all("?" in row for row in rows)  # two rated matches each: provisional
    assert "? provisional" in out
    assert "sore-spot-4p" not in out
    out = run("--api", live_server, "ladder")
    assert "spot-hearts-4p" in out and "sore-spot-4p" in out
    with ArenaClient(live_server) as api:  # the typed arena methods behind those commands
        recent = api.recent_matches("spot-hearts-4p")
        assert [m.match_id for m in recent] == list(reversed(site["matches"]["spot-hearts-4p"]))
        assert all(m.status == "rated" and len(m.replays) == 4 for m in recent)
        history = api.bot_history("spot-hearts-4p", "house:heuristic")
        assert [h.match for h in history.history] == [m.match_id for m in recent]
        ranked = {r.bot_id: r for r in api.ranking("spot-hearts-4p").ranking}
        assert abs(ranked["house:heuristic"].rating - history.rating) < 0.1
        assert ranked["house:heuristic"].matches == 2
        assert ranked["house:heuristic"].win_share == ranked["house:heuristic"].wins / 2

    match_id = site["matches"]["sore-spot-4p"][0]
    out = run("--api", live_server, "replay", "--match", match_id, "--game-no", "1", "--hands")
    record = site["store"].match_games(match_id)[1]
    summary = engine.replay_summary(record)
    tricks = sum(len(r["tricks"]) for r in summary["rounds"])
    assert out.count(" → ") == tricks  # one line per trick
    assert "lays sore card" in out and "Game over" in out

    out = run("--api", live_server, "replay", site["finished_table"])
    assert "Game over" in out


def test_replay_from_a_file(tmp_path) -> None:
    game = engine.new_game("card-commons", 4, {"target": 20}, seed=4)
    from engine.bots import make_bot

    bots = [make_bot("heuristic", s) for s in range(4)]
    while not game.over:
        for seat in game.to_act():
            game.apply(seat, bots[seat].choose(game.view(seat)))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.record()))
    out = run("replay", "--file", str(path))
    assert "passes" in out and out.count(" → ") == sum(len(r["tricks"]) for r in game.history)


def test_local_match_between_bot_urls_prints_a_result_table(sdk_server, tmp_path) -> None:
    servers = [sdk_server(starter_bot("sore-spot")) for _ in range(3)]
    from arena.botserver import BotServerConfig, serve_bot

    illegal = serve_bot(BotServerConfig(behaviour="illegal", name="cheater"))
    try:
        out = run("match", *[s.url for s in servers], illegal.url, "--game", "sore-spot", "--options",
                  '{"rounds": 1}', "--deadline-ms", "2000", "--save-dir", str(tmp_path))
    finally:
        illegal.stop()
    assert "4/4" in out  # the progress bar reached the end
    assert "sore-spot-starter #1" in out and "cheater" in out
    cheater_row = next(line for line in out.splitlines() if "cheater" in line)
    assert "illegal_move" in cheater_row or "illegal" in cheater_row  # strikes with their reason
    assert sum(s.calls for s in servers) > 0
    saved = sorted(tmp_path.glob("sore-spot-seed1-game*.json"))
    assert len(saved) == 4 and all(engine.load(json.loads(p.read_text())).over for p in saved)
    assert "Game over" in run("replay", "--file", str(saved[0]))


def test_a_local_match_seats_house_bots_beside_urls(sdk_server) -> None:
    server = sdk_server(starter_bot("sore-spot"))
    out = run("match", server.url, "heuristic", "house:random", "eps-0.3", "--game", "sore-spot", "--options",
              '{"rounds": 1}', "--games", "1")
    rows = {name: next(line for line in out.splitlines() if name in line)
            for name in ("sore-spot-starter", "heuristic", "random", "eps-0.3")}
    assert "heuristic" in rows["heuristic"] and server.calls > 0
    assert "house bot" in run("match", server.url, "nobody-bot", "random", "--game", "sore-spot", code=2)


def test_practice_with_a_url_says_what_to_run_instead() -> None:
    out = run("practice", "http://127.0.0.1:19001", "--game", "sore-spot", code=2)
    assert "trick-arena match" in out and "trick-arena challenge" in out


def test_practice_with_a_starter_file(live_server, app, rq_worker) -> None:
    rq_worker(app.config["RQ_QUEUE"])
    starter = str(EXAMPLES / STARTERS["sore-spot"][0])
    out = run("--api", live_server, "practice", starter, "--game", "sore-spot",
              "--opponents", "heuristic,random,random", "--options", '{"rounds": 1}')
    assert "sore-spot-starter" in out and "moves by sore-spot-starter" in out
    assert "trick-arena replay" in out


def test_serve_loads_a_bot_by_module_and_class(tmp_path) -> None:
    from clients.cli.loading import load_bot

    bot = load_bot(f"{EXAMPLES / 'spot_hearts_bot.py'}:SpotHeartsBot")
    assert bot.name == "spot-hearts-starter"
    (tmp_path / "two.py").write_text("from trickarena import Bot\nclass A(Bot): ...\nclass B(Bot): ...\n")

    with pytest.raises(click.BadParameter, match="2 Bot subclasses"):
        load_bot(str(tmp_path / "two.py"))


def test_analyse_a_finished_table_with_progress_and_json(app, live_server, redis_url, key_prefix,
                                                         rq_worker) -> None:
    from core import keys
    from tests.web.site import play_table_through_api

    client = app.test_client()
    finished, _ = play_table_through_api(client, "sore-spot", {"rounds": 1})
    live, _ = play_table_through_api(client, "spot-hearts", {}, moves=3)
    refused = CliRunner().invoke(main, ["--api", live_server, "analyse", "--table", live, "--seat", "0"])
    assert refused.exit_code == 1 and "API error 409" in refused.output and "still in play" in refused.output
    rq_worker(keys.analysis_queue(key_prefix))
    out = run("--api", live_server, "analyse", "--table", finished, "--seat", "1", "--budget-ms", "10",
              "--poll-s", "0.2")
    assert "analysing seat 1" in out and "13/13" in out  # the progress bar, complete
    assert "sore-spot · seat 1 · total regret" in out and "over 13 decisions" in out
    result = CliRunner().invoke(main, ["--api", live_server, "analyse", "--table", finished, "--seat", "1",
                                       "--budget-ms", "10", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)  # the cached analysis: JSON alone on stdout
    assert report["seat"] == 1 and len(report["decisions"]) == 13
    rows = [line.split("│") for line in out.splitlines() if line.count("│") >= 7]
    printed = {(cells[1].strip(), cells[3].strip(), cells[4].strip()) for cells in rows}
    for d in report["decisions"]:  # one row per decision: move number, kind, chosen move
        assert (str(d["index"]), d["kind"], d["chosen"]) in printed


def test_a_table_piped_to_another_program_keeps_its_columns_whole(live_server) -> None:
    """Piped, rich would draw every table 80 columns wide and cut its cells with "…"."""
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    wide = ("from clients.cli import console; from rich.table import Table; table = Table(); "
            "[table.add_column(name, no_wrap=True) for name in 'abcdef']; table.add_row(*['x' * 20] * 6); "
            "console.print(table)")
    done = subprocess.run([sys.executable, "-c", wide], capture_output=True, text=True, env=env, timeout=60,
                          cwd=REPO_ROOT)
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    assert any(line.count("x" * 20) == 6 for line in done.stdout.splitlines())
    games = subprocess.run([sys.executable, "-c", "from clients.cli import main; main()", "--api",
                            live_server, "games"], capture_output=True, text=True, env=env, timeout=60,
                           cwd=REPO_ROOT)
    assert games.returncode == 0 and "…" not in games.stdout
