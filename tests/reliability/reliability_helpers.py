"""What the reliability tests share: cards in any answer, what a seat may not know, short games, a Redis of
the test's own."""

from __future__ import annotations

import json
import re
import resource
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import redis

from devstack.devredis import free_port, server_args, wait_ready
from engine.cards import CODES

PROBLEM = "application/problem+json"
CARD_CODES = frozenset(CODES)
# Card-shaped tokens in HTML; not after % or # (URL escapes like %3C, CSS colours like #3C3C3C).
CARD_IN_TEXT = re.compile(r"(?<![A-Za-z0-9%#&])(?:10|[2-9TJQKA])[CDHS](?![A-Za-z0-9])")

# (game, players, options): one short game of each, with undealt cards where the rules leave some.
SHORT_GAMES = [
    ("spot-hearts", 4, {"target": 1}),
    ("card-commons", 3, {"target": 1}),
    ("sore-spot", 5, {"rounds": 1}),
    ("sloppy-seconds", 3, {"target": 1}),
]


def normalise(code: str) -> str:
    code = code.upper()
    return "T" + code[2:] if code.startswith("10") else code


def cards_in_json(value: Any) -> set[str]:
    """Every card code that appears as a string anywhere in a JSON value."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if normalise(item) in CARD_CODES:
                found.add(normalise(item))
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def cards_in_body(content_type: str, text: str) -> set[str]:
    """Cards in a response body: JSON strings for JSON answers, card-shaped tokens for anything else."""
    if "json" in content_type:
        try:
            return cards_in_json(json.loads(text))
        except ValueError:
            pass
    return {normalise(m) for m in CARD_IN_TEXT.findall(text)}


def codes_of(cards: Any) -> set[str]:
    """Engine card ints (or lists of them, or None) as codes."""
    if cards is None:
        return set()
    if isinstance(cards, int):
        cards = [cards]
    return {CODES[c] for c in cards}


def public_cards(game: Any) -> set[str]:
    return cards_in_json(game.spectator_view())


def secret_cards(game: Any, seat: int | None) -> set[str]:
    """Cards `seat` (None: a spectator) must not learn now: other hands, others' pending choices, undealt
    cards of the round; minus what the seat legitimately knows (its hand, what it passed) and public cards."""
    dealt = set()
    for hand in game.dealt[-1]["hands"]:
        dealt |= {normalise(c) for c in hand}
    hidden = {CODES[c] for c in game.deck} - dealt  # undealt
    for other in range(game.players):
        if other == seat:
            continue
        hidden |= codes_of(game.hands[other])
        pending = game.pending.get(other) if isinstance(game.pending, dict) else None
        hidden |= codes_of(pending)
    if seat is not None:
        hidden -= codes_of(game.hands[seat])
        hidden -= codes_of(game.passed[seat])
    return hidden - public_cards(game)


def random_move(decision: dict[str, Any], rng: Any) -> Any:
    legal = decision["legal"]
    return rng.sample(legal, decision["count"]) if decision["kind"] == "pass" else rng.choice(legal)



class OwnRedis:
    """A redis-server configured like `make run`'s (AOF everysec), on a free port, restartable in place.

    SIGXFSZ is ignored, so a file-size limit (:meth:`limit_file_size`) fails its writes instead of killing it.
    """

    def __init__(self, data_dir: Path) -> None:
        self.port = free_port()
        self.data_dir = data_dir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            server_args(self.port, self.data_dir, persistent=True),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=lambda: signal.signal(signal.SIGXFSZ, signal.SIG_IGN),
        )
        wait_ready(self.url, timeout=10)

    def stop(self, hard: bool) -> None:
        assert self.process is not None
        if hard:
            self.process.kill()
        else:
            redis.Redis.from_url(self.url).shutdown(nosave=True)  # SHUTDOWN fsyncs the AOF
        self.process.wait(timeout=10)

    def restart(self) -> None:
        self.stop(hard=False)
        self.start()

    def limit_file_size(self, size: int | None) -> None:
        """Files of redis-server may not grow past `size` bytes (None: no limit): its disk is full."""
        assert self.process is not None
        soft = resource.RLIM_INFINITY if size is None else size
        resource.prlimit(self.process.pid, resource.RLIMIT_FSIZE, (soft, resource.RLIM_INFINITY))

    def aof_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.data_dir.rglob("*") if p.is_file())


def aof_written(conn: redis.Redis, server: OwnRedis) -> None:
    """Wait until Redis has written everything it accepted to its AOF (no fsync pending), and the files
    stay put: a Redis killed now loses none of it."""
    deadline = time.monotonic() + 30
    last = -1
    while True:
        info = conn.info("persistence")
        size = server.aof_bytes()
        if (info["aof_buffer_length"] == 0 and info["aof_pending_bio_fsync"] == 0
                and not info["aof_rewrite_in_progress"] and size == last):
            return
        assert time.monotonic() < deadline, f"the AOF was still being written after 30 s: {info}"
        last = size
        time.sleep(0.05)


@contextmanager
def own_redis_server(data_dir: Path) -> Iterator[OwnRedis]:
    """An :class:`OwnRedis` started in `data_dir`, killed at the end if still running."""
    server = OwnRedis(data_dir)
    server.data_dir.mkdir()
    server.start()
    try:
        yield server
    finally:
        if server.process is not None and server.process.poll() is None:
            server.process.kill()
            server.process.wait()

