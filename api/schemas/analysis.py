"""The schemas of game analyses (api.blueprints.analysis)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.schemas.common import MAX_SEAT, MoveField
from core.analysis import AnalysisStatus
from core.settings import ANALYSIS_BUDGET_RANGE_MS


class AnalysisQuerySchema(Schema):
    seat = fields.Integer(required=True, validate=validate.Range(min=0, max=MAX_SEAT), metadata={
        "description": "the seat whose decisions are analysed"})
    budget_ms = fields.Integer(validate=validate.Range(*ANALYSIS_BUDGET_RANGE_MS), metadata={
        "description": "search time per decision (default: the server's, 250 ms); another budget is another "
                       "analysis"})


class CandidateSchema(Schema):
    move = MoveField(required=True)
    value = fields.Float(allow_none=True, required=True, metadata={
        "description": "expected round margin after this move (points; higher is better); null when forced"})


class DecisionSchema(Schema):
    index = fields.Integer(required=True, metadata={"description": "index of the move in the record's moves"})
    round = fields.Integer(required=True)
    kind = fields.String(required=True, metadata={"description": "pass, sore or play"})
    legal = fields.List(fields.String(), required=True)
    candidates = fields.List(fields.Nested(CandidateSchema), required=True)
    chosen = MoveField(required=True)
    best = MoveField(allow_none=True, required=True)
    regret = fields.Float(required=True, metadata={"description": "best value - value of the chosen move"})
    # Not required: a result stored by an earlier worker (results are kept a day) has no such field.
    heuristic = MoveField(metadata={"description": "the move the house heuristic would have made here"})
    behind_heuristic = fields.Float(metadata={
        "description": "value of the heuristic's move - value of the chosen move (points; negative: the "
                       "chosen move is worth more; 0 when it is the heuristic's)"})
    forced = fields.Boolean(required=True)
    worlds = fields.Integer(required=True, metadata={"description": "sampled deals the values average"})


class AnalysisResultSchema(Schema):
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    budget_ms = fields.Integer(required=True)
    over = fields.Boolean(required=True)
    decisions = fields.List(fields.Nested(DecisionSchema), required=True)
    total_regret = fields.Float(required=True)
    mean_regret = fields.Float(required=True)
    # Not required either, as behind_heuristic.
    total_behind_heuristic = fields.Float(metadata={"description": "the decisions' behind_heuristic, summed"})
    mean_behind_heuristic = fields.Float(metadata={
        "description": "behind_heuristic per decision, forced ones included (at 0): lower is better play"})
    seat_total = fields.Integer(required=True)
    totals = fields.List(fields.Integer(), required=True)
    elapsed_s = fields.Float(required=True)


class ProgressSchema(Schema):
    done = fields.Integer(required=True)
    total = fields.Integer(required=True, metadata={"description": "the seat's decisions; 0 until it starts"})


class AnalysisStateSchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf([s.value for s in AnalysisStatus]))
    progress = fields.Nested(ProgressSchema, required=True)
    result = fields.Nested(AnalysisResultSchema, metadata={"description": "once done"})
    reason = fields.String(metadata={"description": "why it failed (POST again to retry)"})
    seat = fields.Integer(required=True)
    budget_ms = fields.Integer(required=True)
    url = fields.String(required=True, metadata={"description": "poll it with GET"})
