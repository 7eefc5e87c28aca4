"""``trick-arena``: the bot author's command line (``trick-arena --help`` lists the commands).

The API address comes from ``--api`` or ``$TRICK_ARENA_API`` (default http://127.0.0.1:8000); the account
key from ``$TRICK_ARENA_KEY`` or the key file (``--key-file``, ``$TRICK_ARENA_KEY_FILE``).
Design: docs/cli.md
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from trickarena import ApiError, ApiUnavailable, ArenaClient
from trickarena.types import RankedBot, Ranking

from clients.cli.consoles import wide_console
from clients.cli.keyfile import KEY_FILE_ENV, default_key_file, read_key
from clients.cli.loading import load_bot

DEFAULT_API = "http://127.0.0.1:8000"
console = wide_console()


def _json_option(value: str | None) -> dict[str, Any]:
    if not value:
        return {}
    try:
        parsed = json.loads(value)
    except ValueError as exc:
        raise click.BadParameter(f"not JSON: {exc}") from exc
    if not isinstance(parsed, dict):
        raise click.BadParameter("options must be a JSON object, e.g. '{\"target\": 100}'")
    return parsed


class ApiGroup(click.Group):
    """Turns API errors, and any error a command did not foresee, into one readable line and exit status 1
    instead of a traceback: a bot author's typo must never look like a crash of the tool."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        """Click's own main, but a usage error is one line too: what is wrong and where --help is, without
        the usage block above it."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as error:
            click.echo(error.ctx.get_help() if error.ctx is not None else error.format_message(), err=True)
            sys.exit(error.exit_code)
        except click.UsageError as error:
            path = error.ctx.command_path if error.ctx is not None else "trick-arena"
            click.echo(f"Error: {one_line(error.format_message())} (see: {path} --help)", err=True)
            sys.exit(error.exit_code)
        except click.ClickException as error:
            click.echo(f"Error: {one_line(error.format_message())}", err=True)
            sys.exit(error.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise  # click prints these in one line itself (usage errors exit 2)
        except ApiError as error:
            title = error.problem.get("title", "")
            legal = f" (legal moves: {' '.join(error.legal)})" if error.legal else ""
            detail = escape(one_line(error.detail))
            fail(f"[red]API error {error.status}[/red] {escape(title)}: {detail}{legal}")
        except ApiUnavailable as error:
            fail(f"[red]cannot reach the API[/red]: {escape(one_line(error))} "
                 "(is `make run` running? --api URL?)")
        except OSError as error:
            where = f": {error.filename}" if error.filename else ""
            fail(f"[red]error[/red]: {escape(error.strerror or one_line(error))}{escape(str(where))}")
        except Exception as error:  # noqa: BLE001 - the last line of defence against a traceback
            fail(f"[red]error[/red]: {escape(one_line(error))}")


def fail(markup: str, code: int = 1) -> NoReturn:
    """Print one line on stderr (never wrapped, whatever the terminal's width) and exit with `code`."""
    Console(stderr=True, soft_wrap=True, highlight=False).print(markup)
    sys.exit(code)


def one_line(error: object) -> str:
    """An error as one line: its message, or its type when it has none.

    >>> one_line(ValueError("bad\\nvalue"))
    'bad value'
    >>> one_line(KeyError())
    'KeyError'
    """
    text = " ".join(str(error).split())
    return text or type(error).__name__


@click.group(cls=ApiGroup)
@click.option("--api", "api_url", envvar="TRICK_ARENA_API", default=DEFAULT_API, show_default=True,
              help="Base URL of the Trick Arena service ($TRICK_ARENA_API).")
@click.option("--key-file", type=click.Path(dir_okay=False), envvar=KEY_FILE_ENV, default=None,
              help="Where the account's API key is kept ($TRICK_ARENA_KEY_FILE; default "
                   "~/.config/trick-arena/key). $TRICK_ARENA_KEY, when set, is used instead.")
@click.pass_context
def main(ctx: click.Context, api_url: str, key_file: str | None) -> None:
    """Trick Arena for bot authors: account, register, practice, match, ladder, replay."""
    ctx.obj = {"api_url": api_url, "key_file": key_file or str(default_key_file())}


def _manager(ctx: click.Context, token: str | None) -> str:
    """What manages a bot: its owner token when given, else the account key (or a one-line refusal)."""
    if token:
        return token
    from clients.cli.account import account_key

    return account_key(ctx)


def _bot_name(api: ArenaClient, bot_id: str) -> str:
    """A seated bot's public name: a house bot's own, a registered bot's record's (its id once deleted)."""
    if bot_id.startswith("house:"):
        return bot_id.removeprefix("house:")
    try:
        return api.bot(bot_id).name
    except ApiError:
        return bot_id


def _api(ctx: click.Context) -> ArenaClient:
    return ArenaClient(ctx.obj["api_url"], retries=3)


@main.command()
@click.pass_context
def games(ctx: click.Context) -> None:
    """List the games with their player counts and options."""
    table = Table(title="Games")
    for column in ("id", "name", "players", "options (default)"):
        table.add_column(column)
    with _api(ctx) as api:
        for game in api.games():
            options = ", ".join(f"{k}={v!r}" for k, v in game.defaults.items())
            table.add_row(game.id, game.name, f"{game.min_players}-{game.max_players}", options)
    console.print(table)


@main.command()
@click.argument("name")
@click.option("--game", "games_", multiple=True, required=True, help="A game the bot plays (repeatable).")
@click.option("--url", default=None, help="Where the arena calls the bot; omit for a polling bot.")
@click.option("--no-account", is_flag=True, help="Register without the account key even when one is set.")
@click.pass_context
def register(ctx: click.Context, name: str, games_: tuple[str, ...], url: str | None,
             no_account: bool) -> None:
    """Register a bot: in your account when a key is set ($TRICK_ARENA_KEY or the key file), which then
    manages it; else without one, printing the bot's owner token (shown only once: keep it)."""
    key = None if no_account else read_key(Path(ctx.obj["key_file"]))[0]
    with _api(ctx) as api:
        bot = api.register_bot(name, list(games_), url, key=key)
    console.print(f"registered [bold]{bot.name}[/bold] as [cyan]{bot.bot_id}[/cyan] "
                  f"for {', '.join(bot.games)}")
    if bot.owner_token:
        console.print(f"owner token (shown once): [yellow]{bot.owner_token}[/yellow]")
    else:
        console.print("in your account: your account key manages it")
    if bot.probe is not None:  # a URL bot: what the first check of its URL found
        style = {True: "green", False: "red"}.get(bot.probe["ok"], "yellow")
        console.print(f"first check: [{style}]{bot.probe['outcome']}[/{style}]: {bot.probe['detail']}")
        if bot.probe["ok"] is False:
            return
    console.print(f"it joins the matching ladders within a minute: {ctx.obj['api_url']}/")


@main.command()
@click.argument("bot_id")
@click.option("--game", "games_", multiple=True, help="The games it plays from now on (repeatable).")
@click.option("--url", default=None, help="Where the arena calls it from now on.")
@click.option("--enable/--disable", "enabled", default=None, help="Back in matchmaking, or out of it.")
@click.option("--accept-challenges/--refuse-challenges", "accepts", default=None,
              help="Whether other owners may pick it for a challenge (refused by default).")
@click.option("--token", default=None, help="The bot's owner token, for a bot outside your account.")
@click.pass_context
def update(ctx: click.Context, bot_id: str, games_: tuple[str, ...], url: str | None, enabled: bool | None,
           accepts: bool | None, token: str | None) -> None:
    """Change one of your bots (with the account key, or --token for a bot registered without one)."""
    changes: dict[str, Any] = {"games": list(games_)} if games_ else {}
    if url is not None:
        changes["url"] = url
    if enabled is not None:
        changes["enabled"] = enabled
    if accepts is not None:
        changes["accepts_challenges"] = accepts
    if not changes:
        raise click.UsageError("nothing to change: give --game, --url, --enable or --disable, "
                               "--accept-challenges or --refuse-challenges")
    with _api(ctx) as api:
        bot = api.update_bot(bot_id, _manager(ctx, token), **changes)
    state = "enabled" if bot.enabled else "disabled"
    challenges = "accepts challenges" if bot.accepts_challenges else "refuses challenges"
    console.print(f"{bot.name} ({bot.bot_id}): {', '.join(bot.games)}, {bot.url or '(polling)'}, {state}, "
                  f"{challenges}")


@main.command()
@click.argument("bot_id")
@click.option("--token", default=None, help="The bot's owner token, for a bot outside your account.")
@click.pass_context
def delete(ctx: click.Context, bot_id: str, token: str | None) -> None:
    """Delete one of your bots (with the account key, or --token for a bot registered without one)."""
    with _api(ctx) as api:
        api.delete_bot(bot_id, _manager(ctx, token))
    console.print(f"deleted {bot_id}")


PORT = click.IntRange(0, 65535)  # 0: any free port


@main.command()
@click.argument("bot_spec", metavar="BOT")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=9001, show_default=True, type=PORT)
def serve(bot_spec: str, host: str, port: int) -> None:
    """Serve BOT (a .py file or module[:Class] with a trickarena.Bot subclass) over HTTP until Ctrl-C."""
    bot = load_bot(bot_spec)
    try:
        bot.serve(host, port)
    except OSError as error:  # the port is taken, or the host is not an address of this machine
        raise click.ClickException(f"cannot listen on {host}:{port}: {error.strerror or error}") from None


@main.command()
@click.argument("bot_spec", metavar="BOT")
@click.option("--game", default=None, help="Game id (default: the bot's first game).")
@click.option("--opponents", default="heuristic,heuristic,heuristic", show_default=True,
              help="House bots in the other seats: random, heuristic, search, eps-X (0..1) or "
                   "search-MS (1..999).")
@click.option("--options", "options_json", default=None,
              help="Game options as JSON, e.g. '{\"target\": 100}'.")
@click.pass_context
def practice(ctx: click.Context, bot_spec: str, game: str | None, opponents: str,
             options_json: str | None) -> None:
    """Play one practice table: BOT in seat 0 (through the move API), house bots in the other seats."""
    from trickarena.poll import play_seat

    bot = load_bot(bot_spec)
    game = game or bot.games[0]
    seats = ["open", *[name.strip() for name in opponents.split(",") if name.strip()]]
    moves = 0

    def count(state: Any, move: Any) -> None:
        nonlocal moves
        moves += 1

    with _api(ctx) as api:
        table = api.create_table(game, seats, _json_option(options_json))
        joined = api.join(table.table_id, 0)
        console.print(f"table [cyan]{table.table_id}[/cyan] ({game}); watch it at "
                      f"{ctx.obj['api_url']}/tables/{table.table_id}")
        try:
            with console.status("playing…"):
                final = play_seat(api, table.table_id, 0, joined.token, bot, on_move=count)
        except KeyboardInterrupt:
            console.print("stopped; the table stays open")
            sys.exit(130)
    view = final.view
    result = Table(title=f"{game} · table {table.table_id} · {moves} moves by {bot.name}")
    result.add_column("seat")
    result.add_column("player")
    result.add_column("total", justify="right")
    for seat, name in enumerate([bot.name, *seats[1:]]):
        mark = " 🏆" if seat in view.get("winners", []) else ""
        result.add_row(str(seat), name + mark, str(view["scores"][seat]))
    console.print(result)
    console.print(f"replay: trick-arena replay {table.table_id}  ·  "
                  f"{ctx.obj['api_url']}/tables/{table.table_id}")


@main.command("match")
@click.argument("urls", nargs=-1, required=True)
@click.option("--game", required=True, help="Game id.")
@click.option("--games", "game_count", default=None, type=click.IntRange(min=1),
              help="Games to play (default: one per player: a duplicate set).")
@click.option("--seed", default=1, show_default=True, type=click.IntRange(min=0))
@click.option("--options", "options_json", default=None, help="Game options as JSON.")
@click.option("--deadline-ms", default=1000, show_default=True, type=click.IntRange(min=1),
              help="Time per decision.")
@click.option("--save-dir", type=click.Path(file_okay=False), default=None,
              help="Write each game's replay record here (replay with: trick-arena replay --file F).")
def match_command(urls: tuple[str, ...], game: str, game_count: int | None, seed: int,
                  options_json: str | None, deadline_ms: int, save_dir: str | None) -> None:
    """Play a local match between bot URLs and house bots (heuristic, random, eps-0.3, search-5 ...): the
    arena's own match runner; no service needed."""
    from engine import compiled

    compiled.activate()  # the compiled rules when built (make compiled), before the match runner imports them
    from clients.cli.localmatch import check_match, play_local_match

    options = check_match(list(urls), game, _json_option(options_json))
    folder = _writable_folder(save_dir) if save_dir else None
    count = game_count or len(urls)
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[moves]} moves"), TimeElapsedColumn(), console=console) as progress:
        task = progress.add_task(f"{game}, {len(urls)} bots", total=count, moves=0)
        moves = 0

        def on_move() -> None:
            nonlocal moves
            moves += 1
            progress.update(task, moves=moves)

        def on_game(number: int, summary: dict[str, Any]) -> None:
            progress.advance(task)

        tallies, records = play_local_match(list(urls), game, count, seed, options,
                                            deadline_ms, on_game=on_game, on_move=on_move)
    import engine

    low_wins = engine.rules_for(game).low_wins
    ordered = sorted(tallies, key=lambda t: (-t.wins, t.points if low_wins else -t.points))
    best = "lowest" if low_wins else "highest"
    table = Table(title=f"{game}: {count} games, seed {seed} ({best} total wins)")
    for column, justify in (("#", "right"), ("bot", "left"), ("url", "left"), ("wins", "right"),
                            ("win share", "right"), ("points", "right"), ("strikes", "right"),
                            ("mean latency", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for place, tally in enumerate(ordered, start=1):
        latency = f"{tally.mean_latency_ms:.1f} ms" if tally.mean_latency_ms is not None else "–"
        strikes = str(tally.strikes) + (f" ({', '.join(f'{k} {v}' for k, v in tally.reasons.items())})"
                                        if tally.reasons else "")
        table.add_row(str(place), tally.name, tally.url, str(tally.wins), f"{tally.win_share:.0%}",
                      str(tally.points), strikes, latency)
    console.print(table)
    if folder is not None:
        for number, record in enumerate(records):
            (folder / f"{game}-seed{seed}-game{number}.json").write_text(json.dumps(record))
        console.print(f"{len(records)} replay records in {folder}/ (trick-arena replay --file ...)")


def _writable_folder(path: str) -> Path:
    """The folder, made if missing, or a one-line refusal before a match is played for nothing."""
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".trick-arena-write-check"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        raise click.BadParameter(f"cannot write to {path}: {error.strerror or error}",
                                 param_hint="'--save-dir'") from None
    return folder


@main.command()
@click.argument("which", required=False)
@click.pass_context
def ladder(ctx: click.Context, which: str | None) -> None:
    """Show a ladder (a ladder id or a game id; default: every ladder)."""
    with _api(ctx) as api:
        ladders = api.ladders()
        chosen = [lad for lad in ladders if which in (None, lad.ladder_id, lad.game)]
        if not chosen:
            known = ", ".join(lad.ladder_id for lad in ladders) or "none yet"
            raise click.BadParameter(f"no ladder {which!r}; known: {known}")
        for lad in chosen:
            console.print(ladder_table(api.ranking(lad.ladder_id)))


def ladder_table(ranking: Ranking) -> Table:
    """The ranked bots, then the new ones (not ranked until they finish a rated match without forfeiting); a
    provisional Elo has a "?"."""
    lad = ranking.ladder
    table = Table(title=f"{lad.ladder_id} · {lad.game} · {lad.players} players",
                  caption="? provisional: too few rated matches for a settled rating · "
                          "new: not ranked until it finishes a rated match without forfeiting")
    for column, justify in (("#", "right"), ("bot", "left"), ("kind", "left"), ("Elo", "right"),
                            ("matches", "right"), ("win share", "right"), ("strikes", "right"),
                            ("latency", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for row in [*ranking.ranking, *ranking.new]:
        share = f"{row.win_share:.0%}" if row.win_share is not None else "–"
        latency = f"{row.mean_latency_ms:.1f} ms" if row.mean_latency_ms is not None else "–"
        name = (row.name or row.bot_id) + (" (paused)" if row.paused else "")
        rank = str(row.rank) if isinstance(row, RankedBot) else "new"
        elo = f"{row.rating:.0f}" + ("?" if row.provisional else "")
        table.add_row(rank, name, row.kind or "left", elo, str(row.matches), share, str(row.strikes), latency)
    return table


@main.command()
@click.argument("table_id", required=False)
@click.option("--match", "match_id", default=None, help="A ladder match id (with --game-no).")
@click.option("--game-no", default=0, show_default=True, type=click.IntRange(min=0),
              help="Which game of the match (or of a match export line given as the file).")
@click.option("--file", "path", type=click.Path(exists=True, dir_okay=False), default=None,
              help="A replay record file (engine format); a file may also be given in place of TABLE_ID.")
@click.option("--hands/--no-hands", default=False, help="Print every hand before each round's first trick.")
@click.option("--open", "open_page", is_flag=True, default=False,
              help="Open the replay in the browser instead: a local HTML file, nothing uploaded.")
@click.pass_context
def replay(ctx: click.Context, table_id: str | None, match_id: str | None, game_no: int, path: str | None,
           hands: bool, open_page: bool) -> None:
    """Print a finished game trick by trick: a table id, --match M [--game-no N], or --file F (or F alone)."""
    from clients.cli.render import print_replay  # the rules: imported by the command that needs them

    names: list[str] | None = None
    title = ""
    if not path and table_id and not match_id and Path(table_id).is_file():
        path, table_id = table_id, None  # `trick-arena replay FILE`: a file, not a table id
    if path:
        record = _record_file(path, game_no)
        title = Path(path).name
    elif match_id:
        with _api(ctx) as api:
            record = api.match_replay(match_id, game_no)
            match = api.match(match_id)
            seating = next((g["seating"] for g in match.games or [] if g["game_no"] == game_no), None)
            names = [_bot_name(api, bot) for bot in seating] if seating else None
        title = f"Match {match_id} · game {game_no + 1}"
    elif table_id:
        with _api(ctx) as api:
            record = api.replay(table_id)
            table = api.table(table_id)
        names = [seat.name or f"seat {seat.seat}" for seat in table.seats]
        title = f"Table {table_id}"
    else:
        raise click.UsageError("give a table id, --match MATCH_ID or --file PATH")
    try:
        if open_page:
            _open_replay(record, names, title)
        else:
            print_replay(console, record, names, hands)
    except (KeyError, TypeError, ValueError) as error:  # engine errors are ValueErrors too
        raise click.ClickException(f"not a replay record the engine can read: {one_line(error)}") from None


def _record_file(path: str, game_no: int) -> Any:
    """The record in a file: an engine record, or game `game_no` of a match export line (``records``)."""
    try:
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
    except (ValueError, UnicodeDecodeError) as error:
        raise click.BadParameter(f"{path} is not a JSON replay record ({one_line(error)})",
                                 param_hint="'--file'") from None
    if isinstance(record, dict) and isinstance(record.get("records"), list):
        if game_no >= len(record["records"]):
            raise click.BadParameter(f"{path} holds {len(record['records'])} games (0 to "
                                     f"{len(record['records']) - 1})", param_hint="'--game-no'")
        return record["records"][game_no]
    return record


def _open_replay(record: Any, names: list[str] | None, title: str) -> None:
    """The replay as a local page (clients/cli/viewer.py), opened in the browser; its path printed anyway."""
    from clients.cli.viewer import open_in_browser

    if not isinstance(record, dict):
        raise TypeError("a replay record is a JSON object")
    path, opened = open_in_browser(record, names, title)
    where = escape(str(path))
    console.print(f"replay opened in the browser: {where}" if opened
                  else f"no browser to open; open this file in one: {where}", soft_wrap=True)


@main.command()
@click.option("--table", "table_id", default=None, help="A finished API table.")
@click.option("--match", "match_id", default=None, help="A finished ladder match (with --game-no).")
@click.option("--game-no", "--game", "game_no", default=0, show_default=True, type=click.IntRange(min=0),
              help="Which game of the match.")
@click.option("--seat", type=click.IntRange(min=0), required=True,
              help="The seat whose decisions are analysed.")
@click.option("--budget-ms", type=click.IntRange(min=1), default=None,
              help="Search time per decision (default: the server's).")
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON (progress on stderr).")
@click.option("--poll-s", default=1.0, show_default=True, type=click.FloatRange(min=0.05),
              help="Seconds between progress polls.")
@click.pass_context
def analyse(ctx: click.Context, table_id: str | None, match_id: str | None, game_no: int, seat: int,
            budget_ms: int | None, as_json: bool, poll_s: float) -> None:
    """Value every decision SEAT made in a finished game (from its information at the time) and list regrets.

    The service analyses it on its own workers: this asks for it, shows the progress and prints each
    decision's chosen and best move with the regret (value of the best minus value of the chosen)."""
    import time

    if (table_id is None) == (match_id is None):
        raise click.UsageError("give --table TABLE_ID or --match MATCH_ID [--game-no N]")
    where = {"table_id": table_id} if table_id else {"match_id": match_id, "game_no": game_no}
    out = Console(stderr=True) if as_json else console
    with _api(ctx) as api:
        state = api.request_analysis(seat, budget_ms=budget_ms, **where)
        with Progress(TextColumn("[bold]analysing seat " + str(seat)), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=out, transient=as_json) as progress:
            task = progress.add_task("decisions", total=None)
            while state["status"] in ("queued", "running"):
                done, total = state["progress"]["done"], state["progress"]["total"]
                progress.update(task, completed=done, total=total or None)
                time.sleep(poll_s)
                state = api.analysis(seat, budget_ms=budget_ms, **where)
            if state["status"] == "done":
                progress.update(task, completed=len(state["result"]["decisions"]),
                                total=len(state["result"]["decisions"]))
    if state["status"] != "done":
        reason = state.get("reason", "no reason given")
        out.print(f"[red]analysis failed[/red]: {reason} (run it again to retry)")
        sys.exit(1)
    if as_json:
        click.echo(json.dumps(state["result"]))
        return
    console.print(analysis_table(state["result"]))


def _move_text(move: Any) -> str:
    return "–" if move is None else " ".join(move) if isinstance(move, list) else str(move)


def analysis_table(report: dict[str, Any]) -> Table:
    """One row per decision: the chosen and best move, the regret and the best few candidates' values."""
    behind = report.get("mean_behind_heuristic")  # absent from a result stored by an earlier worker
    mean = f"{report['mean_regret']}" + ("" if behind is None else f"; {behind} behind the house heuristic")
    table = Table(title=f"{report['game']} · seat {report['seat']} · total regret {report['total_regret']} "
                        f"over {len(report['decisions'])} decisions (mean {mean}) · "
                        f"{report['budget_ms']} ms per decision")
    for column, justify in (("move #", "right"), ("round", "right"), ("kind", "left"), ("chosen", "left"),
                            ("best", "left"), ("regret", "right"), ("values (best first)", "left")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for d in report["decisions"]:
        valued = sorted((c for c in d["candidates"] if c["value"] is not None), key=lambda c: -c["value"])
        values = "forced" if d["forced"] else "  ".join(f"{_move_text(c['move'])} {c['value']:+.2f}"
                                                        for c in valued[:4])
        regret = f"[red]{d['regret']:.2f}[/red]" if d["regret"] > 0 else "0"
        table.add_row(str(d["index"]), str(d["round"] + 1), d["kind"], _move_text(d["chosen"]),
                      _move_text(d["best"]), regret, values)
    return table


if __name__ == "__main__":
    main()


from clients.cli.account import account  # noqa: E402 - it reads this module's console and _api
from clients.cli.mybots import COMMANDS as BOT_COMMANDS  # noqa: E402 - the same

main.add_command(account)
for _command in BOT_COMMANDS:
    main.add_command(_command)

from clients.cli.challenges import challenge  # noqa: E402 - it reads this module's _api and _manager
from clients.cli.decisions import log  # noqa: E402 - the same

main.add_command(challenge)
main.add_command(log)

from clients.cli.tournaments import tournament  # noqa: E402 - it reads this module's _api and _manager

main.add_command(tournament)

from clients.cli.export import export  # noqa: E402 - it reads this module's _api

main.add_command(export)
