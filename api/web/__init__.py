"""The public web page: ladders, Elo charts, recent matches, live tables, replays. Server-rendered HTML
(Jinja); the live part refreshes by fetching the same HTML fragment again (``?fragment=1``).

Design: docs/web.md
"""

from __future__ import annotations

import contextlib
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from marshmallow import EXCLUDE, Schema, ValidationError
from werkzeug.wrappers import Response

import engine
import trick_rules
from api.blueprints.tournaments import tournament_json, tournament_store
from api.problems import ApiProblem, validation_problem
from api.schemas.ladders import BotMatchesQuerySchema, RankingQuerySchema
from api.services import services
from api.web import data
from api.web.markdown import render
from core.arena.challenges import entrant_names
from core.arena.latency import latency_profile, move_latencies
from core.arena.lookup import find_ladder, find_match, matchmaking, published_games, rating_on_ladder
from core.arena.model import HOUSE_PREFIX, MatchStatus, house_bots_for
from core.arena.ranking import PROVISIONAL_MATCHES, read_ranking_row
from core.errors import BotNotFound
from core.tables.store import TableStatus
from engine.frames import replay_frames

blp = Blueprint("web", __name__, template_folder="templates", static_folder="static",
                static_url_path="/assets")

BOT_PAGE_MATCHES = 20  # a bot's matches per page of its record
REFRESH_MS = 4000  # how often a page re-fetches its live part (config WEB_REFRESH_MS overrides)


def _page(template: str, **context: Any) -> str:
    fragment = request.args.get("fragment") == "1"
    refresh_ms = current_app.config.get("WEB_REFRESH_MS", REFRESH_MS)
    return render_template(template, fragment=fragment, refresh_ms=refresh_ms,
                           provisional_matches=PROVISIONAL_MATCHES, **context)


@blp.app_template_filter("signed")
def signed(value: float | None) -> str:
    return "" if value is None else f"{value:+.1f}"


def error_page(status: int, title: str, detail: str) -> str:
    """The site's error page (every error of a page path: api.problems.register_error_handlers)."""
    try:
        tabs = data.ladder_tabs(services().arena)
    except Exception:  # noqa: BLE001 - the store may be what failed: the page is still answered
        tabs = []
    return render_template("error.html", tabs=tabs, current=None, status=status, title=title, detail=detail)


def page_args(schema: Schema) -> dict[str, Any]:
    """A page's query string loaded by the API's schema for the same list: a bad value is the same 422."""
    try:
        loaded: dict[str, Any] = schema.load(request.args, unknown=EXCLUDE)
    except ValidationError as error:
        raise validation_problem(error.messages) from None
    return loaded


@blp.get("/")
def index() -> Response | str:
    tabs = data.ladder_tabs(services().arena)
    if not tabs:
        return _page("empty.html", tabs=tabs)
    return ladder_page(tabs[0]["ladder_id"], tabs)


@blp.get("/ladders/<ladder_id>")
def ladder_page(ladder_id: str, tabs: list[dict[str, Any]] | None = None) -> str:
    store = services().arena
    offset = page_args(RankingQuerySchema(only=("offset",)))["offset"]
    snapshot = data.ladder_snapshot(store, services().tables, ladder_id, offset)
    return _page("ladder.html", tabs=tabs if tabs is not None else data.ladder_tabs(store),
                 current=ladder_id, **snapshot)


@blp.get("/ladders/<ladder_id>/bots/<bot_id>")
def bot_page(ladder_id: str, bot_id: str) -> str:
    store = services().arena
    ladder = find_ladder(store, ladder_id)
    rating_on_ladder(store, ladder_id, bot_id)
    history = store.history(ladder_id, bot_id, 200)
    found = read_ranking_row(store, ladder_id, bot_id)  # its rank counts only the bots with a rated match
    assert found is not None  # rating_on_ladder found its rating
    row = data.page_row(found)
    cursor = page_args(BotMatchesQuerySchema(only=("cursor",))).get("cursor")
    entries, next_cursor = store.bot_record(ladder_id, bot_id, BOT_PAGE_MATCHES, cursor)
    latency = latency_profile(store.match_docs([entry["match"] for entry in entries]), bot_id)
    record, suspension = None, None
    with contextlib.suppress(BotNotFound):  # a house bot, or a registered bot deleted since
        record, suspension = services().bots.get_with_suspension(bot_id)
    state = matchmaking(store, bot_id, record, suspension)
    return _page("bot.html", tabs=data.ladder_tabs(store), current=ladder_id,
                 ladder={**ladder.to_json(), "name": data.game_name(ladder.game)}, bot=row, history=history,
                 series=[{"name": row["name"], "bot_id": bot_id, "points": data.rating_series(history)}],
                 record=[data.record_row(entry) for entry in entries], paged=cursor is not None,
                 next_cursor=next_cursor, versions=store.version_lines(ladder_id, bot_id),
                 current_version=store.versions([bot_id])[bot_id],
                 paused_reason=state.reason, latency=latency, present=state.present,
                 registered=not bot_id.startswith(HOUSE_PREFIX))


@blp.get("/matches/<match_id>")
def match_page(match_id: str) -> str:
    return _match_page(find_match(services().arena, match_id))


@blp.get("/challenges/<challenge_id>")
def challenge_page(challenge_id: str) -> str:
    """A challenge (an unrated match between chosen bots): the match page, on no ladder, without Elo."""
    return _match_page(services().challenges.get(challenge_id))


@blp.get("/tournaments/<tournament_id>")
def tournament_page(tournament_id: str) -> str:
    """A tournament: its standings and rounds, every table linked to its match (replays once published);
    refreshes itself as the event goes."""
    store = tournament_store()
    return _page("tournament.html", tabs=data.ladder_tabs(services().arena), current=None,
                 t=tournament_json(store.get(tournament_id), store))


def _names(doc: dict[str, Any]) -> dict[str, str]:
    """Entrants' names: as the ladder shows them now, else as they were when the match was made."""
    ladder = services().arena.member_names(doc["ladder_id"]) if doc["ladder_id"] else {}
    return {**entrant_names(doc), **ladder}


def _match_page(doc: dict[str, Any]) -> str:
    store = services().arena
    if doc["status"] == MatchStatus.HELD:  # a tournament's table: nothing of its deals till its round is over
        doc = {**doc, "result": {}}
    names = _names(doc)
    return _page("match.html", tabs=data.ladder_tabs(store), current=doc["ladder_id"] or None,
                 match=data.match_summary(doc, names),
                 seatings=[data.seat_names_for_game(doc, g["game_no"], names)
                           for g in (doc.get("result") or {}).get("games", [])])


@blp.get("/matches/<match_id>/bots/<bot_id>/decisions")
def decisions_page(match_id: str, bot_id: str) -> str:
    """The owner's view of a bot's decisions: the page asks the API with the owner's token, so the HTML
    itself holds nothing of the log."""
    doc = find_match(services().arena, match_id)
    return _page("decisions.html", tabs=data.ladder_tabs(services().arena), current=doc["ladder_id"] or None,
                 match_id=match_id, bot_id=bot_id, name=_names(doc).get(bot_id, bot_id),
                 api_url=url_for("ladders.get_decision_log", match_id=match_id, bot_id=bot_id))


@blp.get("/matches/<match_id>/live")
def match_live_page(match_id: str) -> str:
    """Spectate the game a worker is playing in a ladder match (the public table, refreshed every second)."""
    store = services().arena
    doc = find_match(store, match_id)
    names = _names(doc)
    game = doc["spec"]["game"]
    return _page("live.html", tabs=data.ladder_tabs(store), current=doc["ladder_id"] or None,
                 match_id=match_id,
                 table_id=None, game=game, name=data.game_name(game),
                 seat_names=[names.get(m["bot_id"], m["bot_id"]) for m in doc["spec"]["entrants"]],
                 state_url=url_for("ladders.get_live_match", match_id=match_id),
                 replay_url=url_for("web.match_page", match_id=match_id))


@blp.get("/matches/<match_id>/games/<int:game_no>")
def match_replay_page(match_id: str, game_no: int) -> str:
    store = services().arena
    doc, records = published_games(store, match_id, game_no)
    names = data.seat_names_for_game(doc, game_no, _names(doc))
    seatings = [game["seating"] for game in (doc.get("result") or {}).get("games", [])]
    latencies = move_latencies(records, seatings, (doc.get("result") or {}).get("calls") or {})
    return _replay(records[game_no], names, title=f"Match {match_id} · game {game_no + 1} of {len(records)}",
                   back=url_for("web.match_page", match_id=match_id), current=doc["ladder_id"] or None,
                   analysis_url=url_for("analysis.request_match_analysis", match_id=match_id,
                                        game_no=game_no),
                   latencies=latencies[game_no] if game_no < len(latencies) else {})


@blp.get("/rules")
def rules_index() -> str:
    """The rules of every game: the index of the rule books and the rulings they share."""
    return _rules("README", game=None)


@blp.get("/rules/<game_id>")
def rules_page(game_id: str) -> str:
    """One game's full rules, rendered from its rule book (docs/rules/<game>.md)."""
    if game_id not in engine.GAMES:
        raise ApiProblem(404, "game-not-found", f"no game {game_id!r}; known: {', '.join(engine.GAMES)}")
    return _rules(game_id, game=game_id)


def _rules(book: str, game: str | None) -> str:
    tabs = data.ladder_tabs(services().arena)
    html = render(trick_rules.text(book), link=_rules_link)
    return render_template("rules.html", tabs=tabs, current=None, rules=html, game=game,
                           title=f"{data.game_name(game)} rules" if game else "Rules",
                           games=list(engine.GAMES), game_names={g: i.name for g, i in engine.GAMES.items()},
                           ladders=[tab for tab in tabs if tab["game"] == game])


def _rules_link(target: str) -> str | None:
    """Rule books link to each other by file name (``sore-spot.md``); on the site they are pages."""
    file, _, anchor = target.partition("#")
    book = file.removesuffix(".md")
    if book == "README":
        url = url_for("web.rules_index")
    elif book in engine.GAMES:
        url = url_for("web.rules_page", game_id=book)
    else:
        return None
    return f"{url}#{anchor}" if anchor else url


@blp.get("/tables/<table_id>")
def table_page(table_id: str) -> Response | str:
    tables = services().tables
    record = tables.load_table(table_id)
    if record.status == TableStatus.OVER and request.args.get("live") != "1":
        return redirect(url_for("web.table_replay_page", table_id=table_id))
    seat_names = _seat_names(record, "open seat")
    return _page("live.html", tabs=data.ladder_tabs(services().arena), current=None, table_id=table_id,
                 match_id=None, game=record.game, name=data.game_name(record.game), seat_names=seat_names,
                 state_url=url_for("tables.get_table", table_id=table_id),
                 replay_url=url_for("web.table_replay_page", table_id=table_id))


@blp.get("/tables/<table_id>/replay")
def table_replay_page(table_id: str) -> str:
    tables = services().tables
    record = tables.load_table(table_id)
    names = _seat_names(record, "seat")
    return _replay(tables.replay_record(table_id), names, title=f"Table {table_id}", back=None, current=None,
                   analysis_url=url_for("analysis.request_table_analysis", table_id=table_id))


def _seat_names(record: Any, open_label: str) -> list[str]:
    """Seat labels of an API table: registered bots (arena-hosted games) by name, house bots by theirs."""
    registered: dict[str, str] = {}
    for seat in record.seats:
        if seat.name and not seat.name.startswith(HOUSE_PREFIX) and seat.kind.value == "bot":
            with contextlib.suppress(BotNotFound):  # deleted since: show its id
                registered[seat.name] = services().bots.get(seat.name)["name"]
    return [data.seat_label(s.name, f"{open_label} {i}", registered) for i, s in enumerate(record.seats)]


def _replay(record: dict[str, Any], names: list[str], title: str, back: str | None,
            current: str | None, analysis_url: str,
            latencies: dict[int, tuple[float, str]] | None = None) -> str:
    frames = data.with_latencies(replay_frames(record), latencies or {},
                                 [move["seat"] for move in record.get("moves", [])])
    return _page("replay.html", tabs=data.ladder_tabs(services().arena), current=current, title=title,
                 back=back, game=record["game"], name=data.game_name(record["game"]), seat_names=names,
                 frames=frames, analysis_url=analysis_url)


@blp.get("/play")
def play_page() -> str:
    """Open a table against bots of your choice and play it (static/play.js, through the public API)."""
    games = []
    for game_id, info in engine.GAMES.items():
        bots = [{"seat": f"bot:{bot['bot_id']}", "name": bot["name"]}
                for bot in services().bots.list(game_id, limit=200)
                if bot["accepts_challenges"] and bot["url"] and bot["enabled"]]
        games.append({"id": game_id, "name": info.name, "min": info.min_players, "max": info.max_players,
                      "house": list(house_bots_for(game_id)), "bots": bots,
                      "options": {name: {"default": spec.default, "doc": spec.doc}
                                  for name, spec in info.options.items() if spec.kind is int}})
    return _page("play.html", tabs=data.ladder_tabs(services().arena), current=None, games=games,
                 tables_url=url_for("tables.create_table"))


@blp.get("/play/<table_id>")
def play_table_page(table_id: str) -> str:
    """Play your seat at a table: the token this browser got when it joined (kept in localStorage)."""
    record = services().tables.load_table(table_id)
    return _page("play_table.html", tabs=data.ladder_tabs(services().arena), current=None, table_id=table_id,
                 game=record.game, name=data.game_name(record.game),
                 seat_names=_seat_names(record, "open seat"),
                 seats_url=url_for("tables.get_table", table_id=table_id) + "/seats/",
                 watch_url=url_for("web.table_page", table_id=table_id, live=1),
                 replay_url=url_for("web.table_replay_page", table_id=table_id),
                 rules_url=url_for("web.rules_page", game_id=record.game))


@blp.get("/replay")
def file_replay_page() -> str:
    """Replay a record file the user has: read and replayed by the browser (static/replay_rules.js), whose
    page makes no request with it; the server sends only the page."""
    return _page("replay_file.html", tabs=data.ladder_tabs(services().arena), current=None,
                 games={gid: info.name for gid, info in engine.GAMES.items()})
