"""The two SDKs at parity with the service and with each other.

* Every public route of `create_app()`'s OpenAPI document (all but the operator's `/api/admin/...` and
  `/metrics`) has a method in the Python SDK's `ENDPOINTS` and in the JavaScript SDK's (read by running node),
  the same method under each SDK's naming, and nothing else; a failure lists exactly the routes missing.
* The command lines take the same options for the same commands: `trick-arena` (click) and `npx trickarena`
  (clients/js/src/cli.js), and a bot's own `python my_bot.py …` (argparse) and `node my_bot.js …`.
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

import click
import pytest
from trickarena import ArenaClient, Bot
from trickarena.api import ENDPOINTS
from trickarena.run import build_parser

from clients.cli import main as python_cli
from tests.clients.nodejs import SDK, run_node

OPERATOR_ONLY = re.compile(r"^/api/admin/|^/metrics$")
HTTP_METHODS = ("get", "post", "put", "patch", "delete")

JS_ENDPOINTS = """
const { ArenaClient, ENDPOINTS } = require(process.argv[1]);
const client = new ArenaClient("http://127.0.0.1:9");
const methods = Object.fromEntries(Object.entries(ENDPOINTS).map(([route, name]) => [route,
  typeof client[name] === "function" ? name : `${name} (not a method)`]));
console.log(JSON.stringify(methods));
"""
JS_CLI_OPTIONS = """
const { COMMANDS, GLOBAL_OPTIONS } = require(process.argv[1] + "/src/cli");
const run = require(process.argv[1] + "/src/run");
const names = (options) => Object.keys(options).filter((name) => name !== "help").map((name) => `--${name}`);
const cli = Object.fromEntries(Object.entries(COMMANDS).map(([name, c]) => [name,
  { options: [...names(GLOBAL_OPTIONS), ...names(c.options)].sort(), args: c.args }]));
const bot = Object.fromEntries(Object.entries(run.COMMANDS).map(([name, options]) =>
  [name, names(options).sort()]));
console.log(JSON.stringify({ cli, bot }));
"""


@pytest.fixture(scope="module")
def public_routes() -> set[str]:
    """'METHOD /path' of every public operation in the service's OpenAPI document."""
    from api import create_app

    with create_app({"TESTING": True}).test_client() as client:
        answer = client.get("/api/openapi.json")
    assert answer.status_code == 200
    routes = {f"{method.upper()} {path}" for path, operations in answer.get_json()["paths"].items()
              for method in operations if method in HTTP_METHODS and not OPERATOR_ONLY.search(path)}
    assert "GET /api/games" in routes and "POST /api/bots" in routes, "not the service's document"
    return routes


@pytest.fixture(scope="module")
def js_endpoints(node: str) -> dict[str, str]:
    done = run_node(node, ["-e", JS_ENDPOINTS, str(SDK)], SDK, timeout=30)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def gaps(sdk: str, mapping: dict[str, str], routes: set[str]) -> str:
    """What keeps `mapping` from covering `routes` exactly, said in full (empty when nothing does)."""
    missing = sorted(routes - set(mapping))
    unknown = sorted(set(mapping) - routes)
    lines = [f"{sdk} SDK: no method for {route}" for route in missing]
    lines += [f"{sdk} SDK: a method for {route}, which the service does not serve" for route in unknown]
    return "\n".join(lines)


def test_the_python_sdk_has_a_method_for_every_public_route(public_routes: set[str]) -> None:
    problems = gaps("Python", ENDPOINTS, public_routes)
    assert not problems, "\n" + problems
    not_methods = {route: name for route, name in ENDPOINTS.items() if not callable(getattr(ArenaClient, name,
                                                                                             None))}
    assert not not_methods, f"ENDPOINTS names no ArenaClient method for {not_methods}"


def test_the_js_sdk_has_a_method_for_every_public_route(public_routes: set[str],
                                                        js_endpoints: dict[str, str]) -> None:
    problems = gaps("JavaScript", js_endpoints, public_routes)
    assert not problems, "\n" + problems
    not_methods = {route: name for route, name in js_endpoints.items() if "not a method" in name}
    assert not not_methods, f"ENDPOINTS names no ArenaClient method for {not_methods}"


def test_the_js_types_declare_every_endpoint_method(js_endpoints: dict[str, str]) -> None:
    """Editors see each method: clients/js/index.d.ts declares every method of `ENDPOINTS`."""
    declared = set(re.findall(r"^  (\w+)\(", (SDK / "index.d.ts").read_text(), re.M))
    assert set(js_endpoints.values()) - declared == set()


def test_both_sdks_call_each_route_with_the_same_method(js_endpoints: dict[str, str]) -> None:
    """The same table under each language's naming: `bot_matches` in Python is `botMatches` in JavaScript."""
    assert set(js_endpoints) == set(ENDPOINTS), set(js_endpoints) ^ set(ENDPOINTS)
    differ = {route: (name, js_endpoints[route]) for route, name in ENDPOINTS.items()
              if camel(name) != js_endpoints[route]}
    assert not differ, differ


def test_the_parity_check_names_exactly_what_is_missing() -> None:
    """The failure message of the checks above, on a table without two routes and with a stale one."""
    routes = {"GET /api/games", "POST /api/challenges", "GET /api/challenges/{challenge_id}"}
    mapping = {"GET /api/games": "games", "GET /api/gone": "gone"}
    assert gaps("Python", mapping, routes).splitlines() == [
        "Python SDK: no method for GET /api/challenges/{challenge_id}",
        "Python SDK: no method for POST /api/challenges",
        "Python SDK: a method for GET /api/gone, which the service does not serve"]


# --- the command lines ------------------------------------------------------------------------------------

def click_commands(group: click.Group, prefix: str = "") -> dict[str, click.Command]:
    """Every command of a click group, subcommands as 'account create'."""
    found: dict[str, click.Command] = {}
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found.update(click_commands(command, f"{prefix}{name} "))
        else:
            found[f"{prefix}{name}"] = command
    return found


def click_options(command: click.Command) -> list[str]:
    return [opt for param in command.params if isinstance(param, click.Option)
            for opt in (*param.opts, *param.secondary_opts) if opt.startswith("--") and opt != "--help"]


def argparse_options(parser: argparse.ArgumentParser) -> dict[str, list[str]]:
    [subparsers] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {name: sorted(opt for action in sub._actions for opt in action.option_strings
                         if opt.startswith("--") and opt != "--help")
            for name, sub in subparsers.choices.items()}


@pytest.fixture(scope="module")
def js_command_lines(node: str) -> dict[str, Any]:
    done = run_node(node, ["-e", JS_CLI_OPTIONS, str(SDK)], SDK, timeout=30)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_shared_commands_take_the_same_options_in_both_command_lines(js_command_lines: dict[str, Any],
                                                                     ) -> None:
    python = click_commands(python_cli)
    group_options = click_options(python_cli)  # --api, --key-file: before the command in Python
    js = js_command_lines["cli"]
    shared = sorted(set(python) & set(js))
    # What a JavaScript author needs without Python: never fewer than these.
    assert {"register", "update", "delete", "games", "account create", "account show", "account bots",
            "account adopt", "account rotate", "account revoke"} <= set(shared), shared
    differ = {}
    for name in shared:
        options = sorted({*group_options, *click_options(python[name])})
        arguments = [p.name.upper() for p in python[name].params if isinstance(p, click.Argument)]
        if options != js[name]["options"] or arguments != js[name]["args"]:
            differ[name] = {"python": (options, arguments), "js": (js[name]["options"], js[name]["args"])}
    assert not differ, json.dumps(differ, indent=1)


class _Any(Bot):
    name = "any"

    def choose(self, view: Any) -> Any:
        return view["decision"]["legal"][0]


def test_a_bot_takes_the_same_options_in_python_and_javascript(js_command_lines: dict[str, Any]) -> None:
    """`python my_bot.py practice --options JSON …` and `node my_bot.js practice --options JSON …`."""
    python = argparse_options(build_parser(_Any()))
    assert python == js_command_lines["bot"]
    assert "--options" in python["practice"]
