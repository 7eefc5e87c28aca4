"""Every game and player count of the training ground, and short options that end a game in a deal or two."""

from __future__ import annotations

import engine

CASES = [(game, players) for game, info in engine.GAMES.items()
         for players in range(info.min_players, info.max_players + 1)]
SHORT = {"spot-hearts": {"target": 60}, "card-commons": {"target": 20}, "sloppy-seconds": {"target": 120},
         "sore-spot": {"rounds": 1}}
IDS = [f"{game}-{players}p" for game, players in CASES]
