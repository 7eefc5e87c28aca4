"""``trick-arena challenge``: an unrated match between bots you pick, played by the arena.

``trick-arena challenge BOT BOT BOT --game G`` waits for the result and prints it as a table (``--no-wait``
prints the challenge's address and returns); ``trick-arena challenge --show CHALLENGE_ID`` shows one.
Design: docs/cli.md
"""

from __future__ import annotations

import time
from typing import Any

import click
from rich.table import Table
from trickarena.types import Challenge

from clients.cli.consoles import wide_console

CHALLENGE_POLL_S = 1.0
console = wide_console()


def result_table(challenge: Challenge) -> Table:
    """Places, totals and strikes of a played challenge (its bots in seat order while it is not)."""
    match = challenge.match
    names = dict(zip(challenge.bots, challenge.names, strict=True))
    table = Table(title=f"Challenge {challenge.challenge_id} · {challenge.game} · {challenge.status}")
    for column in ("place", "bot", "total", "strikes"):
        table.add_column(column)
    places = match.places or {}
    strikes: dict[str, int] = {}
    for strike in match.strikes or []:
        strikes[strike["bot_id"]] = strikes.get(strike["bot_id"], 0) + 1
    for bot in sorted(challenge.bots, key=lambda b: (places.get(b, 99), b)):
        place = places.get(bot)
        table.add_row("–" if place is None else f"{place:g}", names[bot],
                      str((match.totals or {}).get(bot, "–")), str(strikes.get(bot, 0)))
    return table


@click.command("challenge")
@click.argument("bots", nargs=-1)
@click.option("--game", default=None, help="The game (required to create a challenge).")
@click.option("--games", "game_count", type=click.IntRange(1, 16), default=None,
              help="Games in the match (default: one per seat rotation if duplicate, else 1).")
@click.option("--duplicate/--no-duplicate", default=None,
              help="Score each game against the reference on the same deal (default: on for 4 players).")
@click.option("--options", "options_json", default=None, help="Game options as a JSON object.")
@click.option("--token", default=None, help="The owner token of your bot, for a bot outside your account.")
@click.option("--wait/--no-wait", default=True, show_default=True, help="Wait for the result.")
@click.option("--show", "show_id", default=None, help="Show challenge CHALLENGE_ID instead of creating one.")
@click.pass_context
def challenge(ctx: click.Context, bots: tuple[str, ...], game: str | None, game_count: int | None,
              duplicate: bool | None, options_json: str | None, token: str | None, wait: bool,
              show_id: str | None) -> None:
    """Challenge: an unrated match between BOTS (ids or house bot names, seat order of game 1), one of them
    yours (the account key, or --token); the others yours or accepting challenges. Never rated."""
    from clients.cli import _api, _json_option, _manager

    if show_id is not None:
        if bots or game:
            raise click.UsageError("--show takes no bots and no --game")
        with _api(ctx) as api:
            shown = api.get_challenge(show_id)
        _print(ctx, shown)
        return
    if not game:
        raise click.UsageError("name the game: --game G")
    if len(bots) < 2:
        raise click.UsageError("name the bots of the challenge, one per seat (at least two)")
    options: dict[str, Any] = _json_option(options_json)
    with _api(ctx) as api:
        created = api.challenge(_manager(ctx, token), game, list(bots), games=game_count, duplicate=duplicate,
                                options=options)
        console.print(f"challenge [cyan]{created.challenge_id}[/cyan] queued: {ctx.obj['api_url']}"
                      f"{created.web_url}")
        if not wait:
            return
        current = created
        while not current.over:
            time.sleep(CHALLENGE_POLL_S)
            current = api.get_challenge(created.challenge_id)
    _print(ctx, current)


def _print(ctx: click.Context, shown: Challenge) -> None:
    console.print(result_table(shown))
    if shown.match.aborted_because:
        console.print(f"aborted: {shown.match.aborted_because}")
    for url in shown.match.replays:
        console.print(f"replay: {ctx.obj['api_url']}{url}")
    console.print(f"page: {ctx.obj['api_url']}{shown.web_url}")
