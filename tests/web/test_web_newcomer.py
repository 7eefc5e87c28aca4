"""The README's promise end to end: a starter bot registered by URL is rated by the real scheduler and worker
processes, shows up on the ladder page, and its game replays — over HTTP on 127.0.0.1, nothing mocked."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
import redis
from click.testing import CliRunner
from trickarena import ArenaClient, BotServer

from clients.cli import main as cli
from core.arena.model import LadderConfig
from core.arena.store import ArenaStore
from tests.clients.starters import starter_bot
from tests.waiting import wait_until

HOUSE = ("heuristic", "eps-0.3", "eps-0.6", "random")


@pytest.fixture
def starter_server() -> Iterator[BotServer]:
    server = BotServer(starter_bot("sore-spot")).start()
    yield server
    server.stop()


@pytest.mark.drill
def test_a_registered_starter_bot_is_rated_listed_and_replayable(live_server, redis_url, key_prefix,
                                                                 starter_server, arena_process) -> None:
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig("sore-spot-4p", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE,
                                   max_active=2))
    bot = starter_server
    registered = CliRunner().invoke(cli, ["--api", live_server, "register", "newcomer", "--game", "sore-spot",
                                          "--url", bot.url])
    assert registered.exit_code == 0, registered.output
    bot_id = re.search(r"registered newcomer as (\w+)", registered.output).group(1)

    for args in (["scheduler", "--no-default-ladders"], ["worker", "--simple"]):
        arena_process(*args, env={"TA_ARENA_TICK_S": "0.2"})

    def rated_row(api: ArenaClient) -> dict | None:
        ranking = api.get("/api/ladders/sore-spot-4p")["ranking"]
        row = next((r for r in ranking if r["bot_id"] == bot_id), None)
        return row if row and row["matches"] >= 1 else None

    with ArenaClient(live_server) as api:
        row = wait_until(lambda: rated_row(api), 60, "the newcomer rated in a match")
    assert row is not None and row["matches"] >= 1, row
    assert row["strikes"] == 0 and bot.calls > 0

    ladder_page = httpx.get(f"{live_server}/ladders/sore-spot-4p").text
    assert f'data-bot="{bot_id}"' in ladder_page and "newcomer" in ladder_page
    bot_page = httpx.get(f"{live_server}/ladders/sore-spot-4p/bots/{bot_id}").text
    match_id = re.search(r'href="/matches/(\w+)"', bot_page).group(1)
    replay = httpx.get(f"{live_server}/matches/{match_id}/games/0")
    assert replay.status_code == 200 and "data-frames" in replay.text and "newcomer" in replay.text
    printed = CliRunner().invoke(cli, ["--api", live_server, "replay", "--match", match_id])
    assert printed.exit_code == 0 and "Game over" in printed.output and "newcomer" in printed.output
