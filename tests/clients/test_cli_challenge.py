"""``trick-arena challenge`` and the Python SDK's ``challenge`` / ``get_challenge`` against a real service on
127.0.0.1, a real challenge worker and real HTTP bots."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from rich.console import Console
from trickarena import ApiError, ArenaClient

from clients.cli import main
from tests.waiting import wait_until


@pytest.fixture(autouse=True)
def wide_console(monkeypatch) -> None:
    import clients.cli.challenges

    monkeypatch.setattr(clients.cli.challenges, "console", Console(width=200, force_terminal=False))
    monkeypatch.setattr(clients.cli, "console", Console(width=200, force_terminal=False))
    monkeypatch.setattr(clients.cli.challenges, "CHALLENGE_POLL_S", 0.2)


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result.output


def test_a_challenge_from_the_sdk_and_the_command_line(live_server, bot_process, challenge_worker,
                                                       tmp_path) -> None:
    api = ArenaClient(live_server, retries=0)
    mine = api.register_bot("sdk-challenger", ["card-commons"], bot_process())
    theirs = api.register_bot("sdk-opponent", ["card-commons"], bot_process(house_bot="random"))
    with pytest.raises(ApiError) as refused:
        api.challenge(mine.owner_token, "card-commons", [mine.bot_id, theirs.bot_id, "random"],
                      options={"target": 30})
    assert refused.value.status == 409 and refused.value.problem["bot_id"] == theirs.bot_id
    cli = ("--api", live_server, "--key-file", str(tmp_path / "no-key"))
    out = run(*cli, "update", theirs.bot_id, "--accept-challenges", "--token", theirs.owner_token)
    assert "accepts challenges" in out
    assert api.bot(theirs.bot_id).accepts_challenges is True

    created = api.challenge(mine.owner_token, "card-commons", [mine.bot_id, theirs.bot_id, "random"],
                            options={"target": 30})
    assert created.status == "queued" and created.match.seed is None and created.games == 1
    challenge_worker()
    out = run(*cli, "challenge", mine.bot_id, "heuristic", theirs.bot_id, "--game", "card-commons",
              "--options", '{"target": 30}', "--token", mine.owner_token)
    assert "queued" in out and "played" in out and "sdk-opponent" in out and "replay: " in out
    # The worker plays both challenges side by side (two threads): the first may still be running.
    shown = wait_until(lambda: (c := api.get_challenge(created.challenge_id)).over and c, 60,
                       "the first challenge over", interval=0.2)
    assert shown.over and shown.status == "played" and shown.match.challenge
    assert shown.match.seed is not None and len(shown.match.replays) == 1
    assert "played" in run(*cli, "challenge", "--show", created.challenge_id)
    # Wrong use: one line, no traceback.
    assert "name the game" in run(*cli, "challenge", mine.bot_id, "random", code=2)
    assert "challenge-not-found" not in run(*cli, "challenge", "--show", "cnothing", code=1)
    assert "API error 404" in run(*cli, "challenge", "--show", "cnothing", code=1)
