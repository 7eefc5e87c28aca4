"""`python -m arena admin COMMAND`: the operator's moderation commands, straight on Redis (access to that
Redis is the authority: no token). Each prints one JSON document; a refused action prints one line, exit 1.

Design: docs/admin.md#commands
"""

from __future__ import annotations

import functools
import getpass
import json
import socket
from collections.abc import Callable
from typing import Any

import click


def default_actor() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no login name (a container's bare uid)
        user = "operator"
    return f"{user}@{socket.gethostname()}"


REASON = click.option("--reason", required=True, help="Why (kept in the audit log).")
ACTOR = click.option("--actor", default=None, help="Who acts, for the audit log (default: user@host).")
LIMIT = click.option("--limit", type=click.IntRange(1, 500), default=20, show_default=True)


def refusals_as_one_line(command: Callable[..., Any]) -> Callable[..., Any]:
    """A domain refusal or an unreachable Redis is one line on stderr and exit status 1, never a traceback."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        import redis

        from core.errors import DomainError

        try:
            return command(*args, **kwargs)
        except DomainError as error:
            raise click.ClickException(error.detail) from None
        except redis.RedisError as error:
            raise click.ClickException(f"Redis: {error}") from None

    return run


def _moderation() -> Any:
    from core.arena.moderation import Moderation
    from core.redis.connections import settings_client
    from core.settings import Settings

    settings = Settings.from_env()
    return Moderation(settings_client(settings), settings.prefix)


def _echo(value: Any) -> None:
    click.echo(json.dumps(value, indent=2))


@click.group("admin")
def admin() -> None:
    """Moderation on $REDIS_URL under $TA_KEY_PREFIX: suspend bots, hide names, void matches, read the
    boards and the audit log (docs/admin.md)."""


@admin.command("show")
@click.argument("bot_id")
@refusals_as_one_line
def show_command(bot_id: str) -> None:
    """A bot as the operator sees it: real name, public name, the owner's and the operator's flags."""
    _echo(_moderation().bot(bot_id))


def _suspend(bot_ids: tuple[str, ...], reason: str, actor: str | None, suspended: bool) -> None:
    moderation = _moderation()
    changed = moderation.suspend_bots(list(bot_ids), reason, actor or default_actor(), "cli",
                                      suspended=suspended)
    _echo({"changed": changed, "bots": [moderation.bot(bot_id) for bot_id in dict.fromkeys(bot_ids)]})


@admin.command("suspend")
@click.argument("bot_ids", nargs=-1, required=True)
@REASON
@ACTOR
@refusals_as_one_line
def suspend_command(bot_ids: tuple[str, ...], reason: str, actor: str | None) -> None:
    """Suspend bots (all or none): out of matchmaking at the scheduler's next tick, record and ratings
    kept; their owners cannot lift it."""
    _suspend(bot_ids, reason, actor, True)


@admin.command("unsuspend")
@click.argument("bot_ids", nargs=-1, required=True)
@REASON
@ACTOR
@refusals_as_one_line
def unsuspend_command(bot_ids: tuple[str, ...], reason: str, actor: str | None) -> None:
    """Lift the suspension of bots (all or none)."""
    _suspend(bot_ids, reason, actor, False)


def _suspend_account(account_id: str, reason: str, actor: str | None, suspended: bool) -> None:
    _echo(_moderation().suspend_account(account_id, reason, actor or default_actor(), "cli",
                                        suspended=suspended))


@admin.command("suspend-account")
@click.argument("account_id")
@REASON
@ACTOR
@refusals_as_one_line
def suspend_account_command(account_id: str, reason: str, actor: str | None) -> None:
    """Suspend an account: its API key manages nothing and each of its bots is suspended."""
    _suspend_account(account_id, reason, actor, True)


@admin.command("unsuspend-account")
@click.argument("account_id")
@REASON
@ACTOR
@refusals_as_one_line
def unsuspend_account_command(account_id: str, reason: str, actor: str | None) -> None:
    """Lift an account's suspension and the suspensions it gave its bots."""
    _suspend_account(account_id, reason, actor, False)


@admin.command("suspended")
@refusals_as_one_line
def suspended_command() -> None:
    """The ids of the suspended bots."""
    _echo(_moderation().suspended_bots())


def _hide(bot_id: str, reason: str, actor: str | None, hidden: bool) -> None:
    moderation = _moderation()
    changed = moderation.set_name_hidden(bot_id, hidden, reason, actor or default_actor(), "cli")
    _echo({**moderation.bot(bot_id), "changed": changed})


@admin.command("hide-name")
@click.argument("bot_id")
@REASON
@ACTOR
@refusals_as_one_line
def hide_name_command(bot_id: str, reason: str, actor: str | None) -> None:
    """Public views show hidden-<first 8 characters of the id> instead of the bot's name."""
    _hide(bot_id, reason, actor, True)


@admin.command("show-name")
@click.argument("bot_id")
@REASON
@ACTOR
@refusals_as_one_line
def show_name_command(bot_id: str, reason: str, actor: str | None) -> None:
    """Show a hidden name again."""
    _hide(bot_id, reason, actor, False)


@admin.command("void")
@click.argument("match_id")
@REASON
@ACTOR
@refusals_as_one_line
def void_command(match_id: str, reason: str, actor: str | None) -> None:
    """Void a rated match: its rating changes and its match and win counts undone exactly, atomically."""
    doc = _moderation().void_match(match_id, reason, actor or default_actor(), "cli")
    _echo({"match_id": doc["match_id"], "ladder_id": doc["ladder_id"], "status": doc["status"],
           "voided": doc["voided"]})


@admin.command("strikes")
@LIMIT
@refusals_as_one_line
def strikes_command(limit: int) -> None:
    """The bots with the most strikes over every ladder, most first."""
    _echo(_moderation().most_strikes(limit))


@admin.command("refusals")
@LIMIT
@refusals_as_one_line
def refusals_command(limit: int) -> None:
    """The client addresses the per-address rate limits and the bot quota refused most, most first."""
    from core.arena.audit import top_refusals

    moderation = _moderation()
    _echo(top_refusals(moderation.redis, moderation.prefix, limit))


@admin.command("audit")
@click.option("--limit", type=click.IntRange(1, 500), default=50, show_default=True)
@click.option("--before", default=None, help="An entry id: the page of entries older than it.")
@refusals_as_one_line
def audit_command(limit: int, before: str | None) -> None:
    """Every operator action (API and CLI), newest first."""
    _echo(_moderation().audit.entries(limit, before))
