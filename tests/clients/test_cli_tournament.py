"""``trick-arena tournament create|show|standings`` against a real service on 127.0.0.1 and a real tournaments
worker: an event of house bots created from the command line, shown while it plays and ranked at its end;
wrong options and refusals answered in one line."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from rich.console import Console
from trickarena import ArenaClient

from clients.cli import main
from tests.waiting import wait_until

HOUSE = ("heuristic", "random", "eps-0.1", "eps-0.3", "eps-0.5", "eps-0.7", "eps-0.9")


@pytest.fixture(autouse=True)
def wide_console(monkeypatch) -> None:
    import clients.cli.tournaments

    monkeypatch.setattr(clients.cli.tournaments, "console", Console(width=200, force_terminal=False))
    monkeypatch.setattr(clients.cli, "console", Console(width=200, force_terminal=False))


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result.output


def one_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one line, got:\n{output}"
    return lines[0]


def test_an_event_created_shown_and_ranked_from_the_command_line(live_server, tournament_worker,
                                                                  tmp_path) -> None:
    cli = ("--api", live_server, "--key-file", str(tmp_path / "key"))
    run(*cli, "account", "create")
    out = run(*cli, "tournament", "create", *HOUSE, "--game", "sore-spot", "--format", "swiss",
              "--rounds", "2", "--players", "3", "--name", "cli-event", "--options", '{"rounds": 1}')
    found = re.search(r"tournament (t[0-9a-f]+) running: (\S+)", out)
    assert found, out
    event_id, page = found.groups()
    assert page == f"{live_server}/tournaments/{event_id}"
    shown = run(*cli, "tournament", "show", event_id)
    assert "cli-event · swiss · sore-spot · running" in shown and "round 1 (playing)" in shown
    assert f"{event_id}r0t0" in shown and f"{event_id}r0t1" in shown and "queued" in shown
    assert "round 2" not in shown and "standings" in shown
    before = run(*cli, "tournament", "standings", event_id)
    assert f"{event_id} · running · 0 rounds over" in before

    tournament_worker()
    with ArenaClient(live_server) as api:
        wait_until(lambda: api.tournament(event_id)["status"] == "finished", 60, "the event over")
        event = api.tournament(event_id)
    after = run(*cli, "tournament", "standings", event_id)
    assert f"{event_id} · finished · 2 rounds over" in after
    rows = [line for line in after.splitlines() if re.match(r"^\W*\d+\W", line)]
    assert len(rows) == len(HOUSE)
    for row, line in zip(event["standings"], rows, strict=True):
        assert row["name"] in line and f"{row['points']:g}" in line
    shown = run(*cli, "tournament", "show", event_id)
    assert "round 1 (done)" in shown and "round 2 (done)" in shown and "played" in shown
    assert "bye: " in shown  # seven bots at tables of three: a bye a round


def test_wrong_options_and_refusals_answer_in_one_line(live_server, tmp_path) -> None:
    cli = ("--api", live_server, "--key-file", str(tmp_path / "key"))
    assert "no account key" in one_line(run(*cli, "tournament", "create", *HOUSE, "--game", "sore-spot",
                                            "--format", "swiss", "--rounds", "1", code=1))
    run(*cli, "account", "create")
    bogus = one_line(run(*cli, "tournament", "create", *HOUSE, "--bogus", code=2))
    assert "No such option '--bogus'" in bogus
    assert "'knockout' is not one of" in one_line(run(*cli, "tournament", "create", *HOUSE, "--game",
                                                      "sore-spot", "--format", "knockout", code=2))
    assert "name at least 4 bots" in one_line(run(*cli, "tournament", "create", "random", "heuristic",
                                                  "--game", "sore-spot", "--format", "swiss", "--rounds", "1",
                                                  code=2))
    refused = one_line(run(*cli, "tournament", "create", *HOUSE, "--game", "sore-spot", "--format", "swiss",
                           code=1))
    assert refused.startswith("API error 422") and "names its rounds" in refused
    assert one_line(run(*cli, "tournament", "show", "tnothing", code=1)).startswith("API error 404")
    assert one_line(run(*cli, "tournament", "standings", "tnothing", code=1)).startswith("API error 404")
