"""JSON Schemas of what a seat sees and must send, one per game, derived from the engine's typed shapes and
narrowed per game from the engine's tables: :func:`game_schema` (draft 2020-12) and
:func:`openapi_components` (the same, for OpenAPI 3.0.3).

Design: docs/api.md#view-schemas
"""

from __future__ import annotations

import copy
import types
import typing
from collections.abc import Callable
from functools import cache
from typing import Any, NotRequired, get_args, get_origin, get_type_hints, is_typeddict

import engine
from engine import shapes
from engine.card_tables import CODES, SUITS
from engine.games.sore_spot import DECK_PRESETS
from engine.rules import DIRECTION_NAMES, Rules
from engine.shapes import Phase

Schema = dict[str, Any]

DIALECT = "https://json-schema.org/draft/2020-12/schema"
COMPONENTS = "#/components/schemas/"

#: Leaf definitions every game's document can hold, by the name ``$defs`` gives them.
CARD, SUIT, SEAT, PLAYERS, PHASE, DIRECTION, GAME, OPTIONS = (
    "Card", "Suit", "Seat", "Players", "Phase", "PassDirection", "GameId", "Options")
COUNT: Schema = {"type": "integer", "minimum": 0}
POINTS: Schema = {"type": "integer"}

#: The domain of each ``str`` key of the shapes (for a ``list[str]``, of its items): a ``$defs`` name.
STR_LEAVES = {
    "game": GAME, "hand": CARD, "legal": CARD, "chosen": CARD, "passed": CARD, "received": CARD,
    "cards": CARD, "card": CARD, "sore_cards": CARD, "trump": SUIT, "broken": SUIT,
    "pass_direction": DIRECTION,
}
#: The domain of each ``int`` key: a ``$defs`` name or an inline schema.
INT_LEAVES: dict[str, str | Schema] = {
    "seat": SEAT, "dealer": SEAT, "leader": SEAT, "winner": SEAT, "to_act": SEAT, "winners": SEAT,
    "players": PLAYERS, "version": COUNT, "round": COUNT, "hand_sizes": COUNT, "count": COUNT,
    "scores": POINTS, "points": POINTS,
}


def _simultaneous(rules: Rules[Any]) -> bool:
    return rules.has_sore_phase or rules.pass_count > 0


def _passes(rules: Rules[Any]) -> bool:
    return rules.pass_count > 0


#: A seat's own optional keys (beyond the public table's) and the games that can show them: ``chosen`` while
#: a choice waits for the other seats, ``passed`` / ``received`` once a pass is made.
SEAT_KEYS: dict[str, Callable[[Rules[Any]], bool]] = {
    "chosen": _simultaneous, "passed": _passes, "received": _passes,
}

#: Options whose ``OptionSpec.kind`` is not ``int``, by (game, option): the values they take.
OBJECT_OPTIONS: dict[tuple[str, str], Schema] = {
    ("sore-spot", "deck"): {"anyOf": [
        {"type": "string", "enum": list(DECK_PRESETS)},
        {"type": "array", "items": {"$ref": f"#/$defs/{CARD}"}, "uniqueItems": True, "minItems": 1},
    ]},
}


def fields(shape: Any) -> dict[str, tuple[Any, bool]]:
    """A TypedDict's keys in order: (annotation, required). Read from the annotations with their
    extras, since ``__required_keys__`` cannot see ``NotRequired`` in engine/shapes.py's postponed
    annotations."""
    out: dict[str, tuple[Any, bool]] = {}
    for key, tp in get_type_hints(shape, include_extras=True).items():
        optional = get_origin(tp) is NotRequired
        out[key] = (get_args(tp)[0] if optional else tp, not optional)
    return out


TABLE_OPTIONAL = {key for key, (_, required) in fields(shapes.TableView).items() if not required}


class SchemaError(TypeError):
    """A shape the generator cannot type: a new key or type in engine/shapes.py needs a domain here."""


def camel(game_id: str) -> str:
    """``spot-hearts`` -> ``SpotHearts``: the prefix of a game's OpenAPI components."""
    return "".join(part.capitalize() for part in game_id.split("-"))


def component_name(game_id: str, name: str) -> str:
    """The OpenAPI component of definition ``name`` of a game's document (``SpotHeartsSeatView``)."""
    return camel(game_id) + name


def _nullable(schema: Schema) -> Schema:
    """``schema`` or null: a type list where the schema names its one type, ``anyOf`` around a reference."""
    if isinstance(schema.get("type"), str) and "$ref" not in schema:
        out = {**schema, "type": [schema["type"], "null"]}
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        return out
    return {"anyOf": [schema, {"type": "null"}]}


class _Builder:
    """One game's document, its ``$defs`` filled as the shapes refer to them."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.rules = engine.rules_for(game_id)
        self.info = self.rules.info
        self.defs: dict[str, Schema] = {}
        fresh = engine.new_game(game_id, self.info.min_players, seed=0)
        # The optional public keys this game's add_public (and the pass) put in every view.
        self.public_keys = set(fresh.spectator_view()) & TABLE_OPTIONAL

    # ----- per-game domains -------------------------------------------------------------------------------
    def _player_counts(self) -> range:
        return range(self.info.min_players, self.info.max_players + 1)

    def phases(self) -> list[str]:
        have = {Phase.SORE: self.rules.has_sore_phase, Phase.PASS: _passes(self.rules)}
        return [p.value for p in Phase if have.get(p, True)]

    def decision_kinds(self) -> list[str]:
        return [p for p in self.phases() if p != Phase.OVER]

    def count(self, kind: str) -> int:
        return self.rules.pass_count if kind == Phase.PASS else 1

    def cards(self) -> list[str]:
        dealt: set[int] = set()
        for players in self._player_counts():
            dealt.update(self.rules.deck(players, engine.validate_options(self.game_id, players)))
        if any(spec.kind is not int for spec in self.info.options.values()):
            dealt.update(range(len(CODES)))  # an explicit deck option (Sore Spot) may name any card
        return [CODES[c] for c in sorted(dealt)]

    def directions(self) -> list[str]:
        offsets = {self.rules.pass_offset(players, r) for players in self._player_counts() for r in range(12)}
        return [name for offset, name in DIRECTION_NAMES.items() if offset in offsets]

    def options(self) -> Schema:
        props: dict[str, Schema] = {}
        for key, spec in self.info.options.items():
            if spec.kind is int:
                prop: Schema = {"type": "integer"}
                if spec.minimum is not None:
                    prop["minimum"] = spec.minimum
                if spec.maximum is not None:
                    prop["maximum"] = spec.maximum
            elif (self.game_id, key) in OBJECT_OPTIONS:
                prop = copy.deepcopy(OBJECT_OPTIONS[self.game_id, key])
                self.ref(CARD)
            else:
                raise SchemaError(f"{self.game_id} option {key!r} of kind {spec.kind.__name__}: no schema")
            props[key] = {**prop, "description": spec.doc}
        return {"type": "object", "description": "the table's options, every default filled in",
                "properties": props, "required": list(props), "additionalProperties": False}

    def leaf(self, name: str) -> Schema:
        n = self.info.max_players
        leaves: dict[str, Callable[[], Schema]] = {
            CARD: lambda: {"type": "string", "enum": self.cards(),
                           "description": "card code: rank 2-9 T J Q K A + suit C D H S"},
            SUIT: lambda: {"type": "string", "enum": list(SUITS),
                           "description": "clubs, diamonds, hearts, spades"},
            SEAT: lambda: {"type": "integer", "minimum": 0, "maximum": n - 1},
            PLAYERS: lambda: {"type": "integer", "minimum": self.info.min_players, "maximum": n},
            PHASE: lambda: {"type": "string", "enum": self.phases()},
            DIRECTION: lambda: {"type": "string", "enum": self.directions(),
                                "description": "where this round's pass goes; hold: no pass"},
            GAME: lambda: {"type": "string", "enum": [self.game_id]},
            OPTIONS: self.options,
        }
        return leaves[name]()

    # ----- from the shapes --------------------------------------------------------------------------------
    def ref(self, name: str, build: Callable[[], Schema] | None = None) -> Schema:
        if name not in self.defs:
            self.defs[name] = {}  # reserved first: a shape may refer to itself
            self.defs[name] = (build or (lambda: self.leaf(name)))()
        return {"$ref": f"#/$defs/{name}"}

    def convert(self, tp: Any, key: str, owner: str) -> Schema:
        """The schema of annotation ``tp`` of key ``key`` of shape ``owner``."""
        where = f"{owner}.{key}"
        if tp is type(None):
            return {"type": "null"}
        origin = get_origin(tp)
        if origin in (types.UnionType, typing.Union):
            members = [a for a in get_args(tp) if a is not type(None)]
            if len(members) != 1:
                raise SchemaError(f"{where}: a union of {members} has no one schema here")
            inner = self.convert(members[0], key, owner)
            return _nullable(inner) if len(members) < len(get_args(tp)) else inner
        if origin is list:
            (item,) = get_args(tp)
            return {"type": "array", "items": self.convert(item, key, owner)}
        if origin is dict and key == "options":
            return self.ref(OPTIONS)
        if is_typeddict(tp):
            return self.ref(tp.__name__, lambda: self.shape(tp))
        if tp is bool:
            return {"type": "boolean"}
        if isinstance(tp, type) and issubclass(tp, Phase):
            return self.ref(PHASE)
        if tp is str and key in STR_LEAVES:
            return self.ref(STR_LEAVES[key])
        if tp is int and key in INT_LEAVES:
            domain = INT_LEAVES[key]
            return self.ref(domain) if isinstance(domain, str) else dict(domain)
        raise SchemaError(f"{where}: no schema for {tp!r} (give the key a domain in core/viewschema.py)")

    def keys(self, shape: Any) -> dict[str, tuple[Any, bool]]:
        """The keys of ``shape`` this game's objects have: (annotation, always present)."""
        out: dict[str, tuple[Any, bool]] = {}
        for key, (tp, required) in fields(shape).items():
            if required:
                out[key] = (tp, True)
            elif key in TABLE_OPTIONAL:
                if key in self.public_keys:  # a table key of this game: in every view of it
                    out[key] = (tp, True)
            elif key in SEAT_KEYS and shape is shapes.SeatView:
                if SEAT_KEYS[key](self.rules):
                    out[key] = (tp, False)
            else:
                raise SchemaError(f"{shape.__name__}.{key}: optional, and no rule here says when")
        return out

    def shape(self, shape: Any, overrides: Schema | None = None) -> Schema:
        """A TypedDict as a closed object schema; ``overrides`` replace the schemas of some keys."""
        keys = self.keys(shape)
        props = {key: (overrides or {}).get(key) or self.convert(tp, key, shape.__name__)
                 for key, (tp, _) in keys.items()}
        out: Schema = {"type": "object", "properties": props,
                       "required": [key for key, (_, always) in keys.items() if always],
                       "additionalProperties": False}
        doc = (shape.__doc__ or "").strip()
        if doc:
            out["description"] = " ".join(doc.split())
        return out

    def move(self, kind: str) -> Schema:
        """The ``Move`` alias's member for a decision kind: ``count`` cards for a pass, else one code."""
        members = get_args(shapes.Move)
        want = list if kind == Phase.PASS else str
        (member,) = [m for m in members if (get_origin(m) or m) is want]
        schema = self.convert(member, "card", "Move")
        if want is list:
            n = self.count(kind)
            schema.update(minItems=n, maxItems=n, uniqueItems=True, description=f"the {n} cards to pass")
            return schema
        return {"allOf": [schema], "description": "the card to play or lay"}

    def decisions(self) -> None:
        """``Decision``: one variant per kind the game has; ``Move``: a card code (``CardMove``, the answer to
        a play or sore decision) or a list of ``count`` cards (``PassMove``)."""
        variants, moves = [], []
        for kind in self.decision_kinds():
            name = f"{kind.capitalize()}Decision"
            n = self.count(kind)
            legal = {"type": "array", "items": self.ref(CARD), "minItems": n, "uniqueItems": True}
            overrides = {"kind": {"type": "string", "enum": [kind]},
                         "count": {"type": "integer", "enum": [n]}, "legal": legal}
            self.ref(name, lambda overrides=overrides: self.shape(shapes.Decision, overrides))  # type: ignore[misc]
            variants.append({"$ref": f"#/$defs/{name}"})
            move = "PassMove" if kind == Phase.PASS else "CardMove"
            if move not in moves:
                moves.append(move)
                self.ref(move, lambda kind=kind: self.move(kind))  # type: ignore[misc]
        doc = " ".join((shapes.Decision.__doc__ or "").split())
        self.defs["Decision"] = {"oneOf": variants, "description": doc}
        self.defs["Move"] = {"oneOf": [{"$ref": f"#/$defs/{m}"} for m in moves]}
        self.defs["MoveAnswer"] = {
            "type": "object", "properties": {"move": {"$ref": "#/$defs/Move"}}, "required": ["move"],
            "description": "a bot's answer to POST /move (other members are ignored)"}

    def document(self) -> Schema:
        self.decisions()  # first: the seat view's decision refers to them
        root = self.ref("SeatView", lambda: self.shape(shapes.SeatView))
        self.ref("SpectatorView", lambda: self.shape(shapes.SpectatorView))
        return {"$schema": DIALECT, "title": f"{self.info.name}: a seat's view",
                "description": f"What a seat of {self.info.name} sees ($defs: the spectator view, the "
                               "decision and the move it answers with).",
                **root, "$defs": dict(sorted(self.defs.items()))}


@cache
def _document(game_id: str) -> Schema:
    return _Builder(game_id).document()


def game_schema(game_id: str) -> Schema:
    """The JSON Schema of ``game_id``'s seat views (root) and of its spectator view, decision and move
    (``$defs``); raises :class:`engine.OptionsError` for an unknown game."""
    return copy.deepcopy(_document(game_id))


def definition(game_id: str, name: str) -> Schema:
    """A schema for one definition of the game's document (``Decision``, ``Move``), refs resolvable."""
    doc = _document(game_id)
    return {"$schema": DIALECT, "$ref": f"#/$defs/{name}", "$defs": copy.deepcopy(doc["$defs"])}


def _to_openapi(node: Any, game_id: str) -> Any:
    """A JSON Schema node rewritten for OpenAPI 3.0.3: a type list becomes ``nullable``; an alternative
    ``{"type": "null"}`` becomes ``{"type": T, "nullable": true, "enum": [null]}`` (3.0.3's one way to admit
    null beside a ``$ref``: ``nullable`` applies only next to its own ``type``); refs point at the game's
    components."""
    if isinstance(node, list):
        return [_to_openapi(item, game_id) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _to_openapi(v, game_id) for k, v in node.items()}
    if "$ref" in out:
        out["$ref"] = COMPONENTS + component_name(game_id, out["$ref"].rsplit("/", 1)[1])
    kind = out.get("type")
    if isinstance(kind, list):
        (out["type"],) = [t for t in kind if t != "null"]
        out["nullable"] = True
    alternatives = node.get("anyOf")
    if isinstance(alternatives, list) and {"type": "null"} in alternatives:
        rest = [a for a in alternatives if a != {"type": "null"}]
        del out["anyOf"]
        out["oneOf"] = [*_to_openapi(rest, game_id),
                        {"type": _type_of(rest[0], game_id), "nullable": True, "enum": [None]}]
    return out


def _type_of(node: Schema, game_id: str) -> str:
    """The JSON type a (referenced) schema admits, ``object`` where it does not say."""
    if "$ref" in node:
        node = _document(game_id)["$defs"][node["$ref"].rsplit("/", 1)[1]]
    kind = node.get("type", "object")
    return kind if isinstance(kind, str) else "object"


def openapi_components(game_id: str) -> dict[str, Schema]:
    """The game's definitions as OpenAPI 3.0.3 components, named by :func:`component_name`."""
    return {component_name(game_id, name): _to_openapi(schema, game_id)
            for name, schema in _document(game_id)["$defs"].items()}
