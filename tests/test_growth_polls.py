"""The long-poll and watcher growth curves at tiny sizes: a real Redis and gunicorn per size, the load
generator in a process of its own; every parked poll must have been woken by a move, every watcher updated
after every move."""

from __future__ import annotations

import pytest

from tools.growth import longpoll, watchers


@pytest.mark.drill
def test_every_parked_long_poll_is_woken_and_measured() -> None:
    curves = longpoll.measure(quick=True)
    assert [curve.key for curve in curves] == ["longpoll.rss_per_poll", "longpoll.wake_p50",
                                               "longpoll.wake_p99", "longpoll.redis_commands_per_move",
                                               "longpoll.idle_cpu"]
    assert all(curve.sizes == longpoll.QUICK_SIZES for curve in curves)
    extra = curves[0].extra
    assert extra["woken"] == extra["parked"] == list(longpoll.QUICK_SIZES)
    assert extra["errors"] == [0, 0]
    for run in extra["runs"]:
        assert run["sample_woken"] == run["sample_waiters"] > 0
        assert 0 < run["wake_p50_ms"] <= run["wake_p99_ms"] < 5000
        assert run["redis_commands_per_move"] > 0 and run["rss_per_poll_kib"] > 0
    as_json = curves[2].as_json()
    assert as_json["limit"] == 250.0 and isinstance(as_json["exponent"], float)


@pytest.mark.drill
def test_every_watcher_sees_every_move() -> None:
    curves = watchers.measure(quick=True)
    assert [curve.key for curve in curves] == ["watchers.update_p50", "watchers.update_p99",
                                               "watchers.last_update_p99", "watchers.redis_commands_per_move"]
    assert all(curve.sizes == watchers.QUICK_SIZES for curve in curves)
    extra = curves[0].extra
    assert extra["updates"] == extra["expected_updates"] == [size * watchers.QUICK_MOVES
                                                            for size in watchers.QUICK_SIZES]
    assert extra["errors"] == [0, 0]
    for run in extra["runs"]:
        assert 0 < run["update_p50_ms"] <= run["update_p99_ms"] <= run["last_p99_ms"] < 5000
