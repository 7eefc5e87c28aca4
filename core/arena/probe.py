"""The first health check of a bot's URL, as its owner reads it in the registration answer.

Registration (and a change of URL) queues the arena's health check at once and waits a few seconds for it;
a bot is seated only after a check passes, so what came back tells its owner whether it will play.
"""

from __future__ import annotations

from typing import Any, TypedDict


class Probe(TypedDict):
    """What the first check of a URL found: ``outcome`` is an arena call outcome, or ``pending``."""

    outcome: str
    ok: bool | None
    latency_ms: float | None
    detail: str


def probe_answer(report: dict[str, Any] | None, url: str, wait_s: float) -> Probe:
    """The registration answer's `probe` from a health check's report (None: not done within the wait).

    >>> ok = {"ok": True, "outcome": "ok", "latency_ms": 3.2, "detail": ""}
    >>> probe_answer(ok, "http://b:9/", 5)["detail"]
    'GET http://b:9/ answered in 3 ms: the bot is seated in the next matches of its ladders'
    >>> p = probe_answer({"ok": False, "outcome": "timeout", "latency_ms": 2001.0, "detail": "no answer"},
    ...                  "http://b:9/", 5)
    >>> p["ok"], p["detail"][:60]
    (False, 'GET http://b:9/ failed (timeout: no answer): the bot is not ')
    >>> probe_answer(None, "http://b:9/", 5)["outcome"]
    'pending'
    """
    if report is None:
        return {"outcome": "pending", "ok": None, "latency_ms": None,
                "detail": f"the check of GET {url} did not finish within {wait_s:g} s; the bot is seated "
                          "once it passes (then GET /api/bots/{id} shows `paused_reason` null)"}
    latency = float(report["latency_ms"])
    if report["ok"]:
        return {"outcome": "ok", "ok": True, "latency_ms": latency,
                "detail": f"GET {url} answered in {latency:.0f} ms: the bot is seated in the next matches of "
                          "its ladders"}
    return {"outcome": str(report["outcome"]), "ok": False, "latency_ms": latency,
            "detail": f"GET {url} failed ({report['outcome']}: {report['detail']}): the bot is not seated "
                      "until a check passes; the arena checks it again about every 30 s, less often while it "
                      "keeps failing (docs/bot-protocol.md)"}
