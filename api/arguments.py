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
        if not is_json_request(req):
            return core.missing
        return current_app.json.loads(req.get_data(cache=True))


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = JsonProviderParser()
