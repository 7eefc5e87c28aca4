"""`call_per_host`: a match's wake-up calls and game notifications go to every host at once, one host's calls
one after another (bots at one URL share its connection), results in order, a failure raised to the caller."""

from __future__ import annotations

import threading

import pytest

from arena.match import call_per_host


def test_calls_to_different_hosts_run_at_once() -> None:
    # Each call waits for the others at a barrier: run one after another, the first would wait in vain.
    barrier = threading.Barrier(3, timeout=10)

    def call(item: str) -> str:
        barrier.wait()
        return item.upper()

    assert call_per_host(["a", "b", "c"], lambda item: item, call) == ["A", "B", "C"]


def test_calls_to_one_host_never_overlap_and_keep_their_order() -> None:
    busy: dict[str, int] = {}
    seen: list[str] = []
    lock = threading.Lock()

    def call(item: tuple[str, int]) -> int:
        host, n = item
        with lock:
            busy[host] = busy.get(host, 0) + 1
            assert busy[host] == 1, f"two calls at once on {host}"
            seen.append(f"{host}{n}")
        threading.Event().wait(0.01)  # let another thread run meanwhile, if any could
        with lock:
            busy[host] -= 1
        return n

    items = [("x", 1), ("y", 1), ("x", 2), ("y", 2), ("x", 3)]
    assert call_per_host(items, lambda item: item[0], call) == [1, 1, 2, 2, 3]
    assert [s for s in seen if s[0] == "x"] == ["x1", "x2", "x3"]
    assert [s for s in seen if s[0] == "y"] == ["y1", "y2"]


def test_items_without_a_host_are_called_in_the_callers_thread() -> None:
    caller = threading.get_ident()
    threads = call_per_host([1, 2], lambda _item: None, lambda _item: threading.get_ident())
    assert threads == [caller, caller]


def test_a_failing_call_is_raised_to_the_caller_after_the_others_ran() -> None:
    done: list[str] = []

    def call(item: str) -> str:
        if item == "bad":
            raise RuntimeError("bad host")
        done.append(item)
        return item

    with pytest.raises(RuntimeError, match="bad host"):
        call_per_host(["good", "bad", "other"], lambda item: item, call)
    assert sorted(done) == ["good", "other"]
