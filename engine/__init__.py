"""Trick Arena's rules engine: four trick-taking games as plain values and functions.

No I/O, no global randomness: dealing is a pure function of a seed (or explicit
hands), and a game is reproduced exactly by its record.

>>> import engine
>>> g = engine.new_game("spot-hearts", players=4, seed=1)
>>> g.phase
<Phase.PASS: 'pass'>
>>> for seat in g.to_act():
...     g.apply(seat, g.legal_moves(seat)[:3])
>>> g.phase, g.legal_moves(g.to_act()[0])
(<Phase.PLAY: 'play'>, ['2C'])
"""

from . import compiled as _compiled

# The mypyc build of the rule modules, when it exists and matches the source (engine/compiled.py).
__path__ = _compiled.package_path(__name__) + __path__
COMPILED = _compiled.ACTIVE

from .cards import Card, CardError
from .errors import (
    EngineError,
    GameOverError,
    IllegalMoveError,
    MalformedMoveError,
    NotYourTurnError,
    OptionsError,
)
from .game import load, new_game, rules_for, start_from_record, validate_options
from .games.registry import GAMES
from .replay import replay_summary
from .sampling import NoWorldError, sample_world
from .shapes import Decision, Phase, SeatView, SpectatorView, TableView
from .state import GameState

__all__ = [
    "COMPILED",
    "GAMES",
    "Card",
    "CardError",
    "Decision",
    "EngineError",
    "GameOverError",
    "GameState",
    "IllegalMoveError",
    "MalformedMoveError",
    "NoWorldError",
    "NotYourTurnError",
    "OptionsError",
    "Phase",
    "SeatView",
    "SpectatorView",
    "TableView",
    "load",
    "new_game",
    "replay_summary",
    "rules_for",
    "sample_world",
    "start_from_record",
    "validate_options",
]
