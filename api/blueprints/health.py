"""Liveness: the service, its Redis, and whether Redis takes writes."""

from __future__ import annotations

from api.arguments import Blueprint
from api.schemas.health import HealthSchema
from api.services import services
from core.redis.health import store_health

blp = Blueprint("health", __name__, url_prefix="/api", description="Service health")


@blp.get("/health")
@blp.response(200, HealthSchema())
def health() -> dict:
    """Is the service up, can it reach Redis, and does Redis take writes? `degraded` when either fails;
    `refusing_writes` says why Redis refuses them (`memory` or `disk`, as the 507 problems do)."""
    health = store_health(services().redis)
    return {"status": "ok" if health.ok else "degraded", "redis": health.reachable,
            "refusing_writes": health.refusing_writes}

