"""A choice every seat makes at once (the pass, the sore suit) is asked of every bot at once: a table of far
bots waits for the slowest of them, not for the sum, and each answer is applied, logged and struck as when
asked one after another.

Real HTTP bots on 127.0.0.1 (each takes 0.3 s over every move); no Redis: the match runner alone.
"""

from __future__ import annotations

import pytest

from arena.match import MatchAbandoned, MatchRunner, make_drivers
from core.arena.decisions import logged
from core.arena.model import Member, MemberKind
from tests.scenarios import match_spec
from tests.waiting import wait_until

THINK_S = 0.3


GAMES = [("spot-hearts", {"target": 100}), ("sore-spot", {"rounds": 1})]  # a pass first; a sore suit first


@pytest.mark.parametrize(("game", "options"), GAMES)
def test_a_simultaneous_choice_is_asked_of_every_bot_at_once(bot_server, game: str, options: dict) -> None:
    bots = [bot_server("sleep", delay_s=THINK_S) for _ in range(3)]
    entrants = [Member(f"far-{i}", MemberKind.HTTP, url=bot.url, name=f"far-{i}")
                for i, bot in enumerate(bots)]
    entrants.append(Member.house("heuristic"))
    spec = match_spec(f"together-{game}", entrants, game=game, options=options, deadline_ms=5000)
    runner = MatchRunner(spec, make_drivers(spec, allow_private=True), stop_requested=lambda: True)
    with pytest.raises(MatchAbandoned):  # stopped after the first decision: the seats' choice, made at once
        runner.run()
    # A bot notes its answer just after sending it: the match may have read it a moment before.
    times = wait_until(lambda: all(bot.move_times for bot in bots) and [bot.move_times for bot in bots], 5,
                       "every bot's first move answered")
    assert [len(t) for t in times] == [1, 1, 1], times
    received, answered = [t[0][0] for t in times], [t[0][1] for t in times]
    assert max(received) < min(answered), times  # every bot had its request before the first answered
    versions = {logged(log.stored())[0].version for log in runner.decisions.values()}
    assert versions == {0}  # each logged at the version it was asked at: the view it was sent
    assert runner.strikes == []
