"""The SDK's typed payloads mirror the service's schemas field for field (a renamed field fails here)."""

from __future__ import annotations

import dataclasses

import pytest
from trickarena import types

from api.schemas import accounts, bots, challenges, common, games, ladders, seats, tables

PAIRS = [
    (types.Problem, common.ProblemSchema),
    (types.Game, games.GameSchema),
    (types.SeatInfo, tables.SeatInfoSchema),
    (types.Table, tables.TableSchema),
    (types.TableSummary, tables.TableSummarySchema),
    (types.Join, seats.JoinSchema),
    (types.SeatState, seats.SeatStateSchema),
    (types.MoveResult, seats.MoveResultSchema),
    (types.BotRecord, bots.BotSchema),
    (types.BotCreated, bots.BotCreatedSchema),
    (types.Account, accounts.AccountSchema),
    (types.AccountKey, accounts.AccountKeySchema),
    (types.Ladder, ladders.LadderSchema),
    (types.RankedBot, ladders.RankedBotSchema),
    (types.NewBot, ladders.NewBotSchema),
    (types.Ranking, ladders.RankingSchema),
    (types.HistoryEntry, ladders.HistoryEntrySchema),
    (types.BotHistory, ladders.BotHistorySchema),
    (types.MatchSummary, common.MatchSummarySchema),
    (types.LadderSeat, ladders.LadderSeatSchema),
    (types.Challenge, challenges.ChallengeSchema),
]


@pytest.mark.parametrize(("payload", "schema"), PAIRS, ids=[p.__name__ for p, _ in PAIRS])
def test_payload_fields_equal_schema_fields(payload, schema) -> None:
    assert {f.name for f in dataclasses.fields(payload)} == set(schema().fields)


def test_required_schema_fields_have_no_default_in_the_payload() -> None:
    # A field the server always sends must be required in the dataclass too (no silent None).
    for payload, schema in PAIRS:
        if payload is types.Problem:
            continue  # built from any error answer (a proxy's HTML too), so every field has a fallback
        required = {name for name, f in schema().fields.items() if f.required}
        defaulted = {f.name for f in dataclasses.fields(payload)
                     if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING}
        if payload is types.AccountKey:
            defaulted.discard("api_key")  # must follow Account's default; the server always sends it
        assert not required & defaulted, payload.__name__


def test_from_json_ignores_unknown_fields_and_nests_seats() -> None:
    table = types.Table.from_json({
        "table_id": "t", "game": "spot-hearts", "players": 4, "options": {}, "status": "over", "version": 3,
        "to_act": [], "seed_commitment": "c", "view": {}, "created": 1.0, "updated": 2.0, "seed": 5,
        "seed_nonce": "n", "a_future_field": 1,
        "seats": [{"seat": 0, "kind": "open", "name": None, "joined": True}],
    })
    assert table.over and table.seats[0] == types.SeatInfo(seat=0, kind="open", joined=True, name=None)
    assert table.seed == 5
