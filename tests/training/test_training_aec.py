"""The PettingZoo environment: PettingZoo's own api_test and seed_test for every game and player count, the
engine's deal from the seed, the record at the end, rewards, and a seat's observation hiding other hands."""

from __future__ import annotations

import json
import random
import subprocess
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import engine
from tests.clients.nodejs import SDK, node_path
from tests.training.cases import CASES, IDS, SHORT
from training.aec import TrickArenaEnv, env
from training.encoding import encode, layout
from training.table import IllegalActionError


def play_out(e: TrickArenaEnv, seed: int) -> tuple[dict[str, float], dict]:
    """Random legal actions to the end; every agent's summed rewards and the final infos."""
    e.reset(seed=seed)
    rng = random.Random(seed)
    summed = {a: 0.0 for a in e.possible_agents}
    final: dict = {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        summed[agent] += reward
        if terminated or truncated:
            final = info
            e.step(None)
            continue
        assert info["view"]["seat"] == int(agent.split("_")[1])
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
    return summed, final


@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_pettingzoo_api_test_and_seed_test_pass(game: str, players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advice on Dict observations (its card games have them)
        api_test(env(game, players, SHORT[game]), num_cycles=3000)  # whole games: termination included
        api_test(env(game, players), num_cycles=300)  # the game's own options
        api_test(env(game, players, SHORT[game], reward="place"), num_cycles=3000)
        seed_test(lambda: env(game, players, SHORT[game]), num_cycles=3000)


@pytest.mark.parametrize(("game", "players"), CASES, ids=IDS)
def test_a_seeded_reset_deals_as_the_engine_and_the_record_replays(game: str, players: int) -> None:
    e = env(game, players, SHORT[game])
    summed, final = play_out(e, seed=11)
    dealt = engine.new_game(game, players, SHORT[game], seed=11)
    record = final["record"]
    assert record["seed"] == 11 and record["deals"][0] == dealt.dealt[0]
    replayed = engine.load(record)
    assert replayed.over and replayed.totals == final["totals"] and replayed.winners == final["winners"]
    low = engine.rules_for(game).low_wins
    assert [summed[f"seat_{s}"] for s in range(players)] == [(-t if low else t) for t in final["totals"]]


def test_the_deals_verify_with_the_javascript_verify_deals(tmp_path) -> None:
    node = node_path()
    files = []
    for game, players in [("spot-hearts", 4), ("sore-spot", 5), ("card-commons", 3), ("sloppy-seconds", 4)]:
        _, final = play_out(env(game, players, SHORT[game]), seed=5)
        path = tmp_path / f"{game}.json"
        path.write_text(json.dumps(final["record"]))
        files.append(str(path))
    done = subprocess.run([node, str(SDK / "bin" / "trickarena.js"), "verify-deals", *files], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("OK") == len(files), done.stdout
    tampered = json.loads((tmp_path / "spot-hearts.json").read_text())
    tampered["seed"] = 6
    (tmp_path / "bad.json").write_text(json.dumps(tampered))
    bad = subprocess.run([node, str(SDK / "bin" / "trickarena.js"), "verify-deals", "bad.json"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1, bad.stdout


def test_place_rewards_rank_the_seats_at_the_end_only() -> None:
    e = env("sore-spot", 4, {"rounds": 2}, reward="place")
    summed, final = play_out(e, seed=3)
    totals = final["totals"]
    for s in range(4):
        beaten = sum(totals[s] > t for t in totals) - sum(totals[s] < t for t in totals)
        assert summed[f"seat_{s}"] == pytest.approx(beaten / 3)


def test_a_pass_is_three_single_cards_and_an_illegal_action_changes_nothing() -> None:
    e = env("spot-hearts", 4)
    e.reset(seed=2)
    obs, *_ = e.last()
    hand = np.flatnonzero(obs["observation"][layout(4).slice("hand")])
    assert e.agent_selection == "seat_0" and obs["action_mask"].sum() == 13
    e.step(int(hand[0]))
    obs, *_ = e.last()
    assert e.agent_selection == "seat_0" and obs["action_mask"].sum() == 12  # picked: out of the mask
    assert obs["observation"][layout(4).slice("picked")][hand[0]] == 1
    assert obs["observation"][layout(4).slice("to_pick")][0] == 2
    before = (e.table.game.version, list(e.table.picked), e.agent_selection)
    with pytest.raises(IllegalActionError):
        e.step(int(hand[0]))  # picked already
    assert (e.table.game.version, list(e.table.picked), e.agent_selection) == before
    e.step(int(hand[1]))
    e.step(int(hand[2]))
    assert e.agent_selection == "seat_1" and e.table.game.view(0)["chosen"] == [
        engine.Card(int(c)).code for c in hand[:3]]


def test_options_are_validated_as_the_api_validates_them() -> None:
    with pytest.raises(engine.OptionsError, match="unknown option"):
        env("spot-hearts", 4, {"rounds": 3})
    with pytest.raises(engine.OptionsError, match="played by exactly 4"):
        env("spot-hearts", 3)
    with pytest.raises(engine.OptionsError, match="at least 1"):
        env("card-commons", 4, {"target": 0})
    with pytest.raises(ValueError, match="reward"):
        env("sore-spot", 4, reward="money")


def test_a_seat_observation_shows_its_own_hand_and_nothing_of_the_others() -> None:
    """Two deals giving seat 0 the same hand and the others different ones: seat 0 cannot tell them apart."""
    first = engine.new_game("card-commons", 4, seed=9)
    hands = [list(h) for h in first.dealt[0]["hands"]]
    swapped = [hands[0], hands[2], hands[3], hands[1]]
    second = engine.new_game("card-commons", 4, deals=[{"dealer": first.dealer, "hands": swapped}], seed=1)
    assert encode(first.view(0)).tobytes() == encode(second.view(0)).tobytes()
    assert encode(first.view(1)).tobytes() != encode(second.view(1)).tobytes()


def test_infos_carry_the_view_the_bot_protocol_sends() -> None:
    e = env("sloppy-seconds", 3)
    e.reset(seed=4)
    for _ in range(30):
        agent = e.agent_selection
        obs, _, _, _, info = e.last()
        seat = int(agent.split("_")[1])
        sent = json.loads(json.dumps(e.table.game.view(seat)))  # the JSON an HTTP bot receives
        assert json.loads(json.dumps(info["view"])) == sent
        picked = [engine.Card.parse(c) for c in info["picked"]]
        assert np.array_equal(obs["observation"], encode(sent, picked))
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
