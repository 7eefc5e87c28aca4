"""JSON encoding for responses: orjson, with pre-serialized fragments (the stored views) passed through
untouched, and `json_response` for the hot endpoints, whose payload is built in its schema's shape.

Design: docs/api.md#the-hot-path-seat-state-and-moves
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Flask, Request, Response, current_app
from flask.json.provider import DefaultJSONProvider, JSONProvider
from werkzeug.exceptions import BadRequest


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


def not_json(error: ValueError) -> str:
    """What the API says of a body its JSON parser refused: the parser's own words, where it stopped.

    >>> not_json(ValueError("unexpected end of data: line 1 column 16 (char 15)"))
    'the request body is not valid JSON: unexpected end of data: line 1 column 16 (char 15)'
    """
    return f"the request body is not valid JSON: {error}"


class JsonRequest(Request):
    """Flask's request, saying what is wrong with a malformed JSON body (Flask's own 400 says only "the
    browser (or proxy) sent a request that this server could not understand")."""

    def on_json_loading_failed(self, e: ValueError | None) -> Any:
        if e is None:  # not declared JSON: Flask's 415
            return super().on_json_loading_failed(e)
        raise BadRequest(not_json(e))


def install(app: Flask) -> None:
    app.json_provider_class = OrjsonProvider
    app.json = OrjsonProvider(app)
    app.request_class = JsonRequest
