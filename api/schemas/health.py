"""The schema of GET /api/health (api.blueprints.health)."""

from __future__ import annotations

from marshmallow import Schema, fields


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"description": "ok, or degraded"})
    redis = fields.Boolean(required=True, metadata={"description": "Redis answers"})
    refusing_writes = fields.String(required=True, allow_none=True,
                                    metadata={"description": "memory or disk: what Redis refuses writes "
                                              "for; null when it takes them"})
