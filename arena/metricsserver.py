"""``python -m arena metrics``: this machine's metrics on an address of their own (``TA_METRICS_BIND``),
added up at each scrape from every process's samples, for the operator's token as the API's ``/metrics`` is.

Design: docs/metrics.md#one-directory-per-machine
"""

from __future__ import annotations

import json
import socket
import socketserver
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from core import metrics
from core.redis.connections import settings_client
from core.settings import Settings
from core.tokens import bearer_token, operator_token_matches

StartResponse = Callable[..., Any]


def problem(status: int, slug: str, title: str, detail: str,
            headers: Iterable[tuple[str, str]] = ()) -> tuple[str, list[tuple[str, str]], bytes]:
    """A problem+json answer, shaped as the API's (api/problems.py)."""
    body = json.dumps({"type": f"/problems/{slug}", "title": title, "status": status, "detail": detail})
    return (f"{status} {title}", [("Content-Type", "application/problem+json"), *headers], body.encode())


def metrics_app(admin_token: str | None, collectors: Iterable[Any]) -> Callable[..., Iterable[bytes]]:
    """The WSGI app: ``GET /metrics`` for the operator, a problem for anything else."""
    extra = list(collectors)

    def app(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != "/metrics":
            status, headers, body = problem(404, "not-found", "Not Found", "only /metrics is served here")
        elif environ.get("REQUEST_METHOD") not in ("GET", "HEAD"):
            status, headers, body = problem(405, "method-not-allowed", "Method Not Allowed",
                                            "GET /metrics", [("Allow", "GET, HEAD")])
        elif not admin_token:
            status, headers, body = problem(404, "metrics-closed", "Metrics closed",
                                            "metrics are closed: no operator token is set")
        else:
            given = bearer_token(environ.get("HTTP_AUTHORIZATION"))
            if given is None:
                status, headers, body = problem(
                    401, "token-required", "Token required",
                    "send the operator token as 'Authorization: Bearer <token>'",
                    [("WWW-Authenticate", 'Bearer realm="metrics"')])
            elif not operator_token_matches(given, admin_token):
                status, headers, body = problem(403, "not-operator", "Not the operator",
                                                "this token is not the operator's token")
            else:
                status, headers, body = "200 OK", [("Content-Type", metrics.CONTENT_TYPE)], \
                    metrics.scrape(extra)
        start_response(status, [*headers, ("Content-Length", str(len(body)))])
        return [body]

    return app


class _ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _ThreadingServer6(_ThreadingServer):
    address_family = socket.AF_INET6


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        """No line per scrape."""


def parse_bind(bind: str) -> tuple[str, int]:
    """host:port (IPv6 in brackets) -> (host, port).

    >>> parse_bind("127.0.0.1:9108"), parse_bind("[::1]:9108"), parse_bind(":9108")
    (('127.0.0.1', 9108), ('::1', 9108), ('0.0.0.0', 9108))
    """
    host, _, port = bind.rpartition(":")
    if not port.isdigit():
        raise ValueError(f"{bind!r} is not host:port")
    host = host.strip("[]") or "0.0.0.0"
    return host, int(port)


def make_metrics_server(settings: Settings, bind: str) -> WSGIServer:
    """The server on `bind`, not yet serving (``serve_forever``); its queue gauges read `settings`' Redis."""

    connection = settings_client(settings)
    queues = {"arena": settings.queue_name, "house": settings.house_queue_name,
              "analysis": settings.analysis_queue_name}
    app = metrics_app(settings.admin_token, [metrics.QueueCollector(connection, queues)])
    host, port = parse_bind(bind)
    server_class: type[_ThreadingServer] = _ThreadingServer
    if ":" in host:
        server_class = _ThreadingServer6
    return make_server(host, port, app, server_class=server_class, handler_class=_QuietHandler)
