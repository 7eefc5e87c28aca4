"""``trick-arena bots``, ``status``, ``strikes``, ``pause``, ``resume``, ``set-url`` and ``delete``
against a real service on 127.0.0.1, with a real HTTP bot rated in a real ladder match
(the arena's own job function)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator

import pytest
import redis
from click.testing import CliRunner
from rich.console import Console
from trickarena import ArenaClient

from arena.botserver import BotServerConfig, serve_bot
from arena.jobs import check_bot_health, play_match
from clients.cli import main
from core.arena.model import LadderConfig, Member, MemberKind
from core.arena.store import ArenaStore
from core.settings import Settings
from tests.scenarios import match_spec

LADDER = LadderConfig("sore-spot-4p", "sore-spot", 4, {"rounds": 1}, house_bots=("heuristic", "random"))


@pytest.fixture(autouse=True)
def wide_console(monkeypatch) -> None:
    import clients.cli

    monkeypatch.setattr(clients.cli, "console", Console(width=220, force_terminal=False))


@pytest.fixture
def cheater() -> Iterator[str]:
    """A real HTTP bot that answers every decision with an illegal move: every call is a strike."""
    bot = serve_bot(BotServerConfig(behaviour="illegal", name="cheater", games=["sore-spot"]))
    yield bot.url
    bot.stop()


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result.output


def rate_one_match(redis_url: str, key_prefix: str, bot_id: str, url: str) -> None:
    """One rated match of the ladder: the bot and three house bots, played by the arena's job function."""
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LADDER)
    entrants = [Member(bot_id, MemberKind.HTTP, url=url, name="cheater"),
                *(Member.house(name) for name in ("heuristic", "random", "random"))]
    entrants[3] = Member("house:random-2", MemberKind.HOUSE, house_bot="random", name="random-2")
    spec = match_spec("cli-bots-m0", entrants, ladder_id=LADDER.ladder_id, game=LADDER.game,
                      options=LADDER.options, seed=7, strike_limit=50)
    store.create_match(spec)
    settings = dataclasses.replace(Settings.from_env(), allow_private_urls=True)
    assert play_match(store, spec.match_id, worker="cli-bots", settings=settings)["status"] == "rated"


def row_of(out: str, text: str) -> str:
    return next(line for line in out.splitlines() if text in line)


def test_my_bots_their_standing_strikes_and_changes(live_server, redis_url, key_prefix, tmp_path,
                                                    cheater) -> None:
    cli = ("--api", live_server, "--key-file", str(tmp_path / "key"))
    assert "no account key" in run(*cli, "bots", code=1)
    run(*cli, "account", "create")
    run(*cli, "register", "cheater", "--game", "sore-spot", "--url", cheater)
    key = (tmp_path / "key").read_text().strip()
    with ArenaClient(live_server) as api:
        bot_id = api.account_bots(key)[0].bot_id

    out = run(*cli, "bots")  # before any match: listed, on no ladder yet, not seated before it answers
    row = row_of(out, bot_id)
    assert "cheater" in row and "waiting for its first passing health check" in row
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    assert check_bot_health(store, bot_id, cheater, allow_private=True)["ok"]  # the arena's first check
    assert "active" in row_of(run(*cli, "bots"), bot_id)

    rate_one_match(redis_url, key_prefix, bot_id, cheater)
    with ArenaClient(live_server) as api:
        ranked = {r.bot_id: r for r in api.ranking(LADDER.ladder_id).ranking}[bot_id]
    assert ranked.matches == 1 and ranked.strikes > 0

    cells = [cell.strip() for cell in row_of(run(*cli, "bots"), bot_id).split("│")]
    assert cells[1:] == [bot_id, "cheater", LADDER.ladder_id, str(ranked.rank), f"{ranked.rating:.0f}?", "1",
                         str(ranked.strikes), "active", ""]

    out = run(*cli, "status", bot_id)
    assert f"cheater ({bot_id}): active" in out and cheater in out
    cells = [cell.strip() for cell in row_of(out, LADDER.ladder_id).split("│")]
    assert cells[1:3] == [LADDER.ladder_id, str(ranked.rank)]
    assert cells[5] == "1" and cells[8] == str(ranked.strikes)  # matches, strikes

    out = run(*cli, "strikes", bot_id)
    assert f"{ranked.strikes} strikes in 1 matches" in out
    assert out.count("illegal_move") == ranked.strikes and "cli-bots-m0" in out
    out = run(*cli, "strikes", bot_id, "--ladder", LADDER.ladder_id, "--limit", "1")
    assert f"{ranked.strikes} strikes in 1 matches" in out

    out = run(*cli, "log", "cli-bots-m0")  # the account's bots in the match: every decision, each struck
    assert f"{ranked.strikes} decisions, {ranked.strikes} struck" in out
    assert out.count("illegal_move") == ranked.strikes and out.count("(fallback)") == ranked.strikes
    logged = json.loads(run(*cli, "log", "cli-bots-m0", "--bot", bot_id, "--json", "--game", "0"))
    assert logged["bot_id"] == bot_id and len(logged["decisions"]) == ranked.strikes
    assert all(d["fallback"] and '"ZZ"' in d["answer"] for d in logged["decisions"])
    assert "--bot" in run(*cli, "log", "cli-bots-m0", "--token", "not-one", code=2)

    assert "paused" in run(*cli, "pause", bot_id)
    with ArenaClient(live_server) as api:
        assert not api.bot(bot_id).enabled
    assert "paused (trick-arena resume)" in row_of(run(*cli, "bots"), bot_id)
    assert "active" in run(*cli, "resume", bot_id)
    assert "http://127.0.0.1:9/moved" in run(*cli, "set-url", bot_id, "http://127.0.0.1:9/moved")
    with ArenaClient(live_server) as api:
        moved = api.bot(bot_id)
        assert moved.enabled and moved.url == "http://127.0.0.1:9/moved"
    run(*cli, "delete", bot_id)
    out = run(*cli, "bots")
    assert bot_id not in out and "no bots in your account yet" in out
    assert "API error 404" in run(*cli, "status", bot_id, code=1)


def test_a_bot_outside_the_account_is_changed_with_its_owner_token(live_server, tmp_path) -> None:
    cli = ("--api", live_server, "--key-file", str(tmp_path / "key"))
    with ArenaClient(live_server) as api:
        old = api.register_bot("tokened", ["spot-hearts"], "http://127.0.0.1:9/a")
    assert "no account key" in run(*cli, "pause", old.bot_id, code=1)
    assert "API error 403" in run(*cli, "pause", old.bot_id, "--token", "not-the-token", code=1)
    assert "paused" in run(*cli, "pause", old.bot_id, "--token", old.owner_token)
    out = run(*cli, "status", old.bot_id)  # reading needs no key
    assert "paused" in out and "on no ladder yet" in out
    assert "0 strikes in 0 matches (on no ladder yet)" in run(*cli, "strikes", old.bot_id)
