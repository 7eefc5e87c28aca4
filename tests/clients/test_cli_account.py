"""``trick-arena account ...`` and bots managed with the account key, against a real service on 127.0.0.1:
the key is saved to a 0600 file (or printed once when asked), never printed again."""

from __future__ import annotations

import stat

import pytest
from click.testing import CliRunner
from rich.console import Console
from trickarena import ArenaClient

from clients.cli import main


@pytest.fixture(autouse=True)
def wide_console(monkeypatch) -> None:
    import clients.cli

    monkeypatch.setattr(clients.cli, "console", Console(width=200, force_terminal=False))


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result.output


def test_an_account_from_the_command_line(live_server, tmp_path) -> None:
    key_file = tmp_path / "config" / "trick-arena" / "key"
    cli = ("--api", live_server, "--key-file", str(key_file))
    out = run(*cli, "account", "create")
    key = key_file.read_text().strip()
    assert f"saved to {key_file}" in out and key not in out
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) == 0o700
    assert "already saved" in run(*cli, "account", "create", code=1), "never overwrites a saved key"
    outputs = [run(*cli, "register", "keyed-bot", "--game", "spot-hearts")]
    assert "your account key manages it" in outputs[0] and "owner token" not in outputs[0]
    with ArenaClient(live_server) as api:
        bot_id = api.account_bots(key)[0].bot_id
        outputs.append(run(*cli, "update", bot_id, "--disable", "--game", "sore-spot"))
        assert api.bot(bot_id).games == ["sore-spot"] and not api.bot(bot_id).enabled
        outputs.append(run(*cli, "account", "show"))
        assert "1 of 1000 bots" in outputs[-1]
        outputs.append(run(*cli, "account", "bots"))
        assert "keyed-bot" in outputs[-1]
        # An old bot, registered without the account, adopted by its owner token.
        old = api.register_bot("old-bot", ["card-commons"])
        outputs.append(run(*cli, "account", "adopt", old.bot_id, "--owner-token", old.owner_token))
        assert {bot.name for bot in api.account_bots(key)} == {"keyed-bot", "old-bot"}
        outputs.append(run(*cli, "delete", bot_id))
        assert [bot.name for bot in api.account_bots(key)] == ["old-bot"]
        outputs.append(run(*cli, "account", "rotate"))
        new = key_file.read_text().strip()
        assert new != key and api.account(new).bots == 1
        for out in outputs:
            assert key not in out and new not in out, "the key is never printed"
        adopted_token = run(*cli, "update", old.bot_id, "--disable", "--token", old.owner_token, code=1)
        assert "API error 403" in adopted_token, "the adopted bot's owner token no longer works"
        run(*cli, "account", "revoke", "--yes")
        assert not key_file.exists()
    refused = run(*cli, "account", "show", code=1)
    assert "no account key" in refused and "trick-arena account create" in refused


def test_print_key_prints_it_once_and_the_environment_key_is_used(live_server, tmp_path, monkeypatch) -> None:
    key_file = tmp_path / "key"
    cli = ("--api", live_server, "--key-file", str(key_file))
    out = run(*cli, "account", "create", "--print-key")
    assert "shown once" in out and not key_file.exists()
    key = out.split("): ")[-1].strip()
    monkeypatch.setenv("TRICK_ARENA_KEY", key)
    assert "0 of" in run(*cli, "account", "show")
    out = run(*cli, "register", "env-bot", "--game", "sore-spot")
    assert key not in out
    with ArenaClient(live_server) as api:
        assert [bot.name for bot in api.account_bots(key)] == ["env-bot"]
    no_account = run(*cli, "register", "anon-bot", "--game", "sore-spot", "--no-account")
    assert "owner token (shown once)" in no_account


def test_wrong_keys_and_options_answer_in_one_line(live_server, tmp_path, monkeypatch) -> None:
    cli = ("--api", live_server, "--key-file", str(tmp_path / "key"))
    monkeypatch.setenv("TRICK_ARENA_KEY", "not-a-key")
    assert "API error 403" in run(*cli, "account", "show", code=1)
    assert "API error 403" in run(*cli, "register", "x-bot", "--game", "sore-spot", code=1)
    assert "nothing to change" in run(*cli, "update", "some-bot", code=2)
    assert "No such option" in run(*cli, "account", "create", "--bogus", code=2)
