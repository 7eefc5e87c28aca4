"""House bots: seeded random play, per-game heuristics, and graded mixtures of both.

Every bot decides from a seat view (``GameState.view(seat)``), the same shape the
API gives polling clients and the arena sends to HTTP bots.

>>> import engine
>>> from engine.bots import make_bot
>>> g = engine.new_game("sore-spot", players=3, seed=2)
>>> bot = make_bot("heuristic", seed=1)
>>> move = bot.choose(g.view(0))
>>> move in g.legal_moves(0)
True
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
