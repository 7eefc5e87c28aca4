"""JSON encoding for responses: orjson, with pre-serialized fragments passed through untouched.

Seat and spectator views are stored in Redis as JSON at each move; a read embeds them as an
`orjson.Fragment` instead of parsing and re-encoding them on every request.

The two hot endpoints (a seat's state, a move) answer with `json_response`: their payload is built field by
field in the very shape of their response schema, so dumping it through the schema again (flask-smorest's
`@blp.response`, which still documents it) only cost time. tests/api/test_api_tables.py checks that those
answers are exactly what the schema dumps, and the schemathesis suite checks them against the OpenAPI
document.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Flask, Response, current_app
from flask.json.provider import DefaultJSONProvider, JSONProvider


class OrjsonProvider(JSONProvider):
    mimetype = "application/json"

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return orjson.dumps(obj, default=DefaultJSONProvider.default).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        obj = self._prepare_response_obj(args, kwargs)
        body = orjson.dumps(obj, default=DefaultJSONProvider.default)
        return self._app.response_class(body, mimetype=self.mimetype)


def fragment(raw_json: str) -> orjson.Fragment:
    """Embed an already-encoded JSON value in a response as is."""
    return orjson.Fragment(raw_json)


def json_response(payload: dict[str, Any]) -> Response:
    """A 200 JSON answer of `payload`, already in its response schema's shape (flask-smorest returns a
    Response as is, without dumping it again)."""
    return current_app.response_class(orjson.dumps(payload), mimetype=OrjsonProvider.mimetype)


def stored_json_response(body: str | bytes) -> Response:
    """A 200 answer of JSON stored already encoded in its response schema's shape (a seat's state)."""
    return current_app.response_class(body, mimetype=OrjsonProvider.mimetype)


def install(app: Flask) -> None:
    app.json_provider_class = OrjsonProvider
    app.json = OrjsonProvider(app)
