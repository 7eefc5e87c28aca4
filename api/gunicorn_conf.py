"""gunicorn settings for the game service (`web:` in the Procfile, and the benchmark).

Worker class: gevent by default. Measured (docs/api.md): with 300 long-polls parked, gevent keeps serving
other requests at full speed from 2 workers, while gthread needs a thread per waiting poll. Override with
TA_WORKER_CLASS=gthread (TA_THREADS threads per worker) to compare.
"""

from __future__ import annotations

import os
import warnings

from gunicorn.glogging import Logger

bind = os.environ.get("TA_BIND", "127.0.0.1:8000")
worker_class = os.environ.get("TA_WORKER_CLASS", "gevent")
workers = int(os.environ.get("TA_WORKERS", "2"))
threads = int(os.environ.get("TA_THREADS", "256"))  # gthread only
# gevent only. Each parked long-poll holds one connection (one open file) and about 30 KiB: 10,000 parked on
# 2 workers measured 29 KiB each, woken within 23 ms p99 (`python -m tools.growth.longpoll`). The kernel
# spreads connections over the workers' sockets unevenly, so each worker has room for well over its share;
# the service's open-files limit (LimitNOFILE, deploy/systemd) must exceed workers x worker_connections.
worker_connections = int(os.environ.get("TA_WORKER_CONNECTIONS", "8000"))
# Long-polls last up to 30 s: the worker timeout must exceed that (gthread/gevent heartbeat independently).
timeout = 60
# Below honcho's 5 s before SIGKILL on Ctrl-C: a parked long-poll is cut (its client polls again), not killed.
graceful_timeout = int(os.environ.get("TA_GRACEFUL_TIMEOUT", "3"))
keepalive = 30
# Each worker listens on a socket of its own (SO_REUSEPORT); the kernel spreads new connections over them.
# On one shared socket, whichever worker was idle when a burst of connections came accepted them all, and
# keep-alive clients stay where they landed: measured with 16 bench connections on 2 workers, one worker got
# every connection while the other idled (moves/s halved, p99 doubled). TA_REUSE_PORT=0: one shared socket.
reuse_port = os.environ.get("TA_REUSE_PORT", "1") != "0"
# What gunicorn refuses before the app sees a request: a request line (method, path, query string) over 8190
# bytes (414; gunicorn's most), a header field over 8190 bytes or more than 100 of them (431). nginx in front
# (deploy/nginx/trick-arena.conf, large_client_header_buffers 4 8k) refuses at about the same sizes. Both
# answer in application/problem+json like every API error: gunicorn through `write_problem` below.
limit_request_line = 8190
limit_request_field_size = 8190
limit_request_fields = 100
accesslog = os.environ.get("TA_ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("TA_LOG_LEVEL", "info")


def on_starting(server: object) -> None:
    """Put the compiled engine in place for the workers, and refuse to start on an address something already
    listens on.

    The workers import the app after they fork from this process: they inherit the build on the engine's
    path (engine/compiled.py), so they run the compiled rules when a build matches the source. With
    SO_REUSEPORT a second server on the same port would not fail to bind: it would quietly take half of
    the connections. A master killed outright (SIGKILL) never ran child_exit for its workers: their live
    gauges in the metrics directory are dropped here (core/metrics.py).
    """
    from engine import compiled

    compiled.activate()
    check_settings()  # after: the settings import the rule modules, which must load from the build
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from core import metrics

        metrics.forget_dead_processes()  # a previous master killed outright left its workers' live gauges
    if reuse_port:
        for address in server.cfg.address:  # type: ignore[attr-defined]
            refuse_if_taken(address)


class AddressLogger(Logger):
    """gunicorn's logger, with the address in its "Listening at:" line: each worker binds a socket of its own
    (SO_REUSEPORT), so the master holds none and gunicorn's own line would name nothing."""

    def info(self, msg: str, *args: object, **kwargs: object) -> None:
        if msg.startswith("Listening at:") and args and not args[0]:
            args = (", ".join(f"http://{address}" for address in self.cfg.bind), *args[1:])
        super().info(msg, *args, **kwargs)


logger_class = AddressLogger

if worker_class == "gevent":
    # Each gevent worker patches the standard library when it starts, after gunicorn's own config module
    # imported `ssl` in the master; gevent then warns that objects made before the patch stay unpatched.
    # The master makes no SSL object (it serves plain HTTP behind the proxy), so there are none.
    warnings.filterwarnings("ignore", message="Monkey-patching ssl after ssl has already been imported")


def check_settings() -> None:
    """Refuse to start, in one line, on settings the app would refuse in every worker (each with a
    traceback): a TA_TRUSTED_PROXIES entry that is no address or CIDR block."""
    import sys

    from core.clientaddr import BadTrustedProxy, parse_networks
    from core.settings import Settings

    try:
        parse_networks(Settings.from_env().trusted_proxies)
    except BadTrustedProxy as error:
        sys.exit(f"gunicorn: {error}")


def refuse_if_taken(address: object) -> None:
    import socket
    import sys

    if not isinstance(address, tuple):
        return  # a unix socket path: gunicorn's own bind reports it
    family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a closed server's TIME_WAITs are fine
        try:
            probe.bind(address)
        except OSError as error:
            sys.exit(f"gunicorn: cannot listen on {address[0]}:{address[1]}: {error.strerror}")


if worker_class == "gevent":

    def post_request(worker: object, req: object, environ: object, resp: object) -> None:
        """Yield to the gevent hub after every request.

        Without it a saturated worker kept serving the connections whose next request was already there and
        left others waiting: measured on one worker with 16 keep-alive clients, hello p99 fell from 234 ms to
        15 ms (and throughput rose 1600 -> 2700 req/s) with this one line.
        """
        import gevent

        gevent.sleep(0)


def child_exit(server: object, worker: object) -> None:
    """A worker that ended (stopped, recycled or killed) takes its live gauges (the long-polls it held) out
    of the machine's metrics; its counters stay, as counters must (docs/metrics.md). Only with
    PROMETHEUS_MULTIPROC_DIR set: without it nothing was written."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined]


LIMIT_DETAILS = {
    414: f"the request line (method, path and query string) is over {limit_request_line} bytes",
    431: f"a request header is over {limit_request_field_size} bytes, or there are more than "
         f"{limit_request_fields} headers",
}


def write_problem(sock: object, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's own error answer (a request it cannot parse or will not take, before the app sees it), in
    application/problem+json as the app answers every error, instead of gunicorn's HTML page.

    Installed in each worker over ``gunicorn.util.write_error``, the one function gunicorn's workers write
    those answers with (``Worker.handle_error``)."""
    import json

    from gunicorn import util

    detail = LIMIT_DETAILS.get(status_int) or mesg or "the server failed to handle this request"
    problem = {"type": "about:blank", "title": reason, "status": status_int, "detail": detail}
    body = json.dumps(problem).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
            f"Content-Type: application/problem+json\r\nContent-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin-1") + body)


def post_worker_init(worker: object) -> None:
    """Move everything the loaded app holds (modules, schemas, routes, the OpenAPI document) out of the
    garbage collector's reach: a full collection then scans only what requests allocate, not the whole app,
    which shortens the pauses that show in the slowest requests (p99). And answer what gunicorn refuses
    itself in application/problem+json (`write_problem`)."""
    import gc

    from gunicorn import util

    util.write_error = write_problem
    gc.collect()
    gc.freeze()
