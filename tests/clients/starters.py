"""The starter bots of clients/examples, loaded by file path (they are scripts, not a package)."""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType

from trickarena import Bot

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
