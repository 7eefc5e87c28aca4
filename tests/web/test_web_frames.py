"""Replay frames (pure): every trick of every round, every hand consistent with the deal and the play."""

from __future__ import annotations

from collections import Counter

import pytest

import engine
from engine.bots import make_bot
from engine.frames import replay_frames

OPTIONS = {"spot-hearts": {"target": 60}, "card-commons": {"target": 30}, "sloppy-seconds": {"target": 150},
           "sore-spot": {"rounds": 2}}


def finished_game(game_id: str, players: int = 4, seed: int = 11):
    game = engine.new_game(game_id, players, OPTIONS[game_id], seed=seed)
    bots = [make_bot("eps-0.3", seed * 10 + s) for s in range(players)]
    while not game.over:
        for seat in game.to_act():
            game.apply(seat, bots[seat].choose(game.view(seat)))
    return game


@pytest.mark.parametrize("game_id", list(OPTIONS))
def test_frames_cover_every_trick_and_end_with_the_winners(game_id: str) -> None:
    game = finished_game(game_id)
    frames = replay_frames(game.record())
    kinds = Counter(f["kind"] for f in frames)
    assert kinds["trick"] == sum(len(r["tricks"]) for r in game.history)
    assert kinds["deal"] == kinds["round"] == len(game.history)
    assert frames[-1]["kind"] == "end" and frames[-1]["winners"] == list(game.winners)
    assert frames[-1]["totals"] == list(game.totals)
    tricks = [f["trick"] for f in frames if f["kind"] == "trick"]
    expected = [t for r in game.history for t in r["tricks"]]
    assert [[c["card"] for c in t["cards"]] for t in tricks] == [t["cards"] for t in expected]
    assert [t["winner"] for t in tricks] == [t["winner"] for t in expected]


@pytest.mark.parametrize("game_id", list(OPTIONS))
def test_each_trick_takes_one_card_from_each_hand(game_id: str) -> None:
    frames = replay_frames(finished_game(game_id, seed=5).record())
    previous = None
    for frame in frames:
        if frame["kind"] == "trick":
            assert previous is not None
            for played in frame["trick"]["cards"]:
                seat, card = played["seat"], played["card"]
                assert card in previous["hands"][seat] and card not in frame["hands"][seat]
            assert [len(h) for h in frame["hands"]] == [len(h) - 1 for h in previous["hands"]]
            assert sorted({c["seat"] for c in frame["trick"]["cards"]}) == list(range(len(frame["hands"])))
        if frame["kind"] in ("deal", "pass", "sore", "trick"):
            previous = frame
        if frame["kind"] == "round":
            assert all(h == [] for h in frame["hands"])  # the round's last trick emptied every hand


def test_pass_frame_moves_the_cards_it_shows() -> None:
    game = finished_game("spot-hearts", seed=3)
    frames = replay_frames(game.record())
    deal, passed = frames[0], frames[1]
    assert deal["kind"] == "deal" and passed["kind"] == "pass"
    direction = 1  # the first round passes left: seat s gives to seat s + 1
    for seat in range(4):
        given = passed["passed"][seat]
        assert len(given) == 3 and set(given) <= set(deal["hands"][seat])
        assert not set(given) & set(passed["hands"][seat])
        assert set(given) <= set(passed["hands"][(seat + direction) % 4])


def test_sore_spot_frames_show_the_sore_cards_and_five_players() -> None:
    game = finished_game("sore-spot", players=5, seed=2)
    frames = replay_frames(game.record())
    sore = [f for f in frames if f["kind"] == "sore"]
    assert len(sore) == len(game.history) and all(len(f["sore_cards"]) == 5 for f in sore)
    assert all(f["tricks_in_round"] == len(f["hands"][0]) for f in sore)
    # The sore cards are public from then on: every trick frame of the round carries them.
    current = None
    for frame in frames:
        if frame["kind"] in ("deal", "sore"):
            current = frame["sore_cards"]
        if frame["kind"] == "trick":
            assert frame["sore_cards"] == current and current is not None


def test_sloppy_seconds_frames_say_when_trump_appears() -> None:
    game = finished_game("sloppy-seconds", seed=8)
    frames = replay_frames(game.record())
    tricks = [f for f in frames if f["kind"] == "trick"]
    assert tricks[0]["trump"] is None  # no trump before a second suit has been broken
    assert any(f["trump"] in ("C", "D", "H", "S") for f in tricks)


def test_a_record_that_does_not_replay_raises() -> None:
    record = finished_game("card-commons").record()
    record["moves"][5]["move"] = "ZZ"
    with pytest.raises(engine.EngineError):
        replay_frames(record)


@pytest.mark.parametrize("game_id", ["spot-hearts", "sore-spot"])
def test_each_frame_counts_the_moves_it_shows(game_id: str) -> None:
    """The analysis panel finds a decision's frame by `moves`: the frame where that move first shows."""
    record = finished_game(game_id).record()
    frames = replay_frames(record)
    counts = [f["moves"] for f in frames]
    assert counts[0] == 0 and counts == sorted(counts) and counts[-1] == len(record["moves"])
    for frame in frames:
        if frame["kind"] == "trick":  # the trick's last card is the last move this frame shows
            last = record["moves"][frame["moves"] - 1]
            assert (last["seat"], last["move"]) == (frame["trick"]["cards"][-1]["seat"],
                                                    frame["trick"]["cards"][-1]["card"])
