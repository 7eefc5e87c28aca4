"""Request parsing for the two hot endpoints (seat state, moves) with their marshmallow schemas directly.

webargs' generic machinery (location lookup, schema caching, nested wrappers) was a large share of the CPU
time of these two small requests. The schemas stay the contract: they validate here, and `query_doc` /
`body_doc` put the very same schemas in the OpenAPI document.
"""

from __future__ import annotations

from typing import Any

from flask import current_app, request
from marshmallow import Schema, ValidationError

from api.problems import validation_problem

_defaults: dict[int, dict[str, Any]] = {}


def load_query(schema: Schema) -> dict[str, Any]:
    """The query string loaded by `schema` (422 on errors)."""
    # No query string: the schema's defaults, loaded once (without building request.args for nothing).
    if not request.environ.get("QUERY_STRING"):
        if id(schema) not in _defaults:
            _defaults[id(schema)] = schema.load({})
        return dict(_defaults[id(schema)])
    try:
        return schema.load(request.args)
    except ValidationError as error:
        raise validation_problem(error.messages) from None


def load_json(schema: Schema) -> dict[str, Any]:
    body = _json_body()
    if not isinstance(body, dict):
        raise validation_problem(["expected a JSON object"], "the request body must be a JSON object")
    # A schema may say cheaply that a load would give the body back unchanged (MoveRequestSchema).
    loads_unchanged = getattr(schema, "loads_unchanged", None)
    if loads_unchanged is not None and loads_unchanged(body):
        return body
    try:
        return schema.load(body)
    except ValidationError as error:
        raise validation_problem(error.messages) from None


def declares_json(environ: dict[str, Any]) -> bool:
    """The request's Content-Type is JSON (werkzeug's ``request.is_json``), with the usual spellings
    ("application/json", with parameters or without) decided from the environ without parsing the header."""
    content_type = environ.get("CONTENT_TYPE", "")
    if content_type == "application/json" or content_type.startswith("application/json;"):
        return True
    return bool(request.is_json)


def _json_body() -> Any:
    """The request's JSON body. The common case, a JSON body of a declared length within the app's cap, is
    read from the WSGI input and parsed by the app's JSON provider directly: what `request.get_json` does,
    without its dozens of calls through stream wrappers. Anything else (no length, over the cap, not JSON)
    takes `request.get_json` and its errors (413, 415); malformed JSON is the same 400 either way."""
    environ = request.environ
    length = environ.get("CONTENT_LENGTH", "")
    if not length.isdigit() or int(length) > current_app.config["MAX_CONTENT_LENGTH"] \
            or not declares_json(environ):
        return request.get_json(silent=False)  # malformed JSON -> 400 problem via the error handler
    raw = environ["wsgi.input"].read(int(length))
    try:
        return current_app.json.loads(raw)
    except ValueError as error:
        return request.on_json_loading_failed(error)


def query_doc(schema: type[Schema]) -> dict[str, Any]:
    return {"parameters": [{"in": "query", "schema": schema}]}


def body_doc(schema: type[Schema]) -> dict[str, Any]:
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}
