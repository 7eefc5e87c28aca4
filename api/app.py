"""The app factory: config, flask-smorest Api, blueprints, rate limits, the one error handler."""

from __future__ import annotations

from typing import Any

from flask import Flask, abort, request, send_from_directory
from flask_smorest import Api

from api import headers, jsonio
from api import metrics as request_metrics
from api.fastargs import declares_json
from api.links import LinksPlugin
from api.problems import PROBLEM_MEDIA_TYPE, register_error_handlers
from api.ratelimit import install_address_limits, install_seat_limit, install_trusted_proxies
from api.schemas.common import ProblemSchema, register_view_components
from api.services import EXTENSION, build_services
from core.settings import Settings

# endpoint -> (config key with its per-client-address limit, methods it applies to)
RATE_LIMITED = {
    "bots.register_bot": ("LIMIT_REGISTRATION", ["POST"]),
    "accounts.create_account": ("LIMIT_ACCOUNT_CREATION", ["POST"]),
    "tables.create_table": ("LIMIT_TABLE_CREATION", ["POST"]),
    "analysis.request_match_analysis": ("LIMIT_ANALYSIS", ["POST"]),
    "analysis.request_table_analysis": ("LIMIT_ANALYSIS", ["POST"]),
    "bots.export_bot_matches": ("LIMIT_EXPORT", ["GET"]),
}

BODY_METHODS = {"POST", "PUT", "PATCH"}


class TrickArenaApi(Api):
    # Document every error response with the problem+json schema our handler actually produces.
    ERROR_SCHEMA = ProblemSchema

    def _register_responses(self) -> None:
        # ... and with the media type it actually has: flask-smorest documents its shared error responses
        # as application/json, which every error answer (application/problem+json) then contradicts.
        self.DEFAULT_RESPONSE_CONTENT_TYPE = PROBLEM_MEDIA_TYPE
        try:
            super()._register_responses()
        finally:
            del self.DEFAULT_RESPONSE_CONTENT_TYPE  # successes stay application/json


def create_app(config: dict[str, Any] | None = None, settings: Settings | None = None) -> Flask:
    """The app: the Flask config of `settings` (default: read from the environment now), `config` on top."""
    app = Flask(__name__)
    settings = (settings or Settings.from_env()).with_config(config)
    app.config.update(settings.flask_config(config))
    install_trusted_proxies(app)  # first: a bad TRUSTED_PROXIES stops the app before anything connects
    jsonio.install(app)
    request_metrics.install(app)  # first: the other request hooks' refusals are counted and timed too

    api = TrickArenaApi(app, spec_kwargs={"info": {"description": "Play trick-taking card games over HTTP."},
                                          "extra_plugins": [LinksPlugin()]})
    api.spec.components.security_scheme("seatToken", {"type": "http", "scheme": "bearer",
                                                       "description": "a seat token (from joining a seat)"})
    api.spec.components.security_scheme("ownerToken", {
        "type": "http", "scheme": "bearer",
        "description": "a bot's owner token (answered once by POST /api/bots without an API key)"})
    api.spec.components.security_scheme("operatorToken", {
        "type": "http", "scheme": "bearer", "description": "the operator token (TA_ADMIN_TOKEN)"})
    api.spec.components.security_scheme("apiKey", {"type": "http", "scheme": "bearer",
                                                    "description": "an account's API key"})
    register_view_components(api.spec, api.ma_plugin.converter)
    from api.blueprints import (
        accounts,
        admin,
        analysis,
        bots,
        challenges,
        games,
        health,
        ladders,
        seats,
        tables,
        tournaments,
    )

    for blueprint in (health.blp, games.blp, tables.blp, seats.blp, accounts.blp, bots.blp, ladders.blp,
                      challenges.blp, analysis.blp, admin.blp, tournaments.blp):
        api.register_blueprint(blueprint)
    from api.web import blp as web_pages  # the HTML pages at /: not part of the OpenAPI doc
    from api.web import error_page
    app.register_blueprint(web_pages)
    register_error_handlers(app, page=error_page)

    app.extensions[EXTENSION] = build_services(settings)
    _install_rate_limits(app)
    _install_swagger_assets(app)
    app.before_request(_require_json_bodies)
    headers.install(app)
    return app


def _install_rate_limits(app: Flask) -> None:
    # Only the views in RATE_LIMITED are wrapped: no other request pays anything for the per-address limits.
    install_address_limits(app, RATE_LIMITED)
    install_seat_limit(app, app.extensions[EXTENSION].redis)


def _install_swagger_assets(app: Flask) -> None:
    import swagger_ui_bundle

    @app.get("/api/docs/static/<path:filename>")
    def swagger_static(filename: str):  # noqa: ANN202 - a Flask view
        return send_from_directory(swagger_ui_bundle.swagger_ui_path, filename, max_age=3600)


def _require_json_bodies() -> None:
    # Bodies must be JSON; an empty body is fine for endpoints that take none (join, delete).
    environ = request.environ
    if request.method in BODY_METHODS and not declares_json(environ) \
            and (request.content_length or 0) > 0:
        abort(415, description="send the request body as application/json")
