"""``trick-arena account ...``: open an account, show it, list its bots, adopt an old bot, rotate or revoke
its key. The key lives in ``$TRICK_ARENA_KEY`` or the key file (clients/cli/keyfile.py) and is printed only
when asked to (``--print-key``), once, at creation or rotation."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table
from trickarena.types import AccountKey, BotRecord

import clients.cli as cli
from clients.cli.keyfile import KEY_ENV, read_key, write_key


def key_file(ctx: click.Context) -> Path:
    return Path(ctx.find_root().obj["key_file"])


def account_key(ctx: click.Context) -> str:
    """The account's key (environment, then key file), or a one-line refusal saying how to get one."""
    key, _source = read_key(key_file(ctx))
    if key is None:
        raise click.ClickException(f"no account key: set ${KEY_ENV}, or open an account with "
                                   f"`trick-arena account create` (it saves the key to {key_file(ctx)})")
    return key


def _hand_over(ctx: click.Context, created: AccountKey, print_key: bool) -> None:
    """Save the new key to the key file, or print it once when asked to; never both, never again."""
    if print_key:
        cli.console.print(f"API key (shown once, not saved: keep it secret, e.g. in ${KEY_ENV}): "
                          f"[yellow]{created.api_key}[/yellow]", soft_wrap=True)
        return
    path = key_file(ctx)
    write_key(path, created.api_key)
    cli.console.print(f"API key saved to {path} (mode 0600); it is not shown", soft_wrap=True)


@click.group()
def account() -> None:
    """Your account: one API key for all your bots."""


@account.command()
@click.option("--print-key", is_flag=True, help="Print the key once instead of saving it to the key file.")
@click.pass_context
def create(ctx: click.Context, print_key: bool) -> None:
    """Open an account and save its API key to the key file (or print it once with --print-key)."""
    path = key_file(ctx)
    if not print_key and path.exists():
        raise click.ClickException(f"a key is already saved in {path}: move it away first (it may be your "
                                   "only copy of another account's key), or use --print-key")
    with cli._api(ctx) as api:
        created = api.create_account()
    cli.console.print(f"opened account [cyan]{created.account_id}[/cyan]")
    _hand_over(ctx, created, print_key)


@account.command()
@click.pass_context
def show(ctx: click.Context) -> None:
    """The account of the key: id, bots held, quotas."""
    with cli._api(ctx) as api:
        shown = api.account(account_key(ctx))
    cli.console.print(f"account [cyan]{shown.account_id}[/cyan]{' (disabled)' if shown.disabled else ''}: "
                      f"{shown.bots} of {shown.quotas['bots']} bots, at most "
                      f"{shown.quotas['bots_per_ladder']} per ladder")


@account.command()
@click.pass_context
def bots(ctx: click.Context) -> None:
    """The account's bots."""
    with cli._api(ctx) as api:
        listed = api.account_bots(account_key(ctx))
    cli.console.print(bots_table(listed))


def bots_table(listed: list[BotRecord]) -> Table:
    table = Table(title="Your bots")
    for column in ("bot id", "name", "games", "url", "enabled"):
        table.add_column(column)
    for bot in listed:
        table.add_row(bot.bot_id, bot.name, ", ".join(bot.games), bot.url or "(polling)",
                      "yes" if bot.enabled else "no")
    return table


@account.command()
@click.argument("bot_id")
@click.option("--token", "--owner-token", "owner_token", required=True,
              help="The owner token shown when the bot was registered (--owner-token: the same).")
@click.pass_context
def adopt(ctx: click.Context, bot_id: str, owner_token: str) -> None:
    """Move BOT_ID, registered without an account, into yours; its owner token stops working."""
    with cli._api(ctx) as api:
        bot = api.adopt_bot(bot_id, account_key(ctx), owner_token)
    cli.console.print(f"{bot.name} ({bot.bot_id}) is in your account now; its owner token no longer works")


@account.command()
@click.option("--print-key", is_flag=True, help="Print the new key once instead of saving it.")
@click.pass_context
def rotate(ctx: click.Context, print_key: bool) -> None:
    """Replace the key: the old one stops working at once; the new one is saved to the key file."""
    with cli._api(ctx) as api:
        rotated = api.rotate_key(account_key(ctx))
    cli.console.print(f"new key for account [cyan]{rotated.account_id}[/cyan]; the old key no longer works")
    _hand_over(ctx, rotated, print_key)


@account.command()
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.pass_context
def revoke(ctx: click.Context, yes: bool) -> None:
    """Revoke the key: no key works for the account until the operator issues one; its bots stay."""
    key = account_key(ctx)
    if not yes:
        click.confirm("no key will work for this account until the operator issues one; revoke?", abort=True)
    with cli._api(ctx) as api:
        api.revoke_key(key)
    path = key_file(ctx)
    if path.exists() and read_key(path)[1] == str(path):
        path.unlink()
        cli.console.print(f"key revoked and {path} removed")
    else:
        cli.console.print(f"key revoked; unset ${KEY_ENV}")
