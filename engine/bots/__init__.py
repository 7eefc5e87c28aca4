"""House bots: seeded random play, per-game heuristics, graded mixtures of both, and the search bot
(``make_bot`` builds each by name).

Design: docs/engine.md#house-bots
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Bot, EpsilonBot, RandomBot, choose_random, make_bot, play_game
    from .names import is_house_bot_name

__all__ = ["Bot", "EpsilonBot", "RandomBot", "choose_random", "is_house_bot_name", "make_bot", "play_game"]


def __getattr__(name: str) -> Any:
    # Imported on first use, so that engine.compiled.activate() can still put the compiled base in place.
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import base, names

    value = getattr(names if name == "is_house_bot_name" else base, name)
    globals()[name] = value
    return value
