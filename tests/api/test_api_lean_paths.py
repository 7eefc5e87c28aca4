"""The move path's shortcuts keep the contract: `MoveRequestSchema.loads_unchanged` says yes only where a
load gives the body back as it is; a unix-socket Redis reaches the rate limiter too."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from api.schemas import MoveRequestSchema

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
