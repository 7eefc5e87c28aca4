"""The table record's one codec (core.tables.record): what creation, the commit and every read agree on."""

from __future__ import annotations

import doctest
import json

import core.tables.answer
import core.tables.cache
import core.tables.record
import engine
import engine.bots
from core import keys
from core.tables.answer import SEAT_ANSWER_FIELDS
from core.tables.record import FIELDS, MOVE_FIELDS, REPLAY_FIELD, decode_record, encode_record
from core.tables.store import SeatKind, SeatSpec, TableStore


def test_the_examples_of_the_record_and_the_cache_hold() -> None:
    result = doctest.testmod(core.tables.record)
    assert result.attempted >= 4 and result.failed == 0
    assert doctest.testmod(core.tables.cache).failed == 0


def test_a_new_table_hash_is_the_encoded_record_and_decodes_to_it(redis_conn, key_prefix) -> None:
    tables = TableStore(redis_conn, key_prefix)
    seats = [SeatSpec(SeatKind.OPEN), SeatSpec(SeatKind.HOUSE, "heuristic"), SeatSpec(SeatKind.OPEN)]
    record = tables.create_table("card-commons", 3, {}, seats, seed=2**53 - 1, move_timeout=12.5,
                                 labels={"ladder": "l1"})
    stored = redis_conn.hgetall(keys.table(key_prefix, record.table_id))
    assert stored == {name: str(value) for name, value in encode_record(record).items()}
    assert set(stored) == set(FIELDS) - {"deals"}  # dealt from its seed alone: no explicit deals
    assert decode_record(record.table_id, stored) == record == tables.load_table(record.table_id)


def test_a_commit_writes_the_fields_a_move_changes_and_the_replay_at_the_end(redis_conn, key_prefix) -> None:
    tables = TableStore(redis_conn, key_prefix)
    house = [SeatSpec(SeatKind.HOUSE, "random")] * 3
    record = tables.create_table("card-commons", 3, {"target": 10}, house, seed=4)
    table_key = keys.table(key_prefix, record.table_id)
    before = redis_conn.hgetall(table_key)
    game = engine.new_game("card-commons", 3, record.options, seed=4)
    bot = engine.bots.make_bot("random", 1)
    seat = game.to_act()[0]
    game.apply(seat, bot.choose(game.view(seat)))
    after = tables._commit_move(record, game, seat)
    assert after is not None
    stored = redis_conn.hgetall(table_key)
    changed = {name for name in stored if stored[name] != before.get(name)}
    assert changed <= set(MOVE_FIELDS) and {"version", "updated"} <= changed
    assert decode_record(record.table_id, stored) == after
    while not after.over:  # the same game, committed move by move to the end
        seat = game.to_act()[0]
        game.apply(seat, bot.choose(game.view(seat)))
        committed = tables._commit_move(after, game, seat)
        assert committed is not None
        after = committed
    assert REPLAY_FIELD in redis_conn.hgetall(table_key)
    assert tables.replay_record(record.table_id)["moves"] == tables.moves(record.table_id)


def test_the_api_schema_of_a_seat_answer_declares_exactly_the_stored_answer_fields() -> None:
    from api.schemas.seats import SeatStateSchema

    assert tuple(SeatStateSchema().fields) == SEAT_ANSWER_FIELDS
    assert doctest.testmod(core.tables.answer).failed == 0


def test_the_seat_view_for_a_driver_is_the_view_inside_the_stored_answer(redis_conn, key_prefix) -> None:
    tables = TableStore(redis_conn, key_prefix)
    record = tables.create_table("spot-hearts", 4, {}, [SeatSpec(SeatKind.OPEN)] * 4, seed=6)
    game = engine.new_game("spot-hearts", 4, record.options, seed=6)
    held = tables.seat_view(record.table_id, 2)
    assert held.version == 0 and held.view == json.loads(json.dumps(game.view(2)))
    answer = tables.seat_snapshot(record.table_id, 2, check_token=False).answer_json
    assert json.loads(answer) == {**json.loads(answer), "version": 0, "seat": 2, "view": held.view}
