"""The game registry: game id -> rule book."""

from __future__ import annotations

from typing import Any

from ..rules import GameInfo, Rules
from .card_commons import CardCommons
from .sloppy_seconds import SloppySeconds
from .sore_spot import SoreSpot
from .spot_hearts import SpotHearts

RULES: dict[str, Rules[Any]] = {
    r.info.id: r for r in (SoreSpot(), CardCommons(), SloppySeconds(), SpotHearts())
}
GAMES: dict[str, GameInfo] = {gid: r.info for gid, r in RULES.items()}
