"""The move path's shortcuts keep the contract: `MoveRequestSchema.loads_unchanged` says yes only where a
load gives the body back as it is; a unix-socket Redis reaches the rate limiter too."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from api.schemas.seats import MoveRequestSchema

SCHEMA = MoveRequestSchema()

scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 10**6), st.floats(allow_nan=False),
                    st.text(max_size=10))
cards = st.text(min_size=0, max_size=10)
moves = st.one_of(scalars, st.lists(cards, max_size=15), st.lists(scalars, max_size=4))
bodies = st.one_of(
    st.fixed_dictionaries({"move": moves, "expected_version": scalars}),
    st.fixed_dictionaries({"move": moves, "expected_version": scalars}, optional={"extra": scalars}),
    st.dictionaries(st.sampled_from(["move", "expected_version", "other"]), moves, max_size=3),
    st.lists(scalars, max_size=2),
)


def load_or_error(body: Any) -> Any:
    try:
        return SCHEMA.load(body)
    except ValidationError:
        return ValidationError


@settings(max_examples=600, deadline=None)
@given(bodies)
def test_the_shortcut_says_yes_only_where_the_schema_returns_the_body_itself(body: Any) -> None:
    if MoveRequestSchema.loads_unchanged(body):
        assert load_or_error(body) == body


@pytest.mark.parametrize("body", [
    {"move": "QS", "expected_version": 0},
    {"move": ["2C", "3D", "4H"], "expected_version": 17},
])
def test_well_formed_moves_take_the_shortcut(body: dict[str, Any]) -> None:
    assert MoveRequestSchema.loads_unchanged(body)
    assert SCHEMA.load(body) == body


@pytest.mark.parametrize("body", [
    {"move": "QS", "expected_version": "5"},  # the schema turns it into 5: not "unchanged"
    {"move": "QS", "expected_version": 5.0},
    {"move": "QS", "expected_version": True},
    {"move": "QS", "expected_version": -1},
    {"move": "", "expected_version": 1},
    {"move": ["QS"] * 14, "expected_version": 1},
    {"move": "QS", "expected_version": 1, "extra": 1},
    {"move": "QS"},
])
def test_anything_else_goes_through_the_schema(body: dict[str, Any]) -> None:
    assert not MoveRequestSchema.loads_unchanged(body)


def test_an_app_on_a_unix_socket_redis_gives_the_rate_limiter_the_same_socket() -> None:
    from api import create_app

    app = create_app({"REDIS_URL": "unix:///run/trick-arena/redis.sock?db=0", "KEY_PREFIX": "unix-test:"})
    assert app.config["RATELIMIT_STORAGE_URI"] == "redis+unix:///run/trick-arena/redis.sock?db=0"


def play_a_random_move(store: Any, table_id: str, game: Any, rng: Any) -> None:
    """A random legal move of the first seat to act, committed by the store and applied to `game` alike."""
    seat = game.to_act()[0]
    decision = game.decision(seat)
    move = rng.sample(decision["legal"], decision["count"]) if decision["kind"] == "pass" \
        else rng.choice(decision["legal"])
    store.apply_move(table_id, seat, move, game.version)
    game.apply(seat, move)


def test_a_plain_seat_read_is_the_answer_the_commit_stored_and_only_for_that_seats_token(redis_conn,
                                                                                         key_prefix) -> None:
    import random

    import engine
    from core.tables.store import SeatKind, SeatSpec, TableStore

    store = TableStore(redis_conn, key_prefix)
    record = store.create_table("spot-hearts", 4, {}, [SeatSpec(SeatKind.OPEN)] * 4, seed=11,
                                move_timeout=30.0)
    tokens = [store.join(record.table_id, seat) for seat in range(4)]
    game = engine.new_game("spot-hearts", 4, record.options, seed=11)
    rng = random.Random(3)
    for _ in range(9):  # the pass, then plays: different seats to act, different views
        play_a_random_move(store, record.table_id, game, rng)
        stored = store.load_table(record.table_id)
        for reader in range(4):
            answer = json.loads(store.seat_answer(record.table_id, reader, tokens[reader]))
            acting = reader in game.to_act()
            assert answer == {"table_id": record.table_id, "seat": reader, "version": game.version,
                              "status": "playing", "to_act": list(game.to_act()), "your_turn": acting,
                              "deadline": stored.turn_started[reader] + 30.0 if acting else None,
                              "view": json.loads(json.dumps(game.view(reader)))}
            snapshot = store.seat_snapshot(record.table_id, reader, tokens[reader])
            assert json.loads(snapshot.answer_json) == answer  # the long-poll path answers the same
            assert store.seat_answer(record.table_id, reader, tokens[(reader + 1) % 4]) is None
            assert store.seat_answer(record.table_id, reader, "not-a-token") is None
            assert store.seat_answer(record.table_id, reader, None) is None
    assert store.seat_answer("no-such-table", 0, tokens[0]) is None


def test_every_commit_stores_each_seats_answer_and_the_spectator_view_as_plain_encoding_would(
        redis_conn, key_prefix) -> None:
    import random

    import orjson

    import engine
    from core import keys
    from core.tables.store import SeatKind, SeatSpec, TableStore

    store = TableStore(redis_conn, key_prefix)
    record = store.create_table("sore-spot", 4, {}, [SeatSpec(SeatKind.OPEN)] * 4, seed=5, move_timeout=9.0)
    game = engine.new_game("sore-spot", 4, record.options, seed=5)
    rng = random.Random(8)
    views_key = keys.table_views(key_prefix, record.table_id)
    while not game.over and game.version < 60:
        play_a_random_move(store, record.table_id, game, rng)
        stored = store.load_table(record.table_id)
        held = redis_conn.hgetall(views_key)
        assert held["spectator"] == orjson.dumps(game.spectator_view()).decode()
        for reader in range(4):
            acting = reader in stored.to_act
            assert held[f"a:{reader}"] == orjson.dumps({
                "table_id": record.table_id, "seat": reader, "version": game.version, "status": "playing",
                "to_act": stored.to_act, "your_turn": acting,
                "deadline": stored.turn_started[reader] + 9.0 if acting else None,
                "view": game.view(reader)}).decode()
