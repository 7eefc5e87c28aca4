"""Arena fixtures: real protocol-v1 bot servers on 127.0.0.1 (good and misbehaving)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from api.devredis import free_port
from api.devserve import stop
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


@pytest.fixture
def bot_process() -> Iterator[Callable[..., str]]:
    """Factory: bot_process(behaviour="good", house_bot=...) runs `python -m arena serve-bot` in a process of
    its own and returns its URL. For bots that must answer within a deadline while the match runs in the
    test process: an in-process bot server would compete with the match for the interpreter lock."""
    started: list[subprocess.Popen] = []

    def start(behaviour: str = "good", house_bot: str = "heuristic") -> str:
        port = free_port()
        started.append(subprocess.Popen([sys.executable, "-m", "arena", "serve-bot", "--port", str(port),
                                         "--behaviour", behaviour, "--house-bot", house_bot],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{url}/", timeout=1).raise_for_status()
                return url
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "the bot process did not start"
                time.sleep(0.05)

    yield start
    for process in started:
        stop(process, timeout=5)
