"""A bot's decision log: per decision, what it answered, how long it took and what the arena did with it.

Stored compactly with the match (what cannot be rebuilt); the request sent and the move applied are rebuilt
from the game's record when the log is read. Design: docs/arena.md#decision-logs.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

import engine
from core.arena.model import PROTOCOL_VERSION

ANSWER_LIMIT = 512  # bytes of a bot's raw answer kept with its decision (cut there)
DETAIL_LIMIT = 300  # characters of a failure's reason kept
Row = list[Any]  # a stored decision: [version, latency_ms], then outcome, detail, answer when it failed
Stored = list[list[Any]]  # a bot's log as stored: per game it played, [game_no, seat, [row, ...]]


@dataclass(frozen=True)
class LoggedDecision:
    """One decision of one bot as the arena stored it.

    >>> entry = LoggedDecision(1, 14, 2, 12.3456, "timeout", "no answer within 1000 ms")
    >>> entry.row()
    [14, 12.3, 'timeout', 'no answer within 1000 ms']
    >>> LoggedDecision(1, 15, 2, 0.44, "ok").row()
    [15, 0.4]
    >>> LoggedDecision.from_row(1, 2, entry.row()).latency_ms
    12.3
    """

    game_no: int
    version: int  # the game's version when it was asked: the seat's view there is what it was sent
    seat: int
    latency_ms: float  # from the request sent to the answer read (a polling bot: to its move)
    outcome: str  # "ok", or how it failed: "timeout", "connect_error", "bad_reply", "illegal_move", ...
    detail: str = ""  # why it failed
    answer: str | None = None  # the raw answer, when there was one and it said more than the move

    def row(self) -> Row:
        """The stored form: the common decision is its version and latency alone (about 10 bytes)."""
        row: Row = [self.version, round(self.latency_ms, 1), self.outcome, self.detail, self.answer]
        while len(row) > 2 and not row[-1] or row[2:] == ["ok"]:
            row.pop()
        return row

    @classmethod
    def from_row(cls, game_no: int, seat: int, row: Sequence[Any]) -> LoggedDecision:
        version, latency_ms, *rest = row
        outcome, detail, answer = (*rest, None, None, None)[:3] if rest else ("ok", "", None)
        return cls(game_no, int(version), seat, float(latency_ms), str(outcome or "ok"), detail or "", answer)


class BotLog:
    """One bot's decisions in a match as they are made, grouped by game: what is stored.

    While the match plays, an answered decision (version and latency alone, nearly all of them) is one
    integer in an array, and only the others are rows: hundreds of matches in flight each log hundreds of
    decisions.

    >>> log = BotLog()
    >>> log.add(LoggedDecision(0, 3, 1, 12.34, "ok"))
    >>> log.add(LoggedDecision(0, 7, 1, 1000.0, "timeout", "late"))
    >>> log.add(LoggedDecision(0, 11, 1, 0.04, "ok"))
    >>> log.stored()
    [[0, 1, [[3, 12.3], [7, 1000.0, 'timeout', 'late'], [11, 0.0]]]]
    """

    def __init__(self) -> None:
        # game_no -> (seat, answered decisions as version << 32 | latency in tenths of a ms, other rows)
        self.games: dict[int, tuple[int, array[int], list[Row]]] = {}

    def _game(self, game_no: int, seat: int) -> tuple[int, array[int], list[Row]]:
        game = self.games.get(game_no)
        if game is None:
            game = self.games[game_no] = (seat, array("q"), [])
        return game

    def add(self, entry: LoggedDecision) -> None:
        _seat, answered, others = self._game(entry.game_no, entry.seat)
        row = entry.row()
        if len(row) == 2:
            answered.append(int(row[0]) << 32 | round(row[1] * 10))
        else:
            others.append(row)

    def add_unseen(self, game_no: int, seat: int, move_indices: Sequence[int]) -> None:
        """Log the moves of a polling bot's `seat` (their indices in the game's record) that no decision of
        the log accounts for: ones it made before the arena came to wait for them, at latency 0.

        >>> log = BotLog()
        >>> log.add(LoggedDecision(0, 2, 1, 5.0, "ok"))
        >>> log.add_unseen(0, 1, [2, 6, 9])
        >>> log.stored()
        [[0, 1, [[2, 5.0], [6, 0.0], [9, 0.0]]]]
        """
        _seat, answered, others = self._game(game_no, seat)
        logged = sorted(int(row[0]) for row in self._rows(answered, others))
        for index in move_indices:  # a logged decision asked at version v is the seat's first move at >= v
            if logged and logged[0] <= index:
                logged.pop(0)
            else:
                self.add(LoggedDecision(game_no, index, seat, 0.0, "ok"))

    @staticmethod
    def _rows(answered: array[int], others: list[Row]) -> list[Row]:
        rows: list[Row] = [[packed >> 32, (packed & 0xFFFFFFFF) / 10] for packed in answered]
        return sorted(rows + others, key=lambda row: int(row[0]))

    def stored(self) -> Stored:
        return [[game_no, seat, self._rows(answered, others)]
                for game_no, (seat, answered, others) in sorted(self.games.items())]


def logged(stored: Stored) -> list[LoggedDecision]:
    """The decisions of a stored log, in order."""
    return [LoggedDecision.from_row(int(game_no), int(seat), row) for game_no, seat, rows in stored
            for row in rows]


def compact_json(value: Any) -> str:
    """JSON without spaces: the log is stored for every match."""
    return orjson.dumps(value).decode()


def kept_answer(body: bytes | None, move: Any) -> str | None:
    """The part of a raw answer worth keeping: None for no answer or exactly ``{"move": <the move>}`` (the
    move applied says it all); anything else (extra fields a bot sends to explain itself, a malformed
    reply), cut at ``ANSWER_LIMIT`` bytes.

    >>> kept_answer(b'{"move": "QS"}', "QS") is None, kept_answer(b'{"move":"QS","why":"void"}', "QS")
    (True, '{"move":"QS","why":"void"}')
    >>> len(kept_answer(b"x" * 2000, None))
    512
    """
    if not body:
        return None
    try:
        if move is not None and orjson.loads(body) == {"move": move}:
            return None
    except orjson.JSONDecodeError:
        pass
    return body[:ANSWER_LIMIT].decode("utf-8", "replace")


def expand(stored: Stored, records: Sequence[Mapping[str, Any]], games: Sequence[Mapping[str, Any]],
           spec: Mapping[str, Any], match_id: str) -> list[dict[str, Any]]:
    """The stored rows of one bot as its owner reads them: each decision with the request it was sent (the
    seat's view rebuilt from the game's record at that version), its answer, latency and outcome, and the
    move the game took (its answer, or the fallback after a failure)."""
    decisions = logged(stored)
    wanted: dict[int, dict[tuple[int, int], LoggedDecision]] = {}
    for entry in decisions:
        wanted.setdefault(entry.game_no, {})[(entry.version, entry.seat)] = entry
    out: list[dict[str, Any]] = []
    for game_no, asked in sorted(wanted.items()):
        if game_no >= len(records):
            continue  # the replays expired before the log (never, with the retention as shipped)
        record = records[game_no]
        table = str(games[game_no]["table"]) if game_no < len(games) else f"{match_id}.{game_no}"
        game = engine.start_from_record(record)
        moves = record["moves"]
        pending = dict(asked)
        for index in range(len(moves) + 1):
            for seat in list(game.to_act()) if not game.over else []:
                if (game.version, seat) not in pending:
                    continue
                entry = pending.pop((game.version, seat))
                view = game.view(seat)
                decision = view["decision"]
                played = next((m["move"] for m in moves[index:] if m["seat"] == seat), None)
                out.append({
                    "game_no": game_no, "version": entry.version, "seat": seat,
                    "latency_ms": entry.latency_ms, "outcome": entry.outcome, "detail": entry.detail,
                    "answer": entry.answer if entry.answer is not None else (
                        None if entry.outcome != "ok" else orjson.dumps({"move": played}).decode()),
                    "move": played, "fallback": entry.outcome != "ok",
                    "request": {"protocol": PROTOCOL_VERSION, "game": spec["game"], "table": table,
                                "match": match_id, "seat": seat, "decision": decision,
                                "deadline_ms": spec["deadline_ms"], "view": view,
                                "legal": decision["legal"] if decision else []},
                })
            if index < len(moves):
                game.apply(moves[index]["seat"], moves[index]["move"])
    return out
