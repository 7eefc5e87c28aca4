"""The blueprint every resource uses: flask-smorest's, whose request bodies are parsed by the app's JSON
provider (orjson) instead of webargs' `json.loads`.

The standard library's parser recurses once per nesting level: a body nested a few thousand levels deep raised
RecursionError, a 500. orjson refuses nesting past 1024 levels with a JSONDecodeError, which webargs answers
like any malformed body: 400 problem+json. It is also what the hot endpoints (api/fastargs.py) parse with,
so every body is read by one parser with one set of rules.
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
        if not is_json_request(req):
            return core.missing
        return current_app.json.loads(req.get_data(cache=True))


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = JsonProviderParser()
