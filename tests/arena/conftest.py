"""Arena fixtures: real protocol-v1 bot servers on 127.0.0.1 (good and misbehaving)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from arena.botserver import BotServerConfig, RunningBot, serve_bot


@pytest.fixture
def bot_server() -> Iterator[Callable[..., RunningBot]]:
    """Factory: bot_server(behaviour="good", **config) starts a real HTTP bot for the rest of the test."""
    started: list[RunningBot] = []

    def start(behaviour: str = "good", **config) -> RunningBot:
        bot = serve_bot(BotServerConfig(behaviour=behaviour, **config))
        started.append(bot)
        return bot

    yield start
    for bot in started:
        bot.stop()

