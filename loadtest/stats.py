"""Latency and outcome bookkeeping shared by the load scripts (thread-safe, in memory, bounded by the run)."""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from typing import Any


def percentile(sorted_values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an already sorted list (0 for an empty one)."""
    if not sorted_values:
        return 0.0
    rank = min(len(sorted_values) - 1, max(0, round(fraction * len(sorted_values) + 0.5) - 1))
    return sorted_values[rank]


class Recorder:
    """Per endpoint: every latency (seconds) and a status-code histogram."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.statuses: dict[str, Counter[str]] = defaultdict(Counter)

    def add(self, endpoint: str, status: int | str, seconds: float) -> None:
        with self._lock:
            self.latencies[endpoint].append(seconds)
            self.statuses[endpoint][str(status)] += 1

    def count(self, predicate: Any) -> int:
        with self._lock:
            return sum(
                n for counter in self.statuses.values() for status, n in counter.items() if predicate(status)
            )

    def summary(self, duration_s: float) -> dict[str, Any]:
        out: dict[str, Any] = {}
        with self._lock:
            for endpoint in sorted(self.latencies):
                values = sorted(self.latencies[endpoint])
                out[endpoint] = {
                    "requests": len(values),
                    "per_s": round(len(values) / duration_s, 1),
                    "p50_ms": round(percentile(values, 0.50) * 1000, 2),
                    "p90_ms": round(percentile(values, 0.90) * 1000, 2),
                    "p99_ms": round(percentile(values, 0.99) * 1000, 2),
                    "max_ms": round(values[-1] * 1000, 2) if values else 0.0,
                    "statuses": dict(sorted(self.statuses[endpoint].items())),
                }
        return out

    def five_xx(self) -> int:
        return self.count(lambda status: status.startswith("5"))

    def network_errors(self) -> int:
        return self.count(lambda status: not status[:1].isdigit())
