"""Every ``trick-arena`` command, and the starters' command lines, answer a wrong input with one line and a
non-zero exit, never a traceback. The command list is read from the click group itself: a new command without
a wrong-input case here fails the test."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from clients.cli import main
from tests.ci import under_ci
from tests.clients.starters import EXAMPLES

U = "http://127.0.0.1:9"  # nothing listens on the discard port: a match fails before it calls anyone
FOUR = (U, U, U, U)
BOT = str(EXAMPLES / "sore_spot_bot.py")

# command path -> wrong inputs; "{api}" is a live service, "{busy}" a port in use, "{file}" a file not JSON.
BAD_INPUTS: dict[str, list[tuple[str, ...]]] = {
    "games": [("--api", "http://127.0.0.1:9", "games"), ("games", "extra")],
    "register": [("register", "x", "--game", "chess"), ("register", "x")],
    "update": [("update", "some-bot", "--url", "http://127.0.0.1:1"), ("update", "some-bot")],
    "challenge": [("challenge", "some-bot", "random", "--game", "sore-spot"),
                  ("challenge", "a", "random", "heuristic", "--game", "chess"),
                  ("challenge", "a", "random", "heuristic", "--game", "sore-spot", "--games", "0"),
                  ("challenge", "a", "random", "heuristic", "--game", "sore-spot", "--options", "{nope"),
                  ("challenge", "--show", "no-such-challenge")],
    "delete": [("delete", "no-such-bot", "--token", "t"), ("delete", "no-such-bot")],
    "serve": [("serve", BOT, "--port", "80000"), ("serve", BOT, "--port", "{busy}"),
              ("serve", "no_such_file.py")],
    "practice": [("practice", BOT, "--game", "chess"), ("practice", BOT, "--options", "[1]"),
                 ("practice", BOT, "--options", "{not json")],
    "match": [("match", *FOUR, "--game", "sore-spot", "--options", '{"target":60}'),
              ("match", U, U, "--game", "sore-spot"), ("match", *FOUR, "--game", "chess"),
              ("match", "not-a-url", U, U, U, "--game", "sore-spot"),
              ("match", *FOUR, "--game", "sore-spot", "--save-dir", "/proc/nope"),
              ("match", *FOUR, "--game", "sore-spot", "--games", "-3"),
              ("match", *FOUR, "--game", "sore-spot", "--games", "0"),
              ("match", *FOUR, "--game", "sore-spot", "--deadline-ms", "0"),
              ("match", *FOUR, "--game", "sore-spot", "--options", '{"rounds": -1}')],
    "ladder": [("ladder", "no-such-ladder")],
    "replay": [("replay", "--file", "{file}"), ("replay", "no-such-table"), ("replay",),
               ("replay", "--match", "m", "--game-no", "-1")],
    "analyse": [("analyse", "--table", "no-such-table", "--seat", "0"), ("analyse", "--seat", "-1"),
                ("analyse", "--seat", "0")],
    "account": [("account", "nothing")],
    "account create": [("account", "create", "--bogus")],
    "account show": [("account", "show")],
    "account bots": [("account", "bots")],
    "account adopt": [("account", "adopt", "b", "--owner-token", "t"), ("account", "adopt", "b")],
    "account rotate": [("account", "rotate")],
    "account revoke": [("account", "revoke", "--yes")],
    "bots": [("bots",), ("--api", "http://127.0.0.1:9", "bots")],
    "status": [("status", "no-such-bot"), ("status",)],
    "strikes": [("strikes", "no-such-bot"), ("strikes", "b", "--limit", "0")],
    "log": [("log", "no-such-match"), ("log", "m", "--game", "-1"), ("log", "m", "--token", "t"),
            ("log", "no-such-match", "--bot", "b", "--token", "t")],
    "pause": [("pause", "no-such-bot", "--token", "t"), ("pause", "no-such-bot")],
    "resume": [("resume", "no-such-bot", "--token", "t")],
    "set-url": [("set-url", "no-such-bot", "http://127.0.0.1:1", "--token", "t"), ("set-url", "b")],
    "export": [("export", "no-such-bot"), ("export", "b", "--limit", "0"),
               ("export", "b", "--cursor", "nope"), ("export", "b", "--since", "1", "--cursor", "c")],
    "tournament": [("tournament", "nothing")],
    "tournament create": [("tournament", "create", "a", "b", "c", "d", "--game", "sore-spot", "--format",
                           "swiss"),
                          ("tournament", "create", "random", "heuristic", "--game", "sore-spot", "--format",
                           "swiss", "--rounds", "1"),
                          ("tournament", "create", "a", "b", "c", "d", "--game", "sore-spot", "--format",
                           "knockout"),
                          ("tournament", "create", "a", "b", "c", "d", "--game", "sore-spot", "--format",
                           "swiss", "--options", "{nope")],
    "tournament show": [("tournament", "show", "no-such-event"), ("tournament", "show")],
    "tournament standings": [("tournament", "standings", "no-such-event")],
}


def command_paths(group: click.Group, prefix: str = "") -> Iterator[str]:
    """Every command of the group, subcommands of subgroups included (the groups themselves too)."""
    for name, command in group.commands.items():
        path = f"{prefix}{name}"
        yield path
        if isinstance(command, click.Group):
            yield from command_paths(command, f"{path} ")


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


def one_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one line, got:\n{output}"
    assert "Traceback" not in output
    return lines[0]


def test_every_command_has_wrong_inputs_here() -> None:
    assert set(command_paths(main)) == set(BAD_INPUTS)


def test_every_command_answers_a_wrong_input_in_one_line(live_server, tmp_path, busy_port) -> None:
    not_json = tmp_path / "record.json"
    not_json.write_text("this is not JSON {")
    values = {"{api}": live_server, "{busy}": str(busy_port), "{file}": str(not_json)}
    runner = CliRunner()
    for path, cases in BAD_INPUTS.items():
        for case in cases:
            args = [values.get(arg, arg) for arg in case]
            if "--api" not in args:
                args = ["--api", live_server, "--key-file", str(tmp_path / "no-key"), *args]
            result = runner.invoke(main, args)
            shown = f"{path}: {' '.join(args)}\n{result.output}"
            assert result.exit_code != 0, shown
            assert result.exception is None or isinstance(result.exception, SystemExit), shown
            line = one_line(result.output)
            assert line.startswith(("Error: ", "error: ", "API error ", "cannot reach the API")), shown


def test_the_messages_say_what_is_wrong(tmp_path) -> None:
    def out(*args: str) -> str:
        result = CliRunner().invoke(main, ["--key-file", str(tmp_path / "no-key"), *args])
        assert result.exit_code == 2, result.output
        return one_line(result.output)

    target = ("match", *FOUR, "--game", "sore-spot", "--options", '{"target":60}')
    assert "unknown option(s) for sore-spot: target" in out(*target)
    assert "played by 3 to 6 players, not 2" in out("match", U, U, "--game", "sore-spot")
    assert "unknown game 'chess'" in out("match", *FOUR, "--game", "chess")
    assert "'not-a-url'" in out("match", "not-a-url", U, U, U, "--game", "sore-spot")
    assert "cannot write to /proc/nope" in out("match", *FOUR, "--game", "sore-spot",
                                               "--save-dir", "/proc/nope")
    for option, value in (("--games", "-3"), ("--games", "0"), ("--deadline-ms", "0")):
        assert f"Invalid value for '{option}': {value} is not in the range" in out(
            "match", *FOUR, "--game", "sore-spot", option, value)
    assert "80000 is not in the range" in out("serve", BOT, "--port", "80000")


def test_the_installed_command_too(live_server, tmp_path, busy_port) -> None:
    """The console script itself (not click's test runner): stderr is one line, the exit status non-zero."""
    script = Path(sys.executable).with_name("trick-arena")
    env = {**os.environ, "TRICK_ARENA_API": live_server, "TRICK_ARENA_KEY_FILE": str(tmp_path / "no-key")}
    for args, code in ((["match", U, U, "--game", "sore-spot"], 2),
                       (["serve", BOT, "--port", str(busy_port)], 1),
                       (["status", "no-such-bot"], 1), (["bots"], 1)):
        done = subprocess.run([str(script), *args], capture_output=True, text=True, timeout=60, env=env)
        assert done.returncode == code, done.stderr
        assert done.stdout == ""
        line = one_line(done.stderr)
        if args[0] == "serve":
            assert f"cannot listen on 127.0.0.1:{busy_port}" in line


@pytest.fixture
def starter_runs(live_server, tmp_path) -> Callable[[list[str]], subprocess.CompletedProcess[str]]:
    """Runs a starter file (Python, or Node with `require("trickarena")` resolving to clients/js)."""
    modules = tmp_path / "node_modules"
    modules.mkdir()
    (modules / "trickarena").symlink_to(EXAMPLES.parent / "js", target_is_directory=True)
    shutil.copy(EXAMPLES / "sore_spot_bot.js", tmp_path / "sore_spot_bot.js")

    def start(command: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60)

    return start


@pytest.mark.parametrize("language", ["python", "node"])
def test_the_starters_answer_a_wrong_bot_id_or_game_in_one_line(language, live_server, starter_runs,
                                                                 busy_port) -> None:
    if language == "node":
        node = shutil.which("node") or shutil.which("nodejs")
        if node is None:
            if under_ci():
                pytest.fail("Node.js is needed for the JavaScript starters")
            pytest.skip("Node.js is not installed")
        starter = [node, "sore_spot_bot.js"]
    else:
        starter = [sys.executable, BOT]
    wrong_bot = ["ladder", "--api", live_server, "--bot-id", "no-such-bot", "--token", "t"]
    # An owner token may start with "-": the starters take it as the value of --token all the same.
    dashed = wrong_bot[:-1] + ["-t"]
    for args, status, says in ((dashed, 1, "404"), (wrong_bot, 1, "404"),
                               (["practice", "--api", live_server, "--game", "chess"], 1, "chess"),
                               (["serve", "--port", "80000"], 2, "80000"),
                               (["serve", "--port", str(busy_port)], 1, str(busy_port))):
        done = starter_runs([*starter, *args])
        assert done.returncode == status, (args, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr and "    at " not in done.stderr, done.stderr
        errors = [line for line in done.stderr.splitlines() if line.strip() and not line.startswith("usage")
                  and not line.startswith(" ")]
        assert len(errors) == 1 and says in errors[0], done.stderr


def test_the_pure_parts_say_what_their_docstrings_show() -> None:
    """one_line (any error as one line), status_text, strike_detail and the starter's values_joined: their
    examples are run here."""
    import doctest
    import importlib

    import clients.cli
    import clients.cli.mybots

    starter = importlib.import_module("trickarena.run")  # the package's `run` names the function
    for module in (clients.cli, clients.cli.mybots, starter):
        failed, tried = doctest.testmod(module)
        assert tried >= 2 and failed == 0, module.__name__
