"""Running the stores' Lua scripts: EVALSHA (loading a script Redis does not know and running it again), and a
write answered once a replica has it (``WAIT``); both script lanes, threaded and gevent's, use them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import redis
from hiredis import pack_command

from core.metrics import REDIS_WRITES_UNREPLICATED


def evalsha(send: Callable[[bytes], Any], script: Any, keys: list[str], args: list[Any]) -> Any:
    """Run a registered ``redis.commands.core.Script`` with ``send`` (one packed command in, its reply out,
    a Redis error raised): EVALSHA, and a script Redis does not know (restarted, flushed) loaded and run
    again.

    Packed by hiredis straight: the connection's packer first checks every argument for bytearray and
    memoryview, which our str and numbers never are.
    """
    command: Any = ("EVALSHA", script.sha, len(keys), *keys, *args)  # hiredis types it as 1-tuples
    packed = pack_command(command)
    try:
        return send(packed)
    except redis.exceptions.NoScriptError:
        load: Any = ("SCRIPT", "LOAD", script.script)
        send(pack_command(load))
        return send(packed)


def replicated(reply: Any, execute: Callable[[tuple[Any, ...]], Any], wait_ms: int,
               write: str = "move") -> Any:
    """`reply`, once one replica has the writes made so far on this connection (``WAIT 1 wait_ms``, which
    Redis answers when a replica acknowledged them or after `wait_ms` without one).

    Redis replicates asynchronously: a primary that dies may take its last writes with it, and a failover
    then promotes a replica without them. An answer given only after a replica has the write is not lost
    that way. ``WAIT`` waits for the writes of its own connection, so it must follow the write on the same
    one. A primary with no replica at all (after a failover, until one is attached), or a replica more than
    `wait_ms` behind, answers after `wait_ms` without an acknowledgement: the reply is still given (the write
    stands on the primary), and ``trickarena_redis_writes_unreplicated_total`` counts it by `write` (one of
    ``core.metrics.REDIS_WRITES``: the script lanes commit moves, `run_and_wait` applies ratings).
    """
    count_unreplicated(execute(("WAIT", 1, wait_ms)), write)
    return reply


def count_unreplicated(replicas: Any, write: str) -> None:
    """Count the `write` in ``trickarena_redis_writes_unreplicated_total`` if its ``WAIT 1`` reply (the number
    of replicas that acknowledged it) is 0."""
    if int(replicas) < 1:
        REDIS_WRITES_UNREPLICATED.labels(write).inc()


def run_and_wait(client: redis.Redis, script: Any, keys: list[str], args: list[Any], wait_ms: int,
                 write: str = "rating") -> Any:
    """`replicated` through the client: the script and WAIT in one pipeline, so on one connection."""
    pipe = client.pipeline(transaction=False)
    script(keys=keys, args=args, client=pipe)
    pipe.execute_command("WAIT", 1, wait_ms)  # type: ignore[no-untyped-call]
    reply, replicas = pipe.execute()
    count_unreplicated(replicas, write)
    return reply
