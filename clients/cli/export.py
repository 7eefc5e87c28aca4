"""``trick-arena export BOT_ID > games.ndjson``: every finished match of a bot, one JSON line each with its
replay records, streamed to stdout page after page; the last line's cursor goes on later (``--cursor``).
Design: docs/cli.md#exporting-a-bots-matches
"""

from __future__ import annotations

import os
import sys

import click
from rich.console import Console
from trickarena.api import EXPORT_PAGE, line_cursor

import clients.cli as cli

MOST_PER_PAGE = 100


@click.command("export")
@click.argument("bot_id")
@click.option("--since", type=click.FloatRange(min=0), default=None,
              help="Start with the first match that finished after this unix time.")
@click.option("--cursor", default=None, help="Go on after the match of this cursor (a line's `cursor`).")
@click.option("--limit", type=click.IntRange(1, MOST_PER_PAGE), default=EXPORT_PAGE, show_default=True,
              help="Matches per request to the service.")
@click.pass_context
def export(ctx: click.Context, bot_id: str, since: float | None, cursor: str | None, limit: int) -> None:
    """Write every finished match of BOT_ID to stdout, oldest first: its ladder matches and challenges, one
    JSON line each with the replay records of its games (`trick-arena export BOT_ID > games.ndjson`). No
    key needed. On stderr: how many, and the cursor to go on from later."""
    if since is not None and cursor is not None:
        raise click.UsageError("give --since or --cursor, not both")
    out = sys.stdout
    count, last = 0, cursor
    try:
        with cli._api(ctx) as api:
            for line in api.export_lines(bot_id, since=since, cursor=cursor, limit=limit):
                out.write(line + "\n")
                count, last = count + 1, line_cursor(line)
            out.flush()
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    going_on = f"; go on later with --cursor {last}" if last else ""
    Console(stderr=True, soft_wrap=True, highlight=False, markup=False).print(
        f"{count} {'match' if count == 1 else 'matches'} of {bot_id} exported{going_on}")
