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

from .base import Bot, EpsilonBot, RandomBot, choose_random, make_bot, play_game
from .names import is_house_bot_name

__all__ = ["Bot", "EpsilonBot", "RandomBot", "choose_random", "is_house_bot_name", "make_bot", "play_game"]
