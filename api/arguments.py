"""The blueprint every resource uses: flask-smorest's, whose request bodies are parsed by the app's JSON
provider (orjson) instead of webargs' `json.loads`.

Design: docs/api.md#request-bodies
"""

from __future__ import annotations

from typing import Any

import flask
import flask_smorest
from flask import current_app
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request


class JsonProviderParser(FlaskParser):
    def _raw_load_json(self, req: flask.Request) -> Any:
        """The body parsed, or a 400 naming what is wrong. Not left to webargs: it takes a decode error
        whose document it cannot see (orjson's, for bytes that are not UTF-8) for an empty body, and a
        body of random bytes would pass as no change at all."""
        if not is_json_request(req):
            return core.missing
        raw = req.get_data(cache=True)
        if not raw:
            return core.missing  # no body: the schema says whether one is required
        try:
            return current_app.json.loads(raw)
        except ValueError as error:
            return req.on_json_loading_failed(error)


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = JsonProviderParser()
