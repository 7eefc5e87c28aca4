"""Every command a ladder page suggests works as printed: the test copies them off the page and runs them.

They run in a fresh directory that holds the repository's `clients/` (as a checkout does), with this
environment's `python` and `trick-arena` first on PATH and TRICK_ARENA_API naming the test's server. The one
change: the page's example port 9001 becomes a free port, so parallel runs cannot collide.
"""

from __future__ import annotations

import html
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import redis

import engine
from arena.botserver import wait_serving
from core.arena.model import LadderConfig
from core.arena.store import ArenaStore
from devstack.devredis import free_port
from devstack.devserve import stop
from tests.conftest import REPO_ROOT

COMMAND_WORDS = ("cp", "python", "trick-arena")


def suggested_commands(page: str) -> list[str]:
    found = re.findall(r"<code>(.*?)</code>", page, re.S)
    codes = (html.unescape(re.sub(r"<[^>]+>", "", code)) for code in found)
    return [" ".join(code.split()) for code in codes if code.split() and code.split()[0] in COMMAND_WORDS]


def ladder_page_commands(client, redis_url: str, key_prefix: str, game: str) -> list[str]:
    store = ArenaStore(redis.Redis.from_url(redis_url), key_prefix)
    store.save_ladder(LadderConfig(f"{game}-4p", game, 4, {}))
    return suggested_commands(client.get(f"/ladders/{game}-4p").get_data(as_text=True))


@pytest.mark.parametrize("game", sorted(engine.GAMES))
def test_each_ladder_page_suggests_the_same_commands_for_its_game(game, client, redis_url, key_prefix):
    """The pages differ only in the game: the full run below for one game covers them all."""
    commands = ladder_page_commands(client, redis_url, key_prefix, game)
    reference = ladder_page_commands(client, redis_url, key_prefix, "spot-hearts")
    example = f"clients/examples/{game.replace('-', '_')}_bot.py"
    assert (REPO_ROOT / example).exists()
    assert [c.replace(game, "spot-hearts").replace(example, "clients/examples/spot_hearts_bot.py")
            for c in commands] == reference


def test_every_command_on_the_ladder_page_works_as_printed(app, client, live_server, redis_url, key_prefix,
                                                           rq_worker, tmp_path: Path) -> None:
    rq_worker(app.config["RQ_QUEUE"])  # plays the house seats of the practice table
    page_commands = ladder_page_commands(client, redis_url, key_prefix, "spot-hearts")
    port = str(free_port())
    commands = [c.replace("9001", port) for c in page_commands]
    assert {c.split()[0] for c in commands} == set(COMMAND_WORDS), commands  # practice, cp, serve, register

    (tmp_path / "clients").symlink_to(REPO_ROOT / "clients")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "TRICK_ARENA_API": live_server}
    servers: list[subprocess.Popen] = []
    try:
        for command in commands:
            if " serve " in f" {command} ":
                servers.append(subprocess.Popen(shlex.split(command), cwd=tmp_path, env=env,
                                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                wait_serving(f"http://127.0.0.1:{port}", timeout=30, process=servers[-1])
                continue
            done = subprocess.run(shlex.split(command), cwd=tmp_path, env=env, capture_output=True, text=True,
                                  timeout=180)
            assert done.returncode == 0, f"{command!r} failed:\n{done.stdout}\n{done.stderr}"
            if command.startswith("trick-arena practice"):
                assert "replay: trick-arena replay" in done.stdout, done.stdout  # it played to the end
    finally:
        for server in servers:
            stop(server, timeout=5)
    bots = httpx.get(f"{live_server}/api/bots", timeout=30).json()
    registered = [bot for bot in bots if bot["name"] == "my-bot"]
    assert [bot["url"].rstrip("/") for bot in registered] == [f"http://127.0.0.1:{port}"]

