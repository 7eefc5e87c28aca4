"""Every view and decision of seeded games of every game, player count and option variant matches the game's
JSON Schema (core/viewschema.py), and the schemas are tight: a wrong key, card, suit or phase fails them."""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any, NotRequired, TypedDict

import jsonschema
import pytest

import engine
from core import viewschema

# (game, players, options, seeds): every player count, and the options that change what a view holds (Sore
# Spot's decks and round counts); targets low enough to end soon, high enough for a hold round somewhere.
VARIANTS: list[tuple[str, int, dict[str, Any], int]] = [
    ("spot-hearts", 4, {"target": 150}, 2),
    ("card-commons", 3, {"target": 25}, 2),
    ("card-commons", 4, {"target": 30}, 2),
    ("sloppy-seconds", 3, {"target": 40}, 2),
    ("sloppy-seconds", 4, {"target": 40}, 2),
    ("sore-spot", 3, {"rounds": 2}, 2),
    ("sore-spot", 3, {"deck": "a-to-q", "rounds": 1}, 2),
    ("sore-spot", 4, {"rounds": 1}, 2),
    ("sore-spot", 5, {"rounds": 1}, 2),
    ("sore-spot", 6, {"rounds": 1}, 2),
    ("sore-spot", 4, {"deck": ["2C", "9D", "QH", "AS", "TC", "KD", "3H", "5S"]}, 3),
]

# Views checked per game at least: 2,000 in all, about 56 % of the 3,567 these seeds give today (not vacuous).
MIN_VIEWS = {"spot-hearts": 460, "card-commons": 590, "sloppy-seconds": 210, "sore-spot": 740}


ENUM = jsonschema.Draft202012Validator.VALIDATORS["enum"]


def string_enum(validator: Any, enums: list[Any], instance: Any, schema: dict[str, Any]) -> Any:
    """jsonschema's ``enum``, with a set lookup for a string: the same verdict (a string equals only the
    same string) without the 52 comparisons per card code that made the check most of the test's time."""
    strings = STRING_ENUMS.get(id(enums))
    if strings is None:
        strings = STRING_ENUMS[id(enums)] = (
            frozenset(enums) if all(isinstance(e, str) or e is None for e in enums) else frozenset())
    if isinstance(instance, str) and strings:
        if instance not in strings:
            yield jsonschema.ValidationError(f"{instance!r} is not one of {enums!r}")
        return
    yield from ENUM(validator, enums, instance, schema)


STRING_ENUMS: dict[int, frozenset[Any]] = {}  # by the id of an enum list of the schemas, kept alive below


FastValidator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"enum": string_enum})


def validator(game: str, name: str | None = None) -> Any:
    schema = viewschema.game_schema(game) if name is None else viewschema.definition(game, name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return FastValidator(schema)


VALIDATORS = {(game, name): validator(game, name)
              for game in engine.GAMES for name in (None, "SpectatorView", "Decision", "Move")}


def play(game: str, players: int, options: dict[str, Any], seed: int, seen: dict[str, set[Any]]) -> int:
    """Play one game by random legal moves, checking views, decisions and moves; the number of views checked.

    Every seat's view is checked when a round or a phase begins and at the end; in between the acting seat's
    and one other in turn (all of them each time would take jsonschema several times as long, for views that
    differ only in their hands)."""
    rng = random.Random(seed)
    g = engine.new_game(game, players, options, seed=seed)
    seat_view, spectator = VALIDATORS[game, None], VALIDATORS[game, "SpectatorView"]
    decision_schema, move_schema = VALIDATORS[game, "Decision"], VALIDATORS[game, "Move"]
    checked, step, last = 0, 0, None
    while True:
        views, public = g.views()
        spectator.validate(public)
        seen["phase"].add(public["phase"])
        seen["pass_direction"].add(public.get("pass_direction"))
        acting = g.to_act()
        moment = (public["round"], public["phase"])
        chosen = range(players) if moment != last or g.over else {acting[0], step % players}
        last = moment
        for seat in chosen:
            seat_view.validate(views[seat])
            seen["keys"].update(views[seat])
            checked += 1
        if g.over:
            return checked
        seat = rng.choice(acting)
        decision = views[seat]["decision"]
        assert decision is not None
        decision_schema.validate(decision)
        seen["kind"].add(decision["kind"])
        legal = decision["legal"]
        passing = decision["kind"] == "pass"
        move = sorted(rng.sample(legal, decision["count"])) if passing else rng.choice(legal)
        move_schema.validate(move)
        g.apply(seat, move)
        step += 1


@pytest.mark.parametrize("game", list(engine.GAMES))
def test_every_view_and_decision_of_every_variant_matches_the_schema_and_shows_every_value(game: str) -> None:
    """Every variant of the game played: each view and decision valid, and the schema's enums not wider than
    the engine (every phase, decision kind, pass direction and view key of the game is seen)."""
    seen: dict[str, set[Any]] = defaultdict(set)
    checked = 0
    for variant in (v for v in VARIANTS if v[0] == game):
        _, players, options, seeds = variant
        views = sum(play(game, players, options, seed, seen) for seed in range(seeds))
        assert views >= 2 * players * seeds, variant  # at least a start and an end each
        checked += views
    assert checked > MIN_VIEWS[game], checked
    defs = viewschema.game_schema(game)["$defs"]
    assert seen["phase"] == set(defs["Phase"]["enum"])
    assert seen["kind"] == set(defs["Phase"]["enum"]) - {"over"}
    assert seen["pass_direction"] - {None} == set(defs.get("PassDirection", {}).get("enum", []))
    assert seen["keys"] == set(defs["SeatView"]["properties"])


def test_every_game_has_a_schema_and_only_its_own_keys() -> None:
    keys = {game: set(viewschema.game_schema(game)["$defs"]["SeatView"]["properties"])
            for game in engine.GAMES}
    assert keys["spot-hearts"] - keys["card-commons"] == {"hearts_broken"}
    assert keys["sloppy-seconds"] >= {"trump", "broken"} and "pass_direction" not in keys["sloppy-seconds"]
    assert "sore_cards" in keys["sore-spot"] and "passed" not in keys["sore-spot"]
    assert "chosen" not in keys["sloppy-seconds"]  # no simultaneous phase


BAD = [
    ("an unknown key", lambda v: v.update(colour="red")),
    ("a missing key", lambda v: v.pop("hand")),
    ("a card that is no card", lambda v: v["hand"].append("1Z")),
    ("a phase the game has not", lambda v: v.update(phase="bid")),
    ("another game's id", lambda v: v.update(game="euchre")),
    ("a seat beyond the table", lambda v: v.update(dealer=9)),
    ("a decision of a wrong count",
     lambda v: v.update(decision={"kind": "play", "count": 3, "legal": ["2C"]})),
]


@pytest.mark.parametrize(("what", "spoil"), BAD, ids=[b[0] for b in BAD])
def test_a_spoiled_view_fails(what: str, spoil: Any) -> None:
    for game in engine.GAMES:
        view: dict[str, Any] = dict(engine.new_game(game, engine.GAMES[game].min_players, seed=3).view(0))
        view["hand"] = list(view["hand"])
        VALIDATORS[game, None].validate(view)
        spoil(view)
        with pytest.raises(jsonschema.ValidationError):
            VALIDATORS[game, None].validate(view)


def test_game_specific_values_are_checked() -> None:
    sloppy = engine.new_game("sloppy-seconds", 3, seed=1).view(0)
    with pytest.raises(jsonschema.ValidationError):
        VALIDATORS["sloppy-seconds", None].validate({**sloppy, "trump": "X"})
    hearts = engine.new_game("spot-hearts", 4, seed=1).view(0)
    with pytest.raises(jsonschema.ValidationError):
        VALIDATORS["spot-hearts", None].validate({**hearts, "pass_direction": "up"})
    with pytest.raises(jsonschema.ValidationError):  # a pass is three distinct cards
        VALIDATORS["spot-hearts", "Move"].validate(["2C", "2C", "3C"])
    with pytest.raises(jsonschema.ValidationError):  # Sore Spot never passes
        VALIDATORS["sore-spot", "Move"].validate(["2C", "3C", "4C"])


def test_an_unknown_game_has_no_schema() -> None:
    with pytest.raises(engine.OptionsError):
        viewschema.game_schema("euchre")


class Untyped(TypedDict):
    nickname: str


class Unruled(TypedDict):
    seat: int
    mood: NotRequired[bool]


def test_a_new_key_without_a_domain_stops_the_generator() -> None:
    # A key added to engine/shapes.py must get a domain in core/viewschema.py; it never goes out untyped.
    builder = viewschema._Builder("spot-hearts")
    with pytest.raises(viewschema.SchemaError, match="nickname"):
        builder.shape(Untyped)
    with pytest.raises(viewschema.SchemaError, match="mood"):
        builder.shape(Unruled)
