"""Dealing version 2 (docs/deals.md): the published test vectors, records that say their version, and records
of any other version (or none) refused."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import deals
from engine.bots.base import make_bot, play_game
from engine.cards import CODES
from engine.errors import OptionsError, UnknownDealingError

ROOT = Path(__file__).resolve().parents[2]


def doc_vectors() -> dict[str, Any]:
    text = (ROOT / "docs" / "deals.md").read_text()
    return json.loads(re.findall(r"```json\n(.*?)```", text, re.S)[-1])


def test_the_deal_vectors_of_the_docs_are_what_the_engine_deals() -> None:
    vectors = doc_vectors()["deals"]
    assert len(vectors) >= 5
    for v in vectors:
        deck = [i for i, code in enumerate(CODES) if code not in v["without"]]
        hands = deals.deal(v["seed"], v["round"], deck, v["players"], v["dealer"])
        assert [" ".join(CODES[c] for c in h) for h in hands] == v["hands"], v


def test_the_dealer_stream_draw_and_commitment_vectors_hold() -> None:
    vectors = doc_vectors()
    for v in vectors["first_dealer"]:
        assert [deals.first_dealer(v["seed"], n) for n in v["players"]] == v["first_dealer"]
    stream = vectors["stream"]
    words = deals.Draws(stream["seed"], stream["purpose"])
    assert b"".join(words.next_word().to_bytes(4, "big") for _ in range(8)).hex() == stream["first_32_bytes"]
    draws = vectors["draws"]
    got = deals.Draws(draws["seed"], draws["purpose"])
    assert [got.below(draws["below"]) for _ in draws["values"]] == draws["values"]
    limit = 2**32 - 2**32 % draws["below"]
    assert all(word >= limit for word in draws["rejected_words"])  # the vector really exercises rejection
    words = deals.Draws(draws["seed"], draws["purpose"])
    raw = [words.next_word() for _ in range(10)]
    assert [w for w in raw if w >= limit] == draws["rejected_words"]
    c = vectors["commitment"]
    assert deals.seed_commitment(c["seed"], c["seed_nonce"]) == c["seed_commitment"]


def test_draws_are_uniform_enough_and_never_out_of_range() -> None:
    draws = deals.Draws(123, "round/0")
    counts = [0] * 6
    for _ in range(6000):
        value = draws.below(6)
        assert 0 <= value < 6
        counts[value] += 1
    assert all(850 < count < 1150 for count in counts), counts  # 6000/6 = 1000 each, sd ~ 29


def test_engine_games_deal_version_2_and_their_records_say_so() -> None:
    game = engine.new_game("spot-hearts", 4, seed=1)
    first = deals.first_dealer(1, 4)
    assert game.dealer == first
    assert game.hands == deals.deal(1, 0, list(range(52)), 4, first)
    record = game.record()
    assert record["dealing"] == 2
    assert deals.verify_record(record, draws_dealer=True) == []


@pytest.mark.parametrize("game_id,players", [("sore-spot", 5), ("card-commons", 3), ("sloppy-seconds", 4)])
def test_a_whole_game_verifies_and_a_changed_deal_does_not(game_id: str, players: int) -> None:
    game = engine.new_game(game_id, players, seed=9007199254740991)
    play_game(game, [make_bot("heuristic", i) for i in range(players)])
    record = json.loads(json.dumps(game.record()))
    assert game.over and len(record["deals"]) >= 1
    draws_dealer = engine.rules_for(game_id).first_dealer_from_seed()
    assert deals.verify_record(record, draws_dealer) == []
    hands = record["deals"][-1]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]  # two seats swap a card
    assert deals.verify_record(record, draws_dealer) == [
        f"round {len(record['deals']) - 1}: the hands differ from the seed's deal"]
    record["deals"][-1]["hands"] = game.record()["deals"][-1]["hands"]
    record["seed"] += 1
    assert deals.verify_record(record, draws_dealer)


def test_a_commitment_is_checked_when_the_record_carries_one() -> None:
    record = engine.new_game("spot-hearts", 4, seed=42).record()
    nonce = "ab" * 16
    opened = {**record, "seed_nonce": nonce, "seed_commitment": deals.seed_commitment(42, nonce)}
    assert deals.verify_record(opened, draws_dealer=True) == []
    wrong = {**opened, "seed_commitment": deals.seed_commitment(43, nonce)}
    assert deals.verify_record(wrong, draws_dealer=True) == ["the seed and nonce do not open the commitment"]


@pytest.mark.parametrize("dealing", [1, 3, "2", None])
def test_a_record_of_another_dealing_version_is_refused_clearly(dealing: object) -> None:
    game = engine.new_game("card-commons", 3, seed=5)
    play_game(game, [make_bot("heuristic", i) for i in range(3)])
    record: dict[str, Any] = {**json.loads(json.dumps(game.record())), "dealing": dealing}
    if dealing is None:
        del record["dealing"]
    with pytest.raises(UnknownDealingError) as refused:
        engine.load(record)
    assert refused.value.version == dealing and "this engine deals version 2" in str(refused.value)
    assert isinstance(refused.value, OptionsError)  # a record the engine cannot take, like bad options
    assert deals.verify_record(record, draws_dealer=False) == [str(refused.value)]
    with pytest.raises(UnknownDealingError):
        engine.replay_summary(record)
