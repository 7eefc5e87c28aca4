"""Liveness and a hello-world route (the benchmark's baseline: same app, same server, no Redis)."""

from __future__ import annotations

import redis
from flask_smorest import Blueprint

from api.schemas import HealthSchema, HelloSchema
from api.services import services

blp = Blueprint("health", __name__, url_prefix="/api", description="Service health")


@blp.get("/health")
@blp.response(200, HealthSchema())
def health() -> dict:
    """Is the service up, and can it reach Redis?"""
    try:
        reachable = bool(services().redis.ping())
    except redis.RedisError:
        reachable = False
    return {"status": "ok" if reachable else "degraded", "redis": reachable}


@blp.get("/hello")
@blp.response(200, HelloSchema())
def hello() -> dict:
    """A constant JSON answer: the benchmark's yardstick for the framework's own cost."""
    return {"hello": "world"}
