"""The app the API benchmark serves: the public app (`api.create_app`) and `GET /api/hello`, its yardstick (a
constant answer through everything the app puts around a view, no Redis), registered on the Flask app alone:
no part of the public API nor of its OpenAPI document.

    gunicorn -c api/gunicorn_conf.py 'tools.bench_app:create_app()'
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask_smorest import Blueprint
from marshmallow import Schema, fields

import api

APP = "tools.bench_app:create_app()"  # gunicorn's name for it

yardstick = Blueprint("yardstick", __name__, url_prefix="/api")


class HelloSchema(Schema):
    hello = fields.String(required=True)


@yardstick.get("/hello")
@yardstick.response(200, HelloSchema())
def hello() -> dict[str, str]:
    """A constant JSON answer: the framework's own cost per request."""
    return {"hello": "world"}


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """`api.create_app(config)` with `GET /api/hello` added."""
    app = api.create_app(config)
    app.register_blueprint(yardstick)  # Flask's registration, not the Api's: served, not documented
    return app
