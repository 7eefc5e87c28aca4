"""Client fixtures: SDK bot servers on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from trickarena import Bot, BotServer


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
