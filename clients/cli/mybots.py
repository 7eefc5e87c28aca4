"""``trick-arena bots``, ``status``, ``strikes``, ``pause``, ``resume``, ``set-url``: one's own bots at a
glance and one bot at a time. Reading a bot's standing needs no key; pausing, resuming and changing its URL
need its account key or owner token.

Design: docs/cli.md#your-bots
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import click
from rich.markup import escape
from rich.table import Table
from trickarena import ArenaClient
from trickarena.types import BotRecord, NewBot, RankedBot

import clients.cli as cli
from clients.cli.account import account_key

STRIKE_PAGE = click.IntRange(1, 100)  # the API's page size bounds (GET /api/bots/{id}/matches)


@dataclass(frozen=True)
class Standing:
    """A bot's row on one ladder: ranked (with a rank) or new (no rated match yet)."""

    ladder_id: str
    row: RankedBot | NewBot

    @property
    def rank(self) -> str:
        return str(self.row.rank) if isinstance(self.row, RankedBot) else "new"


def standings(api: ArenaClient, bot_ids: set[str], games: set[str]) -> dict[str, list[Standing]]:
    """Every bot's rows on the ladders of `games`, keyed by bot id (a bot on no ladder yet has none)."""
    found: dict[str, list[Standing]] = {bot_id: [] for bot_id in bot_ids}
    for ladder in api.ladders():
        if ladder.game not in games:
            continue
        offset: int | None = 0
        left = set(bot_ids)
        while offset is not None and left:  # the ranking is paged: read on until every bot is found
            ranking = api.ranking(ladder.ladder_id, limit=500, offset=offset)
            for row in [*ranking.ranking, *ranking.new]:
                if row.bot_id in found:
                    found[row.bot_id].append(Standing(ladder.ladder_id, row))
                    left.discard(row.bot_id)
            offset = ranking.next_offset
    return found


def status_text(bot: BotRecord) -> str:
    """Why a bot is or is not in matchmaking, in a few words.

    >>> base = dict(bot_id="b", name="n", games=["g"], created=0.0, updated=0.0, accepts_challenges=False)
    >>> status_text(BotRecord(enabled=True, paused=False, **base))
    'active'
    >>> status_text(BotRecord(enabled=False, paused=False, **base))
    'paused (trick-arena resume)'
    >>> status_text(BotRecord(enabled=True, paused=True, paused_reason="benched: 5 strikes", **base))
    'out of matchmaking: benched: 5 strikes'
    >>> status_text(BotRecord(enabled=True, paused=False, present=False, **base))
    'active, absent: not polling its ladder seats (seated only while it polls)'
    """
    if not bot.enabled:
        return "paused (trick-arena resume)"
    if bot.paused:
        return f"out of matchmaking: {bot.paused_reason or 'no reason given'}"
    if bot.present is False:
        return "active, absent: not polling its ladder seats (seated only while it polls)"
    return "active"


def _rating(row: RankedBot | NewBot) -> str:
    return f"{row.rating:.0f}{'?' if row.provisional else ''}"


@click.command("bots")
@click.pass_context
def bots(ctx: click.Context) -> None:
    """Your account's bots: rating, matches and strikes on each ladder, and whether each is matched now."""
    key = account_key(ctx)
    with cli._api(ctx) as api:
        listed = api.account_bots(key)
        details = {bot.bot_id: api.bot(bot.bot_id) for bot in listed}
        rows = standings(api, set(details), {game for bot in listed for game in bot.games})
    table = Table(title=f"Your bots ({len(listed)})")
    for column, justify in (("bot id", "left"), ("name", "left"), ("ladder", "left"), ("rank", "right"),
                            ("rating", "right"), ("matches", "right"), ("strikes", "right"),
                            ("status", "left")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for bot in listed:
        detail = details[bot.bot_id]
        status = escape(status_text(detail))
        for standing in rows[bot.bot_id] or [None]:
            if standing is None:
                table.add_row(bot.bot_id, escape(bot.name), "–", "–", "–", "0", "0", status)
                continue
            row = standing.row
            table.add_row(bot.bot_id, escape(bot.name), standing.ladder_id, standing.rank, _rating(row),
                          str(row.matches), str(row.strikes), status)
    cli.console.print(table)
    if not listed:
        cli.console.print("no bots in your account yet: trick-arena register NAME --game G --url URL; a bot "
                          "registered without an account joins it with trick-arena account adopt")


@click.command("status")
@click.argument("bot_id")
@click.pass_context
def status(ctx: click.Context, bot_id: str) -> None:
    """One bot: whether it is matched now (and why not), its URL, version, and its standing on each ladder."""
    with cli._api(ctx) as api:
        bot = api.bot(bot_id)
        rows = standings(api, {bot_id}, set(bot.games))[bot_id]
    cli.console.print(f"[bold]{escape(bot.name)}[/bold] ({bot.bot_id}): {escape(status_text(bot))}",
                      soft_wrap=True)
    cli.console.print(f"games {', '.join(bot.games)} · url {escape(bot.url or '(polling)')} · version "
                      f"{escape(bot.version or '–')}", soft_wrap=True)
    if not rows:
        cli.console.print("on no ladder yet: an enabled bot joins the ladders of its games within a minute")
        return
    table = Table(title=f"{bot.name} on its ladders")
    for column in ("ladder", "rank", "rating", "±", "matches", "wins", "win share", "strikes", "forfeits",
                   "latency"):
        table.add_column(column, justify="left" if column == "ladder" else "right")
    for standing in rows:
        row = standing.row
        share = f"{row.win_share:.0%}" if row.win_share is not None else "–"
        latency = f"{row.mean_latency_ms:.1f} ms" if row.mean_latency_ms is not None else "–"
        table.add_row(standing.ladder_id, standing.rank, _rating(row), f"{row.uncertainty:.0f}",
                      str(row.matches), str(row.wins), share, str(row.strikes), str(row.forfeits), latency)
    cli.console.print(table)


@click.command("strikes")
@click.argument("bot_id")
@click.option("--ladder", "ladder_id", default=None,
              help="Only this ladder (default: every ladder it is on).")
@click.option("--limit", default=20, show_default=True, type=STRIKE_PAGE,
              help="How many of its latest matches to look through, per ladder.")
@click.pass_context
def strikes(ctx: click.Context, bot_id: str, ladder_id: str | None, limit: int) -> None:
    """The strikes of BOT_ID's latest matches, one row each: match, game, reason and what went wrong."""
    with cli._api(ctx) as api:
        bot = api.bot(bot_id)
        ladders = [ladder_id] if ladder_id else [s.ladder_id for s in
                                                 standings(api, {bot_id}, set(bot.games))[bot_id]]
        pages = {lad: api.get(f"/api/bots/{bot_id}/matches", ladder=lad, limit=limit) for lad in ladders}
    table = Table(title=f"Strikes of {bot.name} in its latest matches")
    for column in ("ladder", "match", "game", "move", "reason", "detail"):
        table.add_column(column)
    total = matches = 0
    for lad, page in pages.items():
        for match in page["matches"]:
            matches += 1
            for strike in match["strikes"]:
                total += 1
                table.add_row(lad, match["match"], str(strike["game_no"]), str(strike["version"]),
                              strike["reason"], escape(strike_detail(strike)))
    if total:
        cli.console.print(table)
    cli.console.print(f"{total} strikes in {matches} matches"
                      + ("" if ladders else " (on no ladder yet)"))


def strike_detail(strike: dict[str, Any]) -> str:
    """A strike's detail on one line, cut to a readable length.

    >>> strike_detail({"detail": "illegal move\\n 'XX'"})
    "illegal move 'XX'"
    """
    text = " ".join(str(strike.get("detail", "")).split())
    return text if len(text) <= 100 else text[:99] + "…"


TOKEN = click.option("--token", default=None, help="The bot's owner token, for a bot outside your account.")


@click.command("pause")
@click.argument("bot_id")
@TOKEN
@click.pass_context
def pause(ctx: click.Context, bot_id: str, token: str | None) -> None:
    """Take BOT_ID out of matchmaking (its rating and record stay); `resume` puts it back."""
    _change(ctx, bot_id, token, enabled=False)


@click.command("resume")
@click.argument("bot_id")
@TOKEN
@click.pass_context
def resume(ctx: click.Context, bot_id: str, token: str | None) -> None:
    """Put BOT_ID back into matchmaking after `pause`."""
    _change(ctx, bot_id, token, enabled=True)


@click.command("set-url")
@click.argument("bot_id")
@click.argument("url")
@TOKEN
@click.pass_context
def set_url(ctx: click.Context, bot_id: str, url: str, token: str | None) -> None:
    """Have the arena call BOT_ID at URL from its next match on."""
    _change(ctx, bot_id, token, url=url)


def _change(ctx: click.Context, bot_id: str, token: str | None, **changes: Any) -> None:
    with cli._api(ctx) as api:
        api.update_bot(bot_id, cli._manager(ctx, token), **changes)
        bot = api.bot(bot_id)
    cli.console.print(f"{escape(bot.name)} ({bot.bot_id}): {escape(status_text(bot))} · url "
                      f"{escape(bot.url or '(polling)')}", soft_wrap=True)


COMMANDS = (bots, status, strikes, pause, resume, set_url)
