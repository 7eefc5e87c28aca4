"""``python -m engine replay|play|bench`` as a user runs them."""

import json
import subprocess
import sys

import pytest
from scipy.stats import binomtest

import engine
from engine.bots import RandomBot, play_game


def run(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "engine", *args], capture_output=True, text=True, input=stdin
    )


@pytest.fixture
def record(tmp_path):
    g = play_game(
        engine.new_game("spot-hearts", 4, {"target": 100}, seed=4), [RandomBot(s) for s in range(4)]
    )
    path = tmp_path / "game.json"
    path.write_text(json.dumps(g.record()))
    return g, path


def test_replay_json_matches_the_game(record):
    g, path = record
    proc = run("replay", str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"] and out["over"] and out["totals"] == g.totals and out["winners"] == g.winners
    assert out["rounds"][0]["tricks"][0]["cards"][0] == "2C"
    assert [r["points"] for r in out["rounds"]] == [r["points"] for r in g.history]


def test_replay_trace_lists_every_decision(record):
    g, path = record
    out = json.loads(run("replay", str(path), "--json", "--trace").stdout)
    assert len(out["decisions"]) == len(g.moves)
    first = out["decisions"][0]
    assert set(first) == {"seat", "legal", "move"} and all(c in first["legal"] for c in first["move"])


def test_replay_illegal_move_reports_and_exits_1(record, tmp_path):
    g, path = record
    rec = json.loads(path.read_text())
    # The first play of the game (after the four passes) must be the 2C: make it something else.
    index = next(i for i, m in enumerate(rec["moves"]) if isinstance(m["move"], str))
    seat = rec["moves"][index]["seat"]
    hand_card = next(
        c for c in engine.load({**rec, "moves": rec["moves"][:index]}).view(seat)["hand"] if c != "2C"
    )
    rec["moves"][index]["move"] = hand_card
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec))
    proc = run("replay", str(bad), "--json")
    out = json.loads(proc.stdout)
    assert proc.returncode == 1 and not out["ok"]
    assert out["index"] == index and out["seat"] == seat and out["legal"] == ["2C"] and "2C" in out["reason"]


def test_replay_record_ending_mid_game(record, tmp_path):
    g, path = record
    rec = json.loads(path.read_text())
    rec["moves"] = rec["moves"][:30]
    part = tmp_path / "part.json"
    part.write_text(json.dumps(rec))
    out = json.loads(run("replay", str(part), "--json").stdout)
    assert out["ok"] and not out["over"] and out["rounds"][-1]["points"] is None


def test_replay_sore_spot_all_ace_trick_has_null_winner(tmp_path):
    from .rig import rig

    deal = rig("sore-spot", 4, 3, {0: ["AC", "2C"], 1: ["AD", "2D"], 2: ["AH", "2H"], 3: ["AS", "2S"]})
    moves = [{"seat": s, "move": c} for s, c in enumerate(["2C", "2D", "2H", "2S"])]
    moves += [{"seat": s, "move": c} for s, c in enumerate(["AC", "AD", "AH", "AS"])]
    path = tmp_path / "aces.json"
    path.write_text(
        json.dumps({"game": "sore-spot", "players": 4, "options": {}, "deals": [deal], "moves": moves})
    )
    out = json.loads(run("replay", str(path), "--json").stdout)
    assert out["rounds"][0]["tricks"][0] == {"leader": 0, "cards": ["AC", "AD", "AH", "AS"], "winner": None}


def test_replay_issue_example_shape():
    """The documented record shape: explicit deals, a pass list, then plays."""
    g = engine.new_game("spot-hearts", 4, seed=9)
    hands = g.dealt[0]["hands"]
    rec = {
        "game": "spot-hearts",
        "players": 4,
        "options": {},
        "deals": [{"dealer": 3, "hands": hands}],
        "moves": [{"seat": 0, "move": hands[0][:3]}],
    }
    out = engine.replay_summary(rec)
    assert out["ok"] and out["rounds"][0]["dealer"] == 3


def test_play_readable_and_json():
    proc = run(
        "play", "--game", "sore-spot", "--players", "3", "--bots", "heuristic,random,eps-0.5", "--seed", "2"
    )
    assert proc.returncode == 0 and "Round 3" in proc.stdout and "winners" in proc.stdout
    proc = run(
        "play",
        "--game",
        "card-commons",
        "--players",
        "3",
        "--bots",
        "random,random,random",
        "--seed",
        "2",
        "--option",
        "target=40",
        "--json",
    )
    rec = json.loads(proc.stdout)
    assert rec["options"] == {"target": 40} and engine.replay_summary(rec)["over"]


def test_play_bad_input_is_a_clear_error():
    proc = run("play", "--game", "spot-hearts", "--players", "3", "--bots", "random,random,random")
    assert proc.returncode == 2 and "exactly 4 players" in proc.stderr


def test_bench_prints_one_json_line():
    proc = run("bench", "--game", "spot-hearts", "--games", "20", "--seed", "1")
    line = json.loads(proc.stdout.strip().splitlines()[-1])
    assert {"game", "rounds", "decisions", "seconds", "rounds_per_s", "decisions_per_s"} <= set(line)
    assert line["rounds"] == 20 and line["decisions"] > 20 * 52


def test_analyse_prints_every_decision_of_the_seat_as_json(tmp_path):
    g = play_game(engine.new_game("sore-spot", 3, {"rounds": 1}, seed=6), [RandomBot(s) for s in range(3)])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(g.record()))
    out = run("analyse", str(path), "--seat", "1", "--budget-ms", "2", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["seat"] == 1 and len(report["decisions"]) == 13 and report["seat_total"] == g.totals[1]
    assert "13/13 decisions" in out.stderr  # the progress line
    bad = run("analyse", str(tmp_path / "missing.json"), "--seat", "1")
    assert bad.returncode == 1 and "error" in bad.stderr


def test_duel_prints_a_p_value():
    out = run("duel", "--game", "sore-spot", "--players", "3", "--bots", "heuristic,random", "--duplicate",
              "--games", "2", "--option", "rounds=1")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["pairs"] == 6 and report["a_decisions"] == 6 * 13
    better, worse = report["a_better"], report["a_worse"]
    assert better + worse <= report["pairs"]
    # The one-sided sign test over the pairs that differ, from the counts the report gives.
    expected = binomtest(better, better + worse, 0.5, alternative="greater").pvalue if better + worse else 1.0
    assert report["sign_p"] == pytest.approx(expected)


def test_duel_at_a_fixed_number_of_worlds_plays_the_same_games_twice():
    args = ("duel", "--game", "sore-spot", "--players", "3", "--bots", "search,heuristic", "--duplicate",
            "--games", "1", "--worlds", "2", "--option", "rounds=1")
    first, second = run(*args), run(*args)
    assert first.returncode == 0, first.stderr
    timing = ("a_decisions_per_s", "a_ms_mean", "a_ms_max", "elapsed_s")
    reports = [{k: v for k, v in json.loads(o.stdout).items() if k not in timing} for o in (first, second)]
    assert reports[0] == reports[1] and reports[0]["worlds"] == 2
    bad = run(*args[:-4], "--worlds", "0")
    assert bad.returncode == 2 and "--worlds" in bad.stderr and "Traceback" not in bad.stderr


def test_regret_ranks_a_graded_set_longer_than_the_table():
    out = run("regret", "--game", "sore-spot", "--bots", "heuristic,eps-0.5,random,eps-0.9", "--players", "3",
              "--games", "4", "--worlds", "2", "--search-worlds", "2", "--option", "rounds=1")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["players"] == 3 and report["worlds"] == 2
    assert report["decisions"] == {"heuristic": 39, "eps-0.5": 39, "random": 39, "eps-0.9": 39}
    for measure, rho in (("mean_regret", "spearman"), ("mean_behind_heuristic", "spearman_behind_heuristic")):
        means = report[measure]
        ranks = sorted(report["bots"], key=means.__getitem__)  # no ties here: every mean differs
        d2 = sum((i - ranks.index(name)) ** 2 for i, name in enumerate(report["bots"]))
        assert report[rho] == pytest.approx(1 - 6 * d2 / (4 * (16 - 1)), abs=0.001), measure
    assert report["mean_behind_heuristic"]["heuristic"] == 0  # its every move is the heuristic's


def test_regret_on_the_same_positions_judges_every_bot_on_every_decision():
    """``--same-positions``: every bot answers all the decisions of the games (3 games of 3 seats, 13 each),
    not only the 39 of its own seats."""
    out = run("regret", "--game", "sore-spot", "--bots", "heuristic,eps-0.5,random", "--players", "3",
              "--games", "3", "--worlds", "2", "--option", "rounds=1", "--same-positions")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["same_positions"] is True
    assert report["decisions"] == {"heuristic": 117, "eps-0.5": 117, "random": 117}
