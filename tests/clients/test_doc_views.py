"""docs/bot-protocol.md's views are true: every JSON block that is a move request, a view or an answer matches
its game's schema, the examples are what `python -m tools.view_examples` makes, and together they show every
decision kind of every game."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import engine
from core import viewschema
from tools import view_examples

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "bot-protocol.md"
BEGIN = "<!-- view examples: python -m tools.view_examples -->\n"
END = "<!-- end of view examples -->"


def json_blocks(text: str) -> list[Any]:
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, flags=re.S)]


def check(value: Any, game: str, definition: str) -> None:
    jsonschema.validate(value, viewschema.definition(game, definition))


def checked_blocks() -> tuple[int, set[tuple[str, str]]]:
    """Check every request, view and answer of the doc; the number checked and the (game, kind) shown."""
    shown: set[tuple[str, str]] = set()
    checked = 0
    last: dict[str, Any] | None = None  # the decision of the request an answer answers, and its game
    for block in json_blocks(DOC.read_text()):
        if not isinstance(block, dict):
            continue
        if "protocol" in block and "view" in block:  # a POST /move request
            game, view, decision = block["game"], block["view"], block["decision"]
            check(view, game, "SeatView")
            check(decision, game, "Decision")
            assert view["decision"] == decision and block["legal"] == decision["legal"] == view["legal"]
            assert (view["game"], view["seat"]) == (game, block["seat"])
            last = {"game": game, "decision": decision}
        elif "hand" in block:  # a view
            game, view = block["game"], block
            check(view, game, "SeatView")
            last = {"game": game, "decision": view["decision"]} if view["decision"] else None
        elif set(block) == {"move"}:  # the answer to the request above
            assert last is not None, block
            check(block, last["game"], "MoveAnswer")
            move = block["move"]
            assert set(move if isinstance(move, list) else [move]) <= set(last["decision"]["legal"])
            checked += 1
            continue
        else:
            continue
        checked += 1
        if view["decision"]:
            shown.add((game, view["decision"]["kind"]))
    return checked, shown


def test_every_view_request_and_answer_of_the_doc_matches_its_schema() -> None:
    checked, _ = checked_blocks()
    # the examples, the two Spot Hearts requests and their answers
    assert checked >= len(view_examples.EXAMPLES) + 2 + 2


def test_the_doc_shows_every_decision_kind_of_every_game() -> None:
    _, shown = checked_blocks()
    wanted = {(game, kind) for game in engine.GAMES
              for kind in viewschema.game_schema(game)["$defs"]["Phase"]["enum"] if kind != "over"}
    assert shown == wanted


def test_the_examples_are_the_engines_own() -> None:
    text = DOC.read_text()
    assert BEGIN in text and END in text
    section = text.split(BEGIN, 1)[1].split(END, 1)[0]
    assert section == view_examples.render(), "run: python -m tools.view_examples, and paste its output"


@pytest.mark.parametrize("example", view_examples.EXAMPLES,
                         ids=[e.title[:30] for e in view_examples.EXAMPLES])
def test_each_example_is_a_valid_view(example: view_examples.Example) -> None:
    check(view_examples.view(example), example.game, "SeatView")


def test_a_spoiled_example_fails() -> None:
    view = view_examples.view(view_examples.EXAMPLES[2])  # Sloppy Seconds, trump set
    with pytest.raises(jsonschema.ValidationError):
        check({**view, "trump": "trumps"}, "sloppy-seconds", "SeatView")


def views_in(node: Any) -> list[dict[str, Any]]:
    """Every object in a JSON value that is a view: a game's public table, with a hand or without."""
    if isinstance(node, list):
        return [view for item in node for view in views_in(item)]
    if not isinstance(node, dict):
        return []
    own = [node] if {"game", "phase", "hand_sizes"} <= set(node) else []
    return own + [view for value in node.values() for view in views_in(value)]


def test_every_view_in_every_doc_matches_its_schema() -> None:
    docs = [*ROOT.glob("docs/**/*.md"), ROOT / "README.md", *ROOT.glob("clients/*/README.md")]
    seen = 0
    for doc in docs:
        for block in re.findall(r"```json\n(.*?)```", doc.read_text(), flags=re.S):
            try:
                value = json.loads(block)
            except json.JSONDecodeError:
                continue  # a sketch with placeholders ("..."): not a view this test can read
            for view in views_in(value):
                definition = "SeatView" if "hand" in view else "SpectatorView"
                try:
                    check(view, view["game"], definition)
                except jsonschema.ValidationError as error:
                    raise AssertionError(f"{doc.relative_to(ROOT)}: {error.message}") from None
                seen += 1
    assert seen >= len(view_examples.EXAMPLES) + 2


def test_the_table_of_game_specific_keys_is_true() -> None:
    text = DOC.read_text().split("The keys only some games have:", 1)[1].split("\n\n", 2)[1]
    names = {engine.GAMES[game].name: game for game in engine.GAMES}
    rows = [line.split("|")[1:3] for line in text.splitlines() if line.startswith("| `")]
    listed = {key: {names[name.strip()] for name in games.split(",")}
              for keys, games in rows for key in re.findall(r"`(\w+)`", keys)}
    keys = {game: set(viewschema.game_schema(game)["$defs"]["SeatView"]["properties"])
            for game in engine.GAMES}
    everywhere = set.intersection(*keys.values())
    assert listed == {key: {game for game in engine.GAMES if key in keys[game]}
                      for key in set.union(*keys.values()) - everywhere}
