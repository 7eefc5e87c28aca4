"""Bots' decision latencies from the public call log of their matches: per move of a replay, and a bot's
percentiles over its latest matches."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TIMEOUT = "timeout"


def move_calls(calls: Mapping[str, Any], bot_id: str) -> list[tuple[str, float]]:
    """A bot's /move calls in a match, in order: (outcome, latency ms). ``calls`` is the match's call log
    (``result.calls`` of its document: each bot's ``log`` of (kind, outcome, latency))."""
    log = (calls.get(bot_id) or {}).get("log") or []
    return [(str(outcome), float(latency)) for kind, outcome, latency in log if kind == "move"]


def move_latencies(records: Sequence[Mapping[str, Any]], seatings: Sequence[Sequence[str]],
                   calls: Mapping[str, Any]) -> list[dict[int, tuple[float, str]]]:
    """Per game, the latency and outcome of each move (by its index in the record) that a bot was asked for
    through a /move call. A bot's calls are its decisions in order, game after game; a bot that forfeited
    makes no more calls, and its later moves (the arena's) have none.

    >>> record = {"moves": [{"seat": 0, "move": "2C"}, {"seat": 1, "move": "3C"}, {"seat": 0, "move": "4C"}]}
    >>> calls = {"b": {"log": [["start", "ok", 1.0], ["move", "ok", 12.5], ["move", "timeout", 1000.0]]}}
    >>> move_latencies([record], [["b", "house:random"]], calls)
    [{0: (12.5, 'ok'), 2: (1000.0, 'timeout')}]
    """
    queues = {bot_id: move_calls(calls, bot_id) for bot_id in calls}
    out: list[dict[int, tuple[float, str]]] = []
    for record, seating in zip(records, seatings, strict=False):
        per_move: dict[int, tuple[float, str]] = {}
        for index, move in enumerate(record.get("moves", [])):
            seat = move["seat"]
            queue = queues.get(seating[seat]) if seat < len(seating) else None
            if queue:
                outcome, latency = queue.pop(0)
                per_move[index] = (latency, outcome)
        out.append(per_move)
    return out


@dataclass(frozen=True)
class LatencyProfile:
    """A bot's decision latencies over some matches: percentiles (ms) and the timeouts among them."""

    matches: int
    decisions: int
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    timeouts: int


def percentile(ordered: Sequence[float], share: float) -> float:
    """Nearest-rank percentile of sorted values.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.5), percentile([1.0, 2.0, 3.0, 4.0], 0.95)
    (2.0, 4.0)
    """
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def latency_profile(docs: Sequence[Mapping[str, Any] | None], bot_id: str) -> LatencyProfile:
    """The bot's /move latencies and timeouts over the finished matches of `docs` (None: a document gone).

    >>> doc = {"result": {"calls": {"b": {"log": [["move", "ok", 10.0], ["move", "timeout", 1000.0]]}}}}
    >>> latency_profile([doc, None], "b")
    LatencyProfile(matches=1, decisions=2, p50_ms=10.0, p95_ms=1000.0, p99_ms=1000.0, timeouts=1)
    """
    calls = [move_calls((doc.get("result") or {}).get("calls") or {}, bot_id) for doc in docs if doc]
    found = [c for c in calls if c]
    latencies = sorted(latency for match in found for _, latency in match)
    timeouts = sum(1 for match in found for outcome, _ in match if outcome == TIMEOUT)
    if not latencies:
        return LatencyProfile(len(found), 0, None, None, None, 0)
    return LatencyProfile(len(found), len(latencies), percentile(latencies, 0.5), percentile(latencies, 0.95),
                          percentile(latencies, 0.99), timeouts)
