"""The starter bots of clients/examples, loaded by file path (they are scripts, not a package)."""

from __future__ import annotations

import importlib.util
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import ModuleType

from trickarena import ArenaClient, Bot

from arena.botclient import BotClient
from arena.drivers import HttpDriver
from arena.match import MatchRunner
from core import metrics
from core.arena.model import MatchResult, Member, MemberKind
from tests.scenarios import match_spec
from tests.waiting import wait_until

_LOCK = threading.Lock()
EXAMPLES = Path(__file__).resolve().parents[2] / "clients" / "examples"
STARTERS = {  # game -> (file, class)
    "spot-hearts": ("spot_hearts_bot.py", "SpotHeartsBot"),
    "card-commons": ("card_commons_bot.py", "CardCommonsBot"),
    "sloppy-seconds": ("sloppy_seconds_bot.py", "SloppySecondsBot"),
    "sore-spot": ("sore_spot_bot.py", "SoreSpotBot"),
}
# Short games: the same rules, fewer rounds (a test plays a whole game in seconds).
QUICK_OPTIONS = {"spot-hearts": {"target": 60}, "card-commons": {"target": 20},
                 "sloppy-seconds": {"target": 120}, "sore-spot": {"rounds": 1}}


def load_example(filename: str) -> ModuleType:
    with _LOCK:  # test threads load bots concurrently; a half-executed module must never be seen
        path = EXAMPLES / filename
        name = f"starter_{path.stem}"
        if name not in sys.modules:
            spec = importlib.util.spec_from_file_location(name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            sys.modules[name] = module
        return sys.modules[name]


def starter_bot(game: str) -> Bot:
    filename, class_name = STARTERS[game]
    return getattr(load_example(filename), class_name)()


def play_http_match(game: str, urls: list[str], names: list[str], seed: int = 7,
                   deadline_ms: int = 2000) -> MatchResult:
    """A real match through the arena's runner and bot client against bot URLs: one game, no duplicate."""
    members = [Member(f"b{i}", MemberKind.HTTP, url=url, name=name)
               for i, (url, name) in enumerate(zip(urls, names, strict=True))]
    clients = [BotClient(url, allow_private=True) for url in urls]
    spec = match_spec("m-local", members, ladder_id="local", game=game, options=QUICK_OPTIONS[game],
                      seed=seed, deadline_ms=deadline_ms)
    try:
        drivers = {m.bot_id: HttpDriver(c) for m, c in zip(members, clients, strict=True)}
        return MatchRunner(spec, drivers).run()
    finally:
        for client in clients:
            client.close()


def seat_long_polls_held() -> float:
    """Seat long-polls parked right now in this process's API (the one `serving` runs on a thread)."""
    return metrics.OWN.get_sample_value("trickarena_long_polls_held", {"view": "seat"}) or 0.0


def interrupt_while_long_polling(process: subprocess.Popen[str], api_url: str) -> tuple[str, str]:
    """Wait until a practising bot has passed its cards and is parked in a long-poll (no worker drives the
    house bots; `api_url` is served from this process), then SIGINT it: it must stop at once (long before
    its long-poll's 25 s are over) and exit 0. Returns its (stdout, stderr)."""
    with ArenaClient(api_url) as api:

        def parked() -> bool:
            assert process.poll() is None, process.communicate()
            return bool([t for t in api.tables() if t.version >= 1]) and seat_long_polls_held() >= 1

        wait_until(parked, what="the bot passed its cards and parked in a long-poll", interval=0.1)
    started = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert time.monotonic() - started < 15
    assert process.returncode == 0, err
    assert "stopped" in out
    return out, err
