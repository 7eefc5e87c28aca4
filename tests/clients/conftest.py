"""Client fixtures: SDK bot servers on 127.0.0.1; Node.js, the JS starters and bots served by node."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from trickarena import Bot, BotServer

from tests.clients.nodejs import JS_STARTERS, SDK, NodeBot, node_path
from tests.clients.starters import EXAMPLES


@pytest.fixture
def sdk_server() -> Iterator[Callable[[Bot], BotServer]]:
    """Factory: sdk_server(bot) serves `bot` (SDK BotServer, 127.0.0.1) for the rest of the test."""
    started: list[BotServer] = []

    def start(bot: Bot) -> BotServer:
        server = BotServer(bot).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def node() -> str:
    """The node binary (≥ 18): skips without one on a workstation, fails under CI."""
    return node_path()


@pytest.fixture(scope="session")
def bots_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where a newcomer works: the JS starters copied in, `require("trickarena")` resolving to clients/js."""
    folder = tmp_path_factory.mktemp("js-bots")
    (folder / "node_modules").mkdir()
    (folder / "node_modules" / "trickarena").symlink_to(SDK, target_is_directory=True)
    for filename in JS_STARTERS.values():
        shutil.copy(EXAMPLES / filename, folder / filename)
    return folder


@pytest.fixture
def node_bot(node: str, bots_dir: Path) -> Iterator[Callable[[str], NodeBot]]:
    """Factory: node_bot(starter filename) serves it with node on a free port for the rest of the test."""
    started: list[NodeBot] = []

    def start(filename: str) -> NodeBot:
        bot = NodeBot(node, bots_dir, filename)
        started.append(bot)
        return bot

    yield start
    for bot in started:
        if bot.process.poll() is None:
            bot.stop()
