"""The schemas of the admin API, which answers only the operator token (api.blueprints.admin)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.accounts import AccountRecordSchema
from api.schemas.common import page_limit


class AdminActionSchema(Schema):
    reason = fields.String(required=True, validate=validate.Length(min=1, max=500),
                           metadata={"description": "why: kept in the audit log"})
    actor = fields.String(load_default="operator", validate=validate.Length(min=1, max=100),
                          metadata={"description": "who acts (the audit log's `actor`; one token serves "
                                                   "every operator, so say who you are)"})


class AdminAccountSchema(AccountRecordSchema):
    bots_changed = fields.List(fields.String(), required=True,
                               metadata={"description": "the bots whose suspension this action changed"})


class AdminBotSchema(Schema):
    bot_id = fields.String(required=True)
    name = fields.String(required=True, metadata={"description": "the real name, hidden or not"})
    public_name = fields.String(required=True, metadata={"description": "the name public views show"})
    games = fields.List(fields.String(), required=True)
    url = fields.String(allow_none=True, required=True)
    enabled = fields.Boolean(required=True, metadata={"description": "the owner's own flag"})
    owner = fields.String(allow_none=True, required=True, metadata={"description": "the owner id"})
    suspended = fields.Boolean(required=True, metadata={"description": "the operator's suspension"})
    suspended_reason = fields.String(allow_none=True, required=True)
    suspended_at = fields.Float(allow_none=True, required=True)
    name_hidden = fields.Boolean(required=True)
    created = fields.Float(required=True)
    changed = fields.Boolean(metadata={"description": "whether this action changed anything (actions only)"})


class VoidedSchema(Schema):
    at = fields.Float(required=True)
    by = fields.String(required=True)
    reason = fields.String(required=True)
    deltas = fields.Dict(keys=fields.String(), values=fields.Float(), required=True,
                         metadata={"description": "the rating changes undone, by bot id"})


class VoidedMatchSchema(Schema):
    match_id = fields.String(required=True)
    ladder_id = fields.String(required=True)
    status = fields.String(required=True, metadata={"description": "void"})
    voided = fields.Nested(VoidedSchema, required=True)


class AdminListQuerySchema(Schema):
    limit = page_limit(20, 500)


class StrikeBoardRowSchema(Schema):
    bot_id = fields.String(required=True)
    name = fields.String(allow_none=True, required=True,
                         metadata={"description": "the real name; null for a bot deleted since"})
    strikes = fields.Integer(required=True)
    forfeits = fields.Integer(required=True)
    matches = fields.Integer(required=True, metadata={"description": "rated matches, every ladder"})
    ladders = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True,
                          metadata={"description": "strikes per ladder"})


class RefusalRowSchema(Schema):
    address = fields.String(required=True, metadata={"description": "the client address (api.ratelimit)"})
    refusals = fields.Integer(required=True)


STREAM_ID = r"^[0-9]{1,19}(-[0-9]{1,19})?$"


class AuditQuerySchema(Schema):
    limit = page_limit(50, 500)
    # A Redis stream id (milliseconds-sequence), each part within 64 bits: anything else is a 422, not a
    # Redis error.
    before = fields.String(validate=validate.Regexp(
        STREAM_ID, error="an entry's `id` as the audit answered it, e.g. 1796655431469-0"),
        metadata={"description": "an entry id: the page of entries older than it", "pattern": STREAM_ID})


class AuditEntrySchema(Schema):
    id = fields.String(required=True, metadata={"description": "time-ordered entry id"})
    at = fields.Float(required=True)
    actor = fields.String(required=True)
    action = fields.String(required=True, metadata={
        "description": "bot.suspend, bot.unsuspend, bot.hide-name, bot.show-name, match.void"})
    target = fields.String(required=True, metadata={"description": "bot id or match id"})
    reason = fields.String(required=True)
    via = fields.String(required=True, metadata={"description": "api or cli"})
    detail = fields.Dict(required=True)
