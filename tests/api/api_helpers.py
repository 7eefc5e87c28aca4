"""What the API tests share: problem checks, tokens, tables (imported as a sibling module)."""

from __future__ import annotations

from typing import Any

from api.services import EXTENSION as SERVICES
from core.redis.notify import VersionWatcher, get_watcher

PROBLEM = "application/problem+json"


def assert_problem(response: Any, status: int, slug: str | None = None) -> dict[str, Any]:
    """The response is an RFC 9457 problem with this status (and problem type slug); returns the body."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True))
    assert response.headers["Content-Type"].startswith(PROBLEM)
    body = response.get_json(force=True)
    assert {"type", "title", "status", "detail"} <= body.keys()
    assert body["status"] == status
    assert isinstance(body["detail"], str) and body["detail"]
    assert "Traceback" not in response.get_data(as_text=True)
    if slug is not None:
        assert body["type"] == f"/problems/{slug}"
    return body


def app_watcher(app: Any) -> VersionWatcher:
    """The app's long-poll wake-up listener: its `waiting` counts the polls parked on it."""
    tables = app.extensions[SERVICES].tables
    return get_watcher(tables.redis, tables.prefix)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def open_table(client: Any, seats: list[str], game: str = "spot-hearts", **extra: Any) -> dict[str, Any]:
    response = client.post("/api/tables", json={"game": game, "seats": seats, **extra})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def join(client: Any, table_id: str, seat: int) -> str:
    response = client.post(f"/api/tables/{table_id}/seats/{seat}/join")
    assert response.status_code == 201, response.get_json()
    return response.get_json()["token"]
