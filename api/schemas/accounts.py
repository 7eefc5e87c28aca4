"""The schemas of accounts and their API keys (api.blueprints.accounts)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate


class AccountQuotasSchema(Schema):
    bots = fields.Integer(required=True, metadata={"description": "bots the account may hold in all"})
    bots_per_ladder = fields.Integer(required=True, metadata={
        "description": "bots of the account that may list one game (so play on each ladder)"})


class AccountRecordSchema(Schema):
    """An account's record (core.arena.accounts.public): what its owner and the operator both see."""

    account_id = fields.String(required=True)
    created = fields.Float(required=True)
    disabled = fields.Boolean(required=True, metadata={
        "description": "disabled by the operator: its key is refused (403 account-disabled)"})
    has_key = fields.Boolean(required=True, metadata={"description": "false after the key was revoked"})
    key_created = fields.Float(allow_none=True, metadata={"description": "when the current key was issued"})


class AccountSchema(AccountRecordSchema):
    bots = fields.Integer(required=True, metadata={"description": "bots the account holds"})
    quotas = fields.Nested(AccountQuotasSchema, required=True)


class AccountKeySchema(AccountSchema):
    api_key = fields.String(required=True, metadata={
        "description": "shown only in this answer and stored hashed: keep it; send it as "
                       "'Authorization: Bearer <api key>'"})


class AdoptSchema(Schema):
    owner_token = fields.String(required=True, validate=validate.Length(min=1, max=200), metadata={
        "description": "the owner token shown when the bot was registered without an account; it stops "
                       "working when the account adopts the bot"})
