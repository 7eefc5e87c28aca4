"""Trick Arena's rules engine: four trick-taking games as plain values and functions.

No I/O, no global randomness: dealing is a pure function of a seed (or explicit
hands), and a game is reproduced exactly by its record.

>>> import engine
>>> g = engine.new_game("spot-hearts", players=4, seed=1)
>>> g.phase
'pass'
>>> for seat in g.to_act():
...     g.apply(seat, g.legal_moves(seat)[:3])
>>> g.phase, g.legal_moves(g.to_act()[0])
('play', ['2C'])
"""

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
from .state import GameState

__all__ = [
    "GAMES",
    "Card",
    "CardError",
    "EngineError",
    "GameOverError",
    "GameState",
    "IllegalMoveError",
    "MalformedMoveError",
    "NoWorldError",
    "NotYourTurnError",
    "OptionsError",
    "load",
    "new_game",
    "replay_summary",
    "rules_for",
    "sample_world",
    "start_from_record",
    "validate_options",
]
