"""Scenarios for core.redis.pipelined.PipelinedLane, run in a process of their own that gevent has
monkey-patched
(as a gunicorn gevent worker is): `python -m tests.core.gevent_lane_scenarios NAME REDIS_URL PREFIX` prints
what the scenario observed as JSON; tests/core/test_core_pipelined_lane.py makes the assertions.
"""

from gevent import monkey

monkey.patch_all()

import json  # noqa: E402 - after the patching, as in a gevent worker
import secrets  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import gevent  # noqa: E402
import redis  # noqa: E402

from core.redis.connections import script_lane  # noqa: E402
from core.redis.pipelined import PipelinedLane  # noqa: E402

SCENARIOS: dict[str, Callable[[str, str], dict[str, Any]]] = {}


def scenario(function: Callable[[str, str], dict[str, Any]]) -> Callable[[str, str], dict[str, Any]]:
    SCENARIOS[function.__name__] = function
    return function


def lane_on(url: str, **options: Any) -> PipelinedLane:
    lane = script_lane(redis.Redis.from_url(url, decode_responses=True, **options))
    assert isinstance(lane, PipelinedLane), type(lane)
    return lane


@scenario
def lane_kind(url: str, prefix: str) -> dict[str, Any]:
    return {"resp2": type(script_lane(redis.Redis.from_url(url, decode_responses=True))).__name__,
            "resp3": type(script_lane(redis.Redis.from_url(url, decode_responses=True, protocol=3))).__name__}


@scenario
def many_greenlets(url: str, prefix: str) -> dict[str, Any]:
    """50 greenlets, each 150 calls: its own script arguments, a plain command, a command Redis refuses."""
    client = redis.Redis.from_url(url, decode_responses=True)
    client.set(f"{prefix}shared", "s")
    client.set(f"{prefix}string", "not a hash")
    script = client.register_script(
        f"-- {secrets.token_hex(8)}\nreturn {{KEYS[1], ARGV[1], redis.call('INCR', KEYS[2])}}")
    lane = lane_on(url)
    wrong: list[str] = []

    def caller(index: int) -> None:
        for step in range(150):
            if step % 3 == 0:
                reply = lane.run(script, [f"{prefix}k{index}", f"{prefix}count"], [step])
                if reply[:2] != [f"{prefix}k{index}", str(step)]:
                    wrong.append(f"script {index}/{step}: {reply}")
            elif step % 3 == 1:
                if (reply := lane.execute("GET", f"{prefix}shared")) != "s":
                    wrong.append(f"get {index}/{step}: {reply}")
            else:
                try:
                    reply = lane.execute("HGET", f"{prefix}string", "field")
                    wrong.append(f"refused {index}/{step} answered {reply}")
                except redis.ResponseError as error:
                    if "WRONGTYPE" not in str(error):
                        wrong.append(f"refused {index}/{step}: {error}")

    gevent.joinall([gevent.spawn(caller, index) for index in range(50)], raise_error=True)
    commands, writes = lane.counts
    return {"wrong": wrong, "count": client.get(f"{prefix}count"), "commands": commands, "writes": writes,
            "links_opened": lane.links_opened}


@scenario
def unknown_script(url: str, prefix: str) -> dict[str, Any]:
    """A script no one loaded, first run by 20 greenlets in the same turn."""
    client = redis.Redis.from_url(url, decode_responses=True)
    script = client.register_script(f"-- {secrets.token_hex(8)}\nreturn ARGV[1]")
    known_before = client.script_exists(script.sha)[0]
    lane = lane_on(url)
    jobs = [gevent.spawn(lane.run, script, [], [f"g{index}"]) for index in range(20)]
    gevent.joinall(jobs, raise_error=True)
    return {"known_before": known_before, "known_after": client.script_exists(script.sha)[0],
            "replies": [job.value for job in jobs]}


@scenario
def killed_while_idle(url: str, prefix: str) -> dict[str, Any]:
    """The lane's connection killed by Redis while no call is in flight (what a restart does)."""
    return killed_between_calls(url, prefix, reader_noticed=True)


@scenario
def killed_before_the_reader_noticed(url: str, prefix: str) -> dict[str, Any]:
    """Killed, and a call written before the reader saw the connection close: made once more."""
    return killed_between_calls(url, prefix, reader_noticed=False)


def killed_between_calls(url: str, prefix: str, reader_noticed: bool) -> dict[str, Any]:
    client = redis.Redis.from_url(url, decode_responses=True)
    counter = f"{prefix}calls"
    script = client.register_script("return redis.call('INCR', KEYS[1])")
    lane = lane_on(url)
    first = lane.run(script, [counter], [])
    lane_id = lane.execute("CLIENT", "ID")
    if reader_noticed:
        client.client_kill_filter(_id=lane_id)
        gevent.sleep(0.1)
    else:
        kill_without_yielding(url, lane_id)  # the lane's reader has not run since: the lane still trusts it
    second = lane.run(script, [counter], [])
    return {"first": first, "second": second, "stored": client.get(counter),
            "links_opened": lane.links_opened, "new_id": lane.execute("CLIENT", "ID") != lane_id}


def kill_without_yielding(url: str, client_id: int) -> None:
    """CLIENT KILL on an unpatched (blocking) socket, so that no other greenlet runs meanwhile."""
    blocking_socket = monkey.get_original("socket", "socket")
    address = redis.Redis.from_url(url).connection_pool.connection_kwargs
    with blocking_socket() as sock:
        sock.connect((address["host"], address["port"]))
        sock.sendall(f"CLIENT KILL ID {client_id}\r\n".encode())
        assert sock.recv(100) == b":1\r\n"


def busy_script(client: redis.Redis, microseconds: int) -> Any:
    """A script that keeps Redis busy for `microseconds` (under a second) and returns 'late'; loaded, so
    the lane's first EVALSHA of it runs it."""
    script = client.register_script(
        f"local stop = redis.call('TIME')[2] + {microseconds} "
        "while (redis.call('TIME')[2] - stop) % 1000000 > 500000 do end return 'late'")
    client.script_load(script.script)
    return script


def stuck_script(client: redis.Redis, seconds: int) -> Any:
    """A script that keeps Redis busy `seconds` seconds (until the test kills it, in practice); loaded."""
    script = client.register_script(
        f"local stop = tonumber(redis.call('TIME')[1]) + {seconds} "
        "while tonumber(redis.call('TIME')[1]) < stop do end return 'late'")
    client.script_load(script.script)
    return script


@scenario
def redis_gone_mid_flight(url: str, prefix: str) -> dict[str, Any]:
    """`url` is a Redis the test kills while three calls are in flight (behind a slow script), and starts
    again once they have failed."""
    client = redis.Redis.from_url(url, decode_responses=True)
    # Longer than the test can take to kill Redis however loaded the machine: the calls behind it are still
    # in flight then, never answered first (a script that ends by itself in 0.3 s raced the kill).
    slow = stuck_script(client, 60)
    lane = lane_on(url)
    lane.execute("PING")
    outcomes: list[str] = []

    def caller(call: Callable[[], Any]) -> None:
        try:
            outcomes.append(f"answered {call()}")
        except redis.ConnectionError:
            outcomes.append("ConnectionError")

    jobs = [gevent.spawn(caller, lambda: lane.run(slow, [], [])),
            gevent.spawn(caller, lambda: lane.execute("GET", f"{prefix}k")),
            gevent.spawn(caller, lambda: lane.execute("PING"))]
    gevent.sleep(0.1)  # each greenlet runs until it waits on its reply: all three have written their calls
    print("in flight", flush=True)  # the test kills Redis now
    gevent.joinall(jobs, timeout=30)
    print(json.dumps(sorted(outcomes)), flush=True)  # the test starts Redis again on the same port
    assert sys.stdin.readline().strip() == "restarted"
    return {"after": lane.execute("PING"), "links_opened": lane.links_opened}


@scenario
def writer_interrupted(url: str, prefix: str) -> dict[str, Any]:
    """The greenlet that was to write its turn's commands is killed before it writes: the others' go out."""
    lane = lane_on(url)
    lane.execute("SET", f"{prefix}k", "v")
    first = gevent.spawn(lane.execute, "GET", f"{prefix}k")  # writes this turn's commands, after a yield
    second = gevent.spawn(lane.execute, "GET", f"{prefix}k")  # queued behind it in the same turn
    gevent.sleep(0)  # both have queued their command; the first yields before writing
    first.kill(block=False)
    gevent.joinall([first, second], timeout=5)
    return {"first_killed": isinstance(first.value, gevent.GreenletExit), "second": second.value,
            "links_opened": lane.links_opened, "after": lane.execute("GET", f"{prefix}k")}


@scenario
def timed_out(url: str, prefix: str) -> dict[str, Any]:
    """A reply later than the client's socket_timeout: the caller gets TimeoutError, and the late reply is
    not taken for a later call's."""
    client = redis.Redis.from_url(url, decode_responses=True)
    client.set(f"{prefix}k", "1")
    slow = busy_script(client, 200000)
    lane = lane_on(url, socket_timeout=0.05)
    lane.execute("PING")
    try:
        outcome = f"answered {lane.run(slow, [], [])}"
    except redis.TimeoutError:
        outcome = "TimeoutError"
    gevent.sleep(0.3)  # the script ends; its reply reaches a socket that is closed now
    return {"outcome": outcome, "next": lane.execute("GET", f"{prefix}k"), "links_opened": lane.links_opened}


@scenario
def caller_given_up(url: str, prefix: str) -> dict[str, Any]:
    """A caller's own timeout (not the client's) ends its wait behind a slow script; the calls after it
    still get their own replies on the same connection."""
    client = redis.Redis.from_url(url, decode_responses=True)
    client.set(f"{prefix}k", "1")
    slow = busy_script(client, 200000)
    lane = lane_on(url)
    lane.execute("PING")
    try:
        with gevent.Timeout(0.05):
            outcome = f"answered {lane.run(slow, [], [])}"
    except gevent.Timeout:
        outcome = "its own Timeout"
    except redis.TimeoutError:
        outcome = "redis.TimeoutError"
    after = [lane.execute("GET", f"{prefix}k"), lane.execute("PING")]
    return {"outcome": outcome, "after": after, "links_opened": lane.links_opened}


@scenario
def large_reply(url: str, prefix: str) -> dict[str, Any]:
    """A reply much larger than one socket read, between two small ones of other greenlets."""
    client = redis.Redis.from_url(url, decode_responses=True)
    big = secrets.token_hex(300_000)
    client.hset(f"{prefix}h", mapping={"a": big, "b": "x"})
    lane = lane_on(url)
    jobs = [gevent.spawn(lane.execute, "HMGET", f"{prefix}h", "b"),
            gevent.spawn(lane.execute, "HMGET", f"{prefix}h", "a", "b", "c"),
            gevent.spawn(lane.execute, "HMGET", f"{prefix}h", "b")]
    gevent.joinall(jobs, raise_error=True)
    return {"small": [jobs[0].value, jobs[2].value], "big_whole": jobs[1].value == [big, "x", None]}


@scenario
def refused_from_the_start(url: str, prefix: str) -> dict[str, Any]:
    """`url` names a port nothing listens on."""
    lane = lane_on(url)
    outcomes = []
    for _ in range(2):
        try:
            lane.execute("PING")
            outcomes.append("answered")
        except redis.ConnectionError:
            outcomes.append("ConnectionError")
    return {"outcomes": outcomes}


@scenario
def sentinel_failover(sentinels: str, prefix: str) -> dict[str, Any]:
    """`sentinels` ("host:port,..."): a move through the table store's pipelined lane on the primary, then,
    told on stdin that the primary was killed and the replica (which knows no script) promoted, another."""
    import time

    from core.redis.connections import redis_client
    from core.tables.record import SeatKind
    from core.tables.store import SeatSpec, TableStore

    client = redis_client("redis://127.0.0.1/0", sentinels.split(","), "trick-arena", decode_responses=True)
    store = TableStore(client, prefix, wait_ms=500)

    def play() -> int:
        record = store.load_table(table.table_id)
        seat = record.to_act[0]
        held = store.seat_view(table.table_id, seat)
        decision = held.view["decision"]
        move = decision["legal"][: decision["count"]] if decision["kind"] == "pass" else decision["legal"][0]
        store.apply_move(table.table_id, seat, move, expected_version=held.version)
        return store.load_table(table.table_id).version

    table = store.create_table("spot-hearts", 4, {"target": 1}, [SeatSpec(SeatKind.HOUSE, "random")] * 4)
    before = play()
    print(json.dumps({"lane": type(store._lane).__name__, "version": before, "sha": store._commit.sha}),
          flush=True)
    assert sys.stdin.readline().strip() == "failed over"
    deadline = time.monotonic() + 20
    while True:
        try:
            after = play()
            break
        except redis.ConnectionError:  # the new primary may still be taking over
            if time.monotonic() > deadline:
                raise
            gevent.sleep(0.2)
    return {"after": after, "links_opened": store._lane.links_opened}


if __name__ == "__main__":
    name, redis_url, key_prefix = sys.argv[1:4]
    print(json.dumps(SCENARIOS[name](redis_url, key_prefix)), flush=True)
