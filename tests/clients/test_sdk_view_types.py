"""The SDKs' view types agree with the games' view schemas (core/viewschema.py): the same keys, the same
optional ones, the same values for enumerated fields (phase, decision kind, pass direction, suits, game ids)
and the same nullability, in the Python SDK's TypedDicts and in the JavaScript SDK's index.d.ts.

A key's facts are compared, not its full type: ``(required, nullable, literals, items nullable)``, where
``literals`` are the string values of an enumerated field (card codes stay plain strings in both SDKs).
Across games: a key is required when every game's schema requires it, and takes the union of their values.
"""

from __future__ import annotations

import re
import types as pytypes
import typing
from pathlib import Path
from typing import Any, Literal, NotRequired, get_args, get_origin, get_type_hints

import pytest
from trickarena import types

import engine
from core import viewschema

ROOT = Path(__file__).resolve().parents[2]
DTS = ROOT / "clients" / "js" / "index.d.ts"

#: SDK type name -> the schema definition it mirrors.
SHAPES = {"View": "SeatView", "Decision": "Decision", "Trick": "Trick", "CurrentTrick": "CurrentTrick",
          "TrickCard": "TrickCard", "RoundPoints": "RoundPoints"}
#: Enumerations the SDKs leave as plain strings (52 codes).
OPEN = {"Card"}

Facts = tuple[bool, bool, frozenset[str], bool]  # required, nullable, literals, items nullable


# ----- the schemas --------------------------------------------------------------------------------------

def schema_node_facts(node: dict[str, Any], defs: dict[str, Any]) -> tuple[bool, set[str], bool]:
    """(nullable, string literals, items nullable) of a schema node, refs followed."""
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[1]
        target = defs[name]
        nullable, literals, items = schema_node_facts(target, defs)
        return nullable, set() if name in OPEN else literals, items
    nullable, literals, items = False, set(), False
    for alt in node.get("anyOf", []) + node.get("oneOf", []) + node.get("allOf", []):
        n, lit, it = schema_node_facts(alt, defs)
        nullable, literals, items = nullable or n, literals | lit, items or it
    kind = node.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        nullable = True
    literals |= {v for v in node.get("enum", []) if isinstance(v, str)}
    if "items" in node:
        items_null, item_literals, _ = schema_node_facts(node["items"], defs)
        literals |= item_literals
        items = items or items_null
    return nullable, literals, items


def object_variants(name: str, defs: dict[str, Any]) -> list[dict[str, Any]]:
    """The object schemas of a definition: itself, or its ``oneOf`` variants (``Decision``)."""
    node = defs[name]
    if "oneOf" in node:
        return [defs[alt["$ref"].rsplit("/", 1)[1]] for alt in node["oneOf"]]
    return [node]


def schema_facts(definition: str) -> dict[str, Facts]:
    per_key: dict[str, list[tuple[bool, bool, set[str], bool]]] = {}
    games = 0
    for game in engine.GAMES:
        defs = viewschema.game_schema(game)["$defs"]
        for variant in object_variants(definition, defs):
            games += 1
            for key, prop in variant["properties"].items():
                required = key in variant["required"]
                per_key.setdefault(key, []).append((required, *schema_node_facts(prop, defs)))
    return {key: (len(seen) == games and all(r for r, *_ in seen), any(n for _, n, _, _ in seen),
                  frozenset(set().union(*(lit for *_, lit, _ in seen))), any(i for *_, i in seen))
            for key, seen in per_key.items()}


# ----- the Python SDK -----------------------------------------------------------------------------------

def python_type_facts(tp: Any) -> tuple[bool, set[str], bool]:
    origin = get_origin(tp)
    if origin in (pytypes.UnionType, typing.Union):
        args = get_args(tp)
        nullable = type(None) in args
        literals: set[str] = set()
        items = False
        for arg in args:
            if arg is not type(None):
                n, lit, it = python_type_facts(arg)
                nullable, literals, items = nullable or n, literals | lit, items or it
        return nullable, literals, items
    if origin is Literal:
        return False, {a for a in get_args(tp) if isinstance(a, str)}, False
    if origin is list:
        items_null, literals, _ = python_type_facts(get_args(tp)[0])
        return False, literals, items_null
    return False, set(), False


def python_facts(name: str) -> dict[str, Facts]:
    out: dict[str, Facts] = {}
    for key, tp in get_type_hints(getattr(types, name), include_extras=True).items():
        required = get_origin(tp) is not NotRequired
        nullable, literals, items = python_type_facts(tp if required else get_args(tp)[0])
        out[key] = (required, nullable, frozenset(literals), items)
    return out


# ----- the JavaScript SDK: index.d.ts, read with a few regular expressions ------------------------------

def strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))


def split_top(text: str, separators: str) -> list[str]:
    """``text`` split at the separators that are not inside <>, (), [] or {}."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += ch in "<([{"
        depth -= ch in ">)]}"
        if depth == 0 and ch in separators:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [p.strip() for p in [*parts, current] if p.strip()]


def dts() -> tuple[dict[str, str], dict[str, dict[str, tuple[bool, str]]]]:
    """The type aliases (name -> type text) and interfaces (name -> member -> (optional, type text))."""
    text = strip_comments(DTS.read_text())
    aliases = dict(re.findall(r"export type (\w+) = ([^;]+);", text))
    interfaces: dict[str, dict[str, tuple[bool, str]]] = {}
    interface = r"export interface (\w+)(?: extends [\w, ]+)? \{((?:[^{}]|\{[^{}]*\})*)\}"
    for name, body in re.findall(interface, text):
        members = {}
        for member in split_top(body, ";\n"):
            found = re.fullmatch(r"(\w+)(\??):\s*(.+)", member, flags=re.S)
            if found:  # methods (name(...): ...) are not data
                members[found[1]] = (found[2] == "?", " ".join(found[3].split()))
        interfaces[name] = members
    return aliases, interfaces


def js_type_facts(type_text: str, aliases: dict[str, str]) -> tuple[bool, set[str], bool]:
    nullable, literals, items = False, set(), False
    for part in split_top(type_text, "|"):
        if part == "null":
            nullable = True
        elif re.fullmatch(r'"[^"]*"', part):
            literals.add(part[1:-1])
        elif part.endswith("[]"):
            items_null, lit, _ = js_type_facts(part[:-2], aliases)
            literals, items = literals | lit, items or items_null
        elif (array := re.fullmatch(r"Array<(.+)>", part, flags=re.S)) is not None:
            items_null, lit, _ = js_type_facts(array[1], aliases)
            literals, items = literals | lit, items or items_null
        elif part in aliases:
            n, lit, it = js_type_facts(aliases[part], aliases)
            nullable, literals, items = nullable or n, literals | lit, items or it
    return nullable, literals, items


def js_facts(name: str) -> dict[str, Facts]:
    aliases, interfaces = dts()
    out: dict[str, Facts] = {}
    for key, (optional, type_text) in interfaces[name].items():
        nullable, literals, items = js_type_facts(type_text, aliases)
        out[key] = (not optional, nullable, frozenset(literals), items)
    return out


# ----- the checks -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("sdk", "definition"), list(SHAPES.items()))
def test_python_sdk_types_agree_with_the_schemas(sdk: str, definition: str) -> None:
    assert python_facts(sdk) == schema_facts(definition)


@pytest.mark.parametrize(("sdk", "definition"), list(SHAPES.items()))
def test_javascript_sdk_types_agree_with_the_schemas(sdk: str, definition: str) -> None:
    assert js_facts(sdk) == schema_facts(definition)


def test_the_facts_see_what_they_compare() -> None:
    # The comparison is not vacuous: the parsed facts hold the enumerations and optional keys of the views.
    view = schema_facts("SeatView")
    assert view["phase"] == (True, False, frozenset({"sore", "pass", "play", "over"}), False)
    assert view["pass_direction"][2] == {"left", "right", "across", "hold"} and not view["pass_direction"][0]
    assert view["sore_cards"] == (False, False, frozenset(), True)
    assert view["decision"][1] and view["game"][2] == set(engine.GAMES)
    assert js_facts("View")["broken"] == (False, False, frozenset("CDHS"), False)
    assert python_facts("Decision")["kind"][2] == {"pass", "sore", "play"}


def test_a_disagreeing_declaration_is_caught() -> None:
    aliases, _ = dts()
    assert js_type_facts("Array<CardCode | null> | null", aliases) == (True, set(), True)
    assert js_type_facts('"left" | "up"', aliases)[1] != schema_facts("SeatView")["pass_direction"][2]
    assert python_type_facts(list[str] | None) == (True, set(), False)
