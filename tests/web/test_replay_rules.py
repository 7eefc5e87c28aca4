"""The browser's replay (api/web/static/replay_rules.js, run by node) builds engine.frames' frames exactly:
every game, player count, default and other options, passes, holds, sore cards, trump, moons, deals from the
seed, games cut short; it refuses what the engine refuses, with the engine's message; and it finds the
records in the files a user has (a record, a saved match game, lines of a bot's match export).
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.bots import make_bot, play_game
from engine.errors import EngineError
from engine.frames import replay_frames
from tests.clients.nodejs import node_path

RULES_JS = Path(__file__).resolve().parents[2] / "api" / "web" / "static" / "replay_rules.js"

# Reads a JSON list of [call, argument] from stdin; answers each with {"value"} or {"error": "Kind: message"}.
RUN = """
const rules = require(process.argv[1]);
let text = "";
process.stdin.on("data", (chunk) => { text += chunk; }).on("end", () => {
  const answers = JSON.parse(text).map(([call, argument]) => {
    try { return {value: rules[call](argument)}; }
    catch (error) { return {error: error.name + ": " + error.message}; }
  });
  process.stdout.write(JSON.stringify(answers));
});
"""

# (game, players, options, seed, house bot): each game at every player count it allows, several options.
GAMES = [
    *[("spot-hearts", 4, {"target": 150}, seed, "heuristic") for seed in (1, 2, 3)],
    ("spot-hearts", 4, {}, 4, "random"),
    *[("card-commons", 4, {"target": 40}, seed, "heuristic") for seed in (1, 2)],
    *[("card-commons", 3, {"target": 40}, seed, "random") for seed in (1, 2)],
    ("card-commons", 4, {}, 5, "heuristic"),
    *[("sloppy-seconds", players, {}, seed, "heuristic") for players in (3, 4) for seed in (1, 2)],
    ("sloppy-seconds", 4, {"target": 100}, 3, "random"),
    *[("sore-spot", players, {}, seed, "heuristic") for players in (3, 4, 5, 6) for seed in (1, 2)],
    ("sore-spot", 3, {"deck": "a-to-q", "rounds": 2}, 5, "random"),
    ("sore-spot", 4, {"deck": ["AC", "KC", "2D", "9D", "QH", "3H", "TS", "AS"], "rounds": 3}, 6, "random"),
    ("spot-hearts", 4, {"target": 80}, "a text seed, ✓ 𝄞, longer than one HMAC block of sixty-four bytes",
     "heuristic"),
    ("card-commons", 4, {"target": 30}, 2**53 - 1, "heuristic"),
]


def play(game: str, players: int, options: dict[str, Any], seed: int | str, bot: str) -> dict[str, Any]:
    bots = [make_bot(bot, f"{seed}:{seat}") for seat in range(players)]
    return dict(play_game(engine.new_game(game, players, options, seed=seed), bots).record())


def moon_records(wanted: int = 2) -> list[dict[str, Any]]:
    """Card Commons rounds in which one seat took every heart and the Q♠ (the first seeds that have one)."""
    found = []
    for seed in range(400):
        game = play_game(engine.new_game("card-commons", 4, {"target": 1}, seed=seed),
                         [make_bot("heuristic", seed * 4 + seat) for seat in range(4)])
        if game.history[0].get("moon") is not None:
            found.append(dict(game.record()))
            if len(found) == wanted:
                return found
    raise AssertionError("no moon shot in 400 rounds of heuristic play")


def run_js(calls: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    done = subprocess.run([node_path(), "-e", RUN, str(RULES_JS)], input=json.dumps(calls),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    answers: list[dict[str, Any]] = json.loads(done.stdout)
    return answers


def python_frames(record: Any) -> dict[str, Any]:
    try:
        return {"value": json.loads(json.dumps(replay_frames(record)))}
    except EngineError as error:
        return {"error": f"{type(error).__name__}: {error}"}


def assert_same_frames(record: dict[str, Any], got: dict[str, Any]) -> None:
    want = python_frames(record)
    if got == want:
        return
    where = f"{record['game']} {record['players']}p seed {record.get('seed')!r}"
    assert "value" in got, (where, got)
    for index, (mine, theirs) in enumerate(zip(got["value"], want["value"], strict=False)):
        differs = {key: (mine.get(key), theirs.get(key)) for key in {*mine, *theirs}
                   if mine.get(key) != theirs.get(key)}
        assert not differs, (where, f"frame {index}", differs)
    assert len(got["value"]) == len(want["value"]), where


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return [play(*case) for case in GAMES] + moon_records()


def variants(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each record as played; dealt from its seed alone (no deals: the browser deals every round, and draws
    Spot Hearts' first dealer); with only its first deal; and cut short in a pass, mid-trick and mid-round."""
    out = []
    for record in records:
        out.append(record)
        out.append({**record, "deals": []})
        out.append({**record, "deals": record["deals"][:1]})
        for cut in (2, 7, len(record["moves"]) // 2):
            out.append({**record, "moves": record["moves"][:cut]})
    return out


def test_the_browser_builds_the_engines_frames_for_every_game(records) -> None:
    cases = variants(records)
    answers = run_js([("replayFrames", record) for record in cases])
    for record, got in zip(cases, answers, strict=True):
        assert_same_frames(record, got)
    # What the records hold, so that each rule above was exercised.
    frames = [frame for got in answers for frame in got["value"]]
    kinds = {frame["kind"] for frame in frames}
    assert kinds == {"deal", "pass", "sore", "trick", "round", "end"}
    labels = {frame["label"].rpartition(" ")[2] for frame in frames if frame["kind"] == "pass"}
    assert labels == {"left", "right", "across"}  # and the hold rounds, which have no pass frame
    assert any(frame["trump"] for frame in frames) and any(frame["hearts_broken"] for frame in frames)
    assert any(frame["kind"] == "round" and -26 in frame["points"] for frame in frames)  # a moon
    assert {record["game"] for record in records} == set(engine.GAMES)


def broken(record: dict[str, Any], change: Any) -> dict[str, Any]:
    copied = copy.deepcopy(record)
    change(copied)
    return copied


def test_the_browser_refuses_what_the_engine_refuses_with_its_message(records) -> None:
    hearts = next(r for r in records if r["game"] == "spot-hearts")
    sloppy = next(r for r in records if r["game"] == "sloppy-seconds" and r["players"] == 4)
    sore = {"game": "sore-spot", "players": 3, "seed": 1, "dealing": 2, "moves": []}
    bad = [
        [], {"game": "nope", "players": 4, "moves": [], "seed": 1, "dealing": 2},
        broken(hearts, lambda r: r.pop("dealing")), broken(hearts, lambda r: r.update(dealing=1)),
        broken(hearts, lambda r: r.pop("players")), broken(hearts, lambda r: r.update(players=3)),
        broken(hearts, lambda r: r.update(options={"target": 0})),
        broken(hearts, lambda r: r.update(options={"targe": 5})),
        broken(hearts, lambda r: r.update(options={"target": True})),
        broken(hearts, lambda r: r.update(seed=1.5)),
        broken(hearts, lambda r: r["deals"][0]["hands"][0].__setitem__(0, "ZZ")),
        broken(hearts, lambda r: r["deals"][0].update(dealer=9)),
        broken(hearts, lambda r: r["deals"][0]["hands"][0].pop()),
        broken(hearts, lambda r: r["moves"][0].update(seat=9)),
        broken(hearts, lambda r: r["moves"][0].update(move="2C")),
        broken(hearts, lambda r: r["moves"][0].update(move=["2C", "2C", "3C"])),
        broken(hearts, lambda r: r["moves"][4].update(seat=(r["moves"][4]["seat"] + 1) % 4)),
        broken(hearts, lambda r: r["moves"][4].update(move="AS")),
        broken(hearts, lambda r: r["moves"][4].update(move=["AS"])),
        broken(hearts, lambda r: r["moves"][5].update(move=r["moves"][6]["move"])),
        broken(hearts, lambda r: (r.pop("seed"), r.update(deals=r["deals"][:1]))),
        broken(sloppy, lambda r: r["moves"][1].update(move=r["moves"][2]["move"])),
        {**sore, "players": 4, "options": {"deck": "a-to-q"}},
        {**sore, "options": {"deck": ["2C", "3C", "4C", "5C"]}},
        {**sore, "options": {"deck": ["2C", "2c", "4C", "5C", "6C", "7C"]}},
        {**sore, "options": {"deck": "x"}}, {**sore, "options": {"rounds": 0}},
    ]
    answers = run_js([("replayFrames", record) for record in bad])
    for record, got in zip(bad, answers, strict=True):
        want = python_frames(record)
        assert "error" in want, record
        assert got == want


def test_what_the_engine_cannot_be_given_gets_a_clear_message() -> None:
    sore = {"game": "sore-spot", "players": 3, "dealing": 2}
    answers = run_js([("replayFrames", {**sore, "seed": 2**60, "moves": []}),
                      ("replayFrames", {**sore, "seed": 1, "moves": [5]}),
                      ("replayFrames", {**sore, "seed": 1, "moves": {}})])
    assert "too large to be read exactly" in answers[0]["error"]  # JSON numbers past 2^53 lose digits
    assert answers[1]["error"] == "OptionsError: moves[0] must be an object with 'seat' and 'move'"
    assert answers[2]["error"] == "OptionsError: the record's moves must be a list"


def test_the_records_in_the_files_a_user_has(records) -> None:
    record = records[0]
    export_line = {"match_id": "m7", "records": [records[1], records[2]]}
    files = [
        json.dumps(record),  # an engine record: what `trick-arena match --save-dir` writes too
        json.dumps(export_line),  # one line of a bot's match export
        json.dumps(export_line) + "\n" + json.dumps({"match_id": "m8", "records": [record]}) + "\n",
        json.dumps([record, records[1]]),
        "\ufeff" + json.dumps(record, indent=2) + "\n",
    ]
    answers = run_js([("recordsIn", text) for text in files])
    found = [[(item["label"], item["record"]) for item in answer["value"]] for answer in answers]
    assert found[0] == [(f"{record['game']} · {record['players']} players", record)]
    assert [label for label, _ in found[1]] == [f"match m7 · game {n} · {r['game']} · {r['players']} players"
                                                for n, r in ((1, records[1]), (2, records[2]))]
    assert [r for _, r in found[1]] == [records[1], records[2]]
    assert [label.partition(" · ")[0] for label, _ in found[2]] == ["line 1", "line 1", "line 2"]
    assert [r for _, r in found[3]] == [record, records[1]] and found[4][0][1] == record

    refused = run_js([("recordsIn", text) for text in ("", "{not json", '{"a": 1}\n{oops', '{"hello": 1}')])
    assert [answer["error"] for answer in refused] == [
        "Error: the file is empty", "Error: the file is not JSON", "Error: line 2 is not JSON",
        "Error: no replay record in this file: a record is a JSON object with game, players, deals and moves "
        "(a saved game of trick-arena match --save-dir, or a line of a bot's match export)"]
