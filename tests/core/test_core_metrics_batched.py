"""A match's metrics kept in the match and written once a second: a flushed BatchedHistogram leaves its series
exactly as observing each value at once would (buckets, count, sum), and nothing before the flush."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry, Histogram

from core.metrics import BOT_BUCKETS, BatchedHistogram

# Below, on and above bounds, zero and past the last bound.
VALUES = (0.0, 0.004, 0.005, 0.0051, 0.1, 0.25, 0.2500001, 1.0, 2.9, 3.0, 3.5, 120.0)


def samples(registry: CollectorRegistry) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in registry.collect() for s in family.samples if not s.name.endswith("_created")}


def histogram(registry: CollectorRegistry) -> Histogram:
    return Histogram("batched_seconds", "d", ["ladder"], registry=registry, buckets=BOT_BUCKETS)


def test_a_flushed_batch_equals_observing_each_value_at_once() -> None:
    direct, batched = CollectorRegistry(), CollectorRegistry()
    series = histogram(direct).labels("l")
    batch = BatchedHistogram(histogram(batched).labels("l"))
    empty = samples(batched)
    for value in VALUES:
        series.observe(value)
        batch.observe(value)
    assert samples(batched) == empty  # nothing written before the flush
    batch.flush()
    assert samples(batched) == pytest.approx(samples(direct))  # the sum added up in another order
    for value in VALUES[:5]:  # a second round adds to the first
        series.observe(value)
        batch.observe(value)
    batch.flush()
    batch.flush()  # nothing pending: nothing added
    assert samples(batched) == pytest.approx(samples(direct))  # the sum added up in another order
    assert samples(direct)[("batched_seconds_count", (("ladder", "l"),))] == pytest.approx(len(VALUES) + 5)
