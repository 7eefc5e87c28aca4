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

from .. import compiled as _compiled

# The mypyc build of the bots' base module, when it matches the source (engine/compiled.py).
__path__ = _compiled.package_path(__name__) + __path__

from .base import BOT_NAMES, Bot, EpsilonBot, RandomBot, choose_random, make_bot, play_game

__all__ = ["BOT_NAMES", "Bot", "EpsilonBot", "RandomBot", "choose_random", "make_bot", "play_game"]
