"""The game a match drives: an engine game, or a host that keeps one at an API table (``arena.polling``)."""

from __future__ import annotations

from typing import Any, Protocol

from engine.shapes import Move, Record, SeatView, SpectatorView


class MatchGame(Protocol):
    """What the match runner and the live feed use of a game; ``engine.GameState`` satisfies it as it is."""

    @property
    def over(self) -> bool: ...

    @property
    def version(self) -> int: ...

    @property
    def options(self) -> dict[str, Any]: ...

    @property
    def totals(self) -> list[int]: ...

    @property
    def winners(self) -> list[int]: ...

    def to_act(self) -> list[int]: ...

    def view(self, seat: int) -> SeatView: ...

    def spectator_view(self) -> SpectatorView: ...

    def record(self) -> Record: ...

    def apply(self, seat: int, move: Move) -> None: ...
