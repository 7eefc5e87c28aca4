"""GET /api/games/{id}/schema serves each game's view schema, and the OpenAPI doc types views per game."""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import pytest
from api_helpers import assert_problem, bearer, join, open_table

import engine
from core import viewschema


@pytest.mark.parametrize("game", list(engine.GAMES))
def test_the_schema_endpoint_serves_the_games_document(client: Any, game: str) -> None:
    response = client.get(f"/api/games/{game}/schema")
    assert response.status_code == 200
    body = response.get_json()
    assert body == viewschema.game_schema(game)
    jsonschema.Draft202012Validator.check_schema(body)
    assert body["$ref"] == "#/$defs/SeatView"


def test_an_unknown_game_has_no_schema(client: Any) -> None:
    assert_problem(client.get("/api/games/euchre/schema"), 404, "game-not-found")


@pytest.mark.parametrize(("game", "players"), [("sore-spot", 3), ("spot-hearts", 4), ("sloppy-seconds", 3)])
def test_a_seat_state_and_a_table_validate_against_the_served_schema(client: Any, game: str,
                                                                     players: int) -> None:
    schema = client.get(f"/api/games/{game}/schema").get_json()
    table = open_table(client, ["open"] * players, game=game)
    tokens = [join(client, table["table_id"], seat) for seat in range(players)]
    url = f"/api/tables/{table['table_id']}/seats"
    states = [client.get(f"{url}/{seat}", headers=bearer(tokens[seat])).get_json() for seat in range(players)]
    for state in states:
        jsonschema.validate(state["view"], schema)
    decision = states[table["to_act"][0]]["view"]["decision"]
    jsonschema.validate(decision, viewschema.definition(game, "Decision"))
    move = decision["legal"][: decision["count"]] if decision["kind"] == "pass" else decision["legal"][0]
    jsonschema.validate(move, viewschema.definition(game, "Move"))
    public = client.get(f"/api/tables/{table['table_id']}").get_json()["view"]
    jsonschema.validate(public, viewschema.definition(game, "SpectatorView"))


def test_openapi_types_views_per_game_with_a_discriminator(client: Any) -> None:
    spec = client.get("/api/openapi.json").get_json()
    components = spec["components"]["schemas"]
    for schema, view in (("SeatState", "SeatView"), ("Table", "SpectatorView")):
        field = components[schema]["properties"]["view"]
        assert field["discriminator"]["propertyName"] == "game"
        mapping = field["discriminator"]["mapping"]
        assert set(mapping) == set(engine.GAMES)
        assert [alt["$ref"] for alt in field["oneOf"]] == list(mapping.values())
        for game, ref in mapping.items():
            name = ref.rsplit("/", 1)[1]
            assert name == viewschema.component_name(game, view)
            assert components[name]["properties"]["game"] == {
                "$ref": f"#/components/schemas/{viewschema.component_name(game, 'GameId')}"}


def test_openapi_components_resolve_and_use_no_json_schema_2020_keywords(client: Any) -> None:
    spec = client.get("/api/openapi.json").get_json()
    components = spec["components"]["schemas"]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            assert not {"$defs", "const", "prefixItems", "$schema"} & set(node), node
            assert not isinstance(node.get("type"), list), node  # 3.0.3: one type, nullable for null
            if node.get("nullable"):
                assert "type" in node, node  # nullable means nothing without its own type
            ref = node.get("$ref")
            if isinstance(ref, str):
                assert ref.startswith("#/components/schemas/") and ref.rsplit("/", 1)[1] in components, ref
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    view_components = {name for game in engine.GAMES for name in viewschema.openapi_components(game)}
    assert view_components <= set(components)
    walk({name: components[name] for name in view_components})
    walk(spec["components"]["schemas"]["SeatState"])


def test_the_endpoint_is_documented_where_it_is_served(client: Any) -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    api_md = (root / "docs" / "api.md").read_text()
    assert "| `GET /api/games/{game}/schema` |" in api_md and "## View schemas" in api_md
    assert "`GET /api/games/{game}/schema`" in (root / "docs" / "bot-protocol.md").read_text()
    for doc in ("api.md", "bot-protocol.md"):
        text = (root / "docs" / doc).read_text()
        for path in re.findall(r"`((?:core|tools|api|engine)/[\w./-]+\.py)`", text):
            assert (root / path).exists(), f"{doc} names missing {path}"
    assert "/api/games/{game_id}/schema" in client.get("/api/openapi.json").get_json()["paths"]
