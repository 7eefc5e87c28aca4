"""The per-seat move limit, counted inside the Lua call a move makes first (core.tables.lua), so counting
costs no round trip of its own."""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import TooManyMovePosts


@dataclass(frozen=True)
class PostLimit:
    """The per-seat move limit: at most `limit` move posts with one token on one seat at one table version;
    a count is forgotten `window_s` seconds after its first post. Counted inside the move's own Lua call."""

    limit: int
    window_s: int


class PostCount:
    """One move post to count: the first Lua call of the move counts it, later ones (retries) do not."""

    __slots__ = ("key", "limit", "seat", "pending")

    def __init__(self, key: str, limit: PostLimit, seat: int) -> None:
        self.key, self.limit, self.seat, self.pending = key, limit, seat, True

    def take(self) -> tuple[list[str], list[int]]:
        """(extra KEYS, ARGV) for the next script: the counter once, then nothing."""
        if not self.pending:
            return [], [0, 0]
        self.pending = False
        return [self.key], [self.limit.limit, self.limit.window_s]

    def refuse(self, retry_after: int) -> TooManyMovePosts:
        return TooManyMovePosts(self.seat, self.limit.limit, retry_after)
