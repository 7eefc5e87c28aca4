"""BotClient against real bot servers on 127.0.0.1: deadlines, size cap, redirects, keep-alive, outcomes."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from arena.botclient import BotClient
from arena.policy import Outcome

PLAY = {"kind": "play", "count": 1, "legal": ["2C", "3C"]}


def move_request(deadline_ms: int = 300) -> dict:
    return {"protocol": 1, "game": "spot-hearts", "table": "t", "match": "m", "seat": 0, "decision": PLAY,
            "deadline_ms": deadline_ms, "view": {"hand": ["2C", "3C"]}, "legal": PLAY["legal"]}


def test_good_bot_answers_and_the_connection_is_kept_alive(bot_server) -> None:
    bot = bot_server("good")
    client = BotClient(bot.url, allow_private=True)
    first_socket = None
    for _ in range(20):
        move, result = client.move(move_request(), 1.0)
        assert move == "2C" and result.outcome is Outcome.OK and result.status == 200
        assert result.latency_ms > 0
        first_socket = first_socket or client._conn.sock
        assert client._conn.sock is first_socket  # one TCP connection for every call
    assert len(bot.requests) == 20


def test_info_is_the_health_check(bot_server) -> None:
    assert BotClient(bot_server("good", name="alice").url, allow_private=True).info(1.0).ok
    down = BotClient(bot_server("down_info").url, allow_private=True).info(1.0)
    assert down.outcome is Outcome.HTTP_STATUS and down.status == 503


def test_sleeping_bot_times_out_at_the_deadline(bot_server) -> None:
    client = BotClient(bot_server("sleep", delay_s=10.0).url, allow_private=True)
    start = time.monotonic()
    move, result = client.move(move_request(), 0.3)
    elapsed = time.monotonic() - start
    assert move is None and result.outcome is Outcome.TIMEOUT
    assert 0.29 <= elapsed < 5.0  # cut at the deadline, far before the bot's 10 s (a loaded box is slow)


def test_dribbling_bot_is_cut_off_at_the_deadline_not_per_byte(bot_server) -> None:
    # 0.29 s per byte passes any per-recv timeout of 0.3 s (the move would arrive), but the whole answer needs
    # about 4 s: the bound below is 10 times the deadline and a second short of the answer.
    client = BotClient(bot_server("dribble", delay_s=0.29).url, allow_private=True)
    start = time.monotonic()
    move, result = client.move(move_request(), 0.3)
    elapsed = time.monotonic() - start
    assert move is None and result.outcome is Outcome.TIMEOUT
    assert elapsed < 3.0  # cut before the answer was complete, with slack for a loaded machine


def test_dribbled_headers_are_bounded_too() -> None:
    """A server that trickles the status line and headers one byte at a time is cut off at the deadline."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    stop = threading.Event()

    def trickle() -> None:
        conn, _ = server.accept()
        conn.recv(65536)
        for byte in b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Padding: aaaaaaaaaaaaaaaa\r\n":
            if stop.is_set():
                break
            try:
                conn.send(bytes([byte]))
            except OSError:
                break
            time.sleep(0.1)
        conn.close()

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    client = BotClient(f"http://127.0.0.1:{server.getsockname()[1]}", allow_private=True)
    start = time.monotonic()
    move, result = client.move(move_request(), 0.4)
    elapsed = time.monotonic() - start
    stop.set()
    server.close()
    assert move is None and result.outcome is Outcome.TIMEOUT
    assert elapsed < 5.0  # the trickle of headers alone would take 7 s


def test_ten_megabyte_answer_is_refused_after_at_most_64_kib(bot_server) -> None:
    client = BotClient(bot_server("huge").url, allow_private=True)
    move, result = client.move(move_request(), 2.0)
    assert move is None and result.outcome is Outcome.TOO_LARGE
    assert "Content-Length" in result.detail  # refused on the header, before reading the body


def test_large_body_without_content_length_is_capped() -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    def chunked_flood() -> None:
        conn, _ = server.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        try:
            for _ in range(200):  # 200 chunks of 16 KiB = 3.2 MB if nobody hangs up
                conn.sendall(b"4000\r\n" + b" " * 0x4000 + b"\r\n")
        except OSError:
            pass
        conn.close()

    threading.Thread(target=chunked_flood, daemon=True).start()
    client = BotClient(f"http://127.0.0.1:{server.getsockname()[1]}", allow_private=True)
    move, result = client.move(move_request(), 2.0)
    server.close()
    assert move is None and result.outcome is Outcome.TOO_LARGE


def test_status_500_garbage_and_wrong_shape(bot_server) -> None:
    failing = BotClient(bot_server("status500").url, allow_private=True)
    move, result = failing.move(move_request(), 1.0)
    assert move is None and result.outcome is Outcome.HTTP_STATUS and result.status == 500
    garbage = BotClient(bot_server("garbage").url, allow_private=True)
    move, result = garbage.move(move_request(), 1.0)
    assert move is None and result.outcome is Outcome.BAD_JSON


def test_redirect_is_not_followed(bot_server) -> None:
    target = bot_server("good")
    redirecting = bot_server("redirect", redirect_to=f"{target.url}/move")
    client = BotClient(redirecting.url, allow_private=True)
    move, result = client.move(move_request(), 1.0)
    assert move is None and result.outcome is Outcome.HTTP_STATUS and result.status == 307
    assert target.requests == []


def test_refused_connection_is_an_outcome_not_an_exception() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    move, result = BotClient(f"http://127.0.0.1:{port}", allow_private=True).move(move_request(), 1.0)
    assert move is None and result.outcome is Outcome.CONNECT_ERROR


def test_loopback_bot_is_refused_when_private_urls_are_not_allowed(bot_server) -> None:
    bot = bot_server("good")
    move, result = BotClient(bot.url, allow_private=False).move(move_request(), 1.0)
    assert move is None and result.outcome is Outcome.UNSAFE_ADDRESS
    assert bot.requests == []


def test_stale_keep_alive_connection_is_replaced_transparently(bot_server) -> None:
    bot = bot_server("good")
    client = BotClient(bot.url, allow_private=True)
    assert client.move(move_request(), 1.0)[0] == "2C"
    # The kept-alive connection dies while idle (as when a bot restarts): the next call reconnects once.
    client._conn.sock.shutdown(socket.SHUT_RDWR)
    move, result = client.move(move_request(), 1.0)
    assert move == "2C" and result.ok


def test_fast_bench_bot_speaks_protocol_v1_with_keep_alive_and_parallel_connections() -> None:
    from devstack.fastbot import start_fast_bots

    process, (url,) = start_fast_bots(1)
    try:
        client = BotClient(url, allow_private=True)
        assert client.info(1.0).ok
        for _ in range(5):
            assert client.move(move_request(), 1.0)[0] == "2C"
        four = ["2C", "3C", "4C", "5C"]
        passing = {**move_request(), "decision": {"kind": "pass", "count": 3, "legal": four}, "legal": four}
        assert client.move(passing, 1.0)[0] == ["2C", "3C", "4C"]
        # A second kept-alive connection is served while the first stays open (a child per connection).
        other = BotClient(url, allow_private=True)
        assert other.move(move_request(), 1.0)[0] == "2C"
        assert client.move(move_request(), 1.0)[0] == "2C"
        assert client._conn is not None and other._conn is not None
        assert client._conn.sock.getsockname() != other._conn.sock.getsockname()
    finally:
        process.terminate()


DELAY_MS = 500


@pytest.mark.drill
def test_delayed_bench_bots_in_event_loops_answer_in_order_after_their_delay() -> None:
    from devstack.fastbot import start_fast_bots

    # A delay far above what a loaded machine adds to an answer: an info answered before it is one that did
    # not wait, and a move can only come after it.
    process, (url,) = start_fast_bots(1, delay_ms=DELAY_MS, loops=2)
    try:
        clients = [BotClient(url, allow_private=True) for _ in range(3)]
        assert clients[0].info(5.0).latency_ms < DELAY_MS  # only /move waits
        for _ in range(2):
            for client in clients:  # three kept-alive connections, spread over the two loops
                start = time.monotonic()
                move, result = client.move(move_request(), 5.0)
                assert move == "2C" and result.ok, result
                assert time.monotonic() - start >= DELAY_MS / 1000
        assert len({client._conn.sock.getsockname() for client in clients if client._conn}) == 3
    finally:
        process.terminate()


@contextlib.contextmanager
def busy_interpreter(hold_s: float) -> Iterator[None]:
    """Another thread of this process computes without pause and keeps the interpreter lock `hold_s` at a
    time: every time the calling thread lets go of it (each socket operation does), it gets it back about
    `hold_s` late, as a worker thread does while the process's other matches keep the interpreter busy."""
    old = sys.getswitchinterval()
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            pass

    sys.setswitchinterval(hold_s)
    spinner = threading.Thread(target=spin, daemon=True)
    spinner.start()
    try:
        yield
    finally:
        stop.set()
        spinner.join()
        sys.setswitchinterval(old)


@pytest.fixture
def delayed_bot() -> Iterator[Callable[[float], str]]:
    """Factory: delayed_bot(ms): the URL of a bench bot (a process of its own) answering /move after `ms`."""
    from devstack.fastbot import start_fast_bots

    started = []

    def start(delay_ms: float) -> str:
        process, (url,) = start_fast_bots(1, delay_ms)
        started.append(process)
        return url

    yield start
    for process in started:
        process.terminate()


@pytest.mark.drill
def test_a_compliant_bot_never_times_out_because_the_worker_came_late_to_its_socket(delayed_bot) -> None:
    # The bot answers in 30 ms of a 600 ms deadline; this thread gets the interpreter back 1 s late after
    # every socket operation, so it reads each answer long after the deadline.
    client = BotClient(delayed_bot(30), allow_private=True)
    with busy_interpreter(1.0):
        for _ in range(2):  # the first call connects, the second reuses the kept-alive connection
            start = time.monotonic()
            move, result = client.move(move_request(), 0.6)
            assert result.outcome is Outcome.OK and move == "2C", result
            assert time.monotonic() - start > 0.6  # the worker really was late: past the bot's deadline


@pytest.mark.drill
def test_a_bot_slower_than_its_deadline_still_times_out_while_the_worker_is_late(delayed_bot) -> None:
    client = BotClient(delayed_bot(10_000), allow_private=True)
    with busy_interpreter(0.5):
        start = time.monotonic()
        move, result = client.move(move_request(), 0.3)
    assert move is None and result.outcome is Outcome.TIMEOUT, result
    # Judged at the deadline (plus the worker's lateness at each step), not when the bot answers at last.
    assert time.monotonic() - start < 6.0
