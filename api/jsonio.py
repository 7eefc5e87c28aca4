"""JSON encoding for responses: orjson, with pre-serialized fragments (the stored views) passed through
untouched, and `json_response` for the hot endpoints, whose payload is built in its schema's shape.

Design: docs/api.md#the-hot-path-seat-state-and-moves
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
