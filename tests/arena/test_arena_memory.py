"""A bot that remembers every card it has seen gains nothing in the arena's duplicate matches.

The memory bot plays matches twice against its twin's result on the same deals and seats (arena.memorybot).
Duplicate matches deal every game afresh; replaying one deal in every game of a match, as a format that
cancels luck by rotation alone would, hands the remembering bot the other seats' cards.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from arena.__main__ import main
from arena.memorybot import Memory, MemoryBot, memory_gain

SPOT_HEARTS = {"target": 1}  # one round per game: short matches, the same leak
MATCHES = 20


def test_the_memory_bot_gains_nothing_in_duplicate_matches() -> None:
    fresh = memory_gain("spot-hearts", MATCHES, seed=11, options=SPOT_HEARTS)
    # Every game of every match on a deal nobody at the table has seen: nothing to recall, and the memory
    # bot plays its twin's moves (a chance resemblance of two hands aside, which the sign test absorbs).
    assert fresh["recalled_decisions"] <= 13, fresh
    assert fresh["sign_test_p"] > 0.05 and abs(fresh["gain_per_match"]) < 2, fresh


def test_replaying_a_deal_within_a_match_pays_the_memory_bot() -> None:
    """The same check fails on the format the arena does not use: every game of a match on one deal."""
    replayed = memory_gain("spot-hearts", MATCHES, seed=11, options=SPOT_HEARTS, replay_deals=True)
    assert replayed["recalled_decisions"] > 100, replayed
    assert replayed["sign_test_p"] < 0.001 and replayed["gain_per_match"] > 10, replayed


def test_the_memory_bot_recalls_a_hand_it_saw_at_another_table_only() -> None:
    import engine

    game = engine.new_game("spot-hearts", 4, SPOT_HEARTS, seed=5)
    memory = Memory()
    bot = MemoryBot(memory, seed=1)
    while not game.over:  # one table: the memory bot sees every seat's play from seat 0
        for seat in game.to_act():
            view = game.view(seat)
            move = bot.choose("t1", view) if seat == 0 else engine.bots.make_bot("heuristic", 2).choose(view)
            game.apply(seat, move)
    again = engine.new_game("spot-hearts", 4, SPOT_HEARTS, seed=5)
    while again.view(2)["phase"] != "play":
        for seat in again.to_act():
            again.apply(seat, engine.bots.make_bot("heuristic", 2).choose(again.view(seat)))
    view = again.view(2)
    assert memory.recall("t1", view) is None  # the table it saw is not another deal
    remembered = memory.recall("t2", view)
    assert remembered is not None  # seat 2's hand was played in front of it at t1
    fresh = engine.new_game("spot-hearts", 4, SPOT_HEARTS, seed=6)
    while fresh.view(2)["phase"] != "play":
        for seat in fresh.to_act():
            fresh.apply(seat, engine.bots.make_bot("heuristic", 2).choose(fresh.view(seat)))
    assert memory.recall("t3", fresh.view(2)) is None


@pytest.mark.parametrize(("args", "message"), [
    (["--options", "{nope"], "Invalid value for '--options': not JSON"),
    (["--options", '{"target": 0}'], "option target must be at least 1"),
    (["--opponents", "nobody"], "unknown house bot 'nobody'"),
    (["--matches", "0"], "Invalid value for '--matches'"),
])
def test_memory_gain_answers_a_wrong_option_with_one_line(args: list[str], message: str) -> None:
    done = CliRunner().invoke(main, ["memory-gain", *args])
    assert done.exit_code == 2, done.output
    assert "Traceback" not in done.output and message in done.output.splitlines()[-1]
