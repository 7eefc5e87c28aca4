"""What the web page shows, as plain dicts: rankings, Elo series, recent matches, live tables.

Thin reads over ``core.arena.store.ArenaStore`` and ``core.tables.store.TableStore`` (the same stores the
JSON API reads), with the ranking the JSON API shows too (``core.arena.ranking``); the page's shaping (chart
series, "3 min ago") is pure and tested without I/O.
"""

from __future__ import annotations

import time
from typing import Any

import engine
from core.arena.lookup import PUBLISHED, find_ladder
from core.arena.model import HOUSE_PREFIX, MatchStatus
from core.arena.ranking import Ranking, RankingRow, read_ranking_page
from core.arena.store import ArenaStore
from core.errors import TableNotFound
from core.tables.store import TableStatus, TableStore

PREFERRED_FIRST = "spot-hearts-4p"
CHART_SERIES = 8  # bots drawn on a ladder's Elo chart (the top of the ranking)
SERIES_POINTS = 120  # most recent rating points per bot on the ladder chart


def game_name(game_id: str) -> str:
    info = engine.GAMES.get(game_id)
    return info.name if info else game_id


def ago(timestamp: float | None, now: float | None = None) -> str:
    """'just now', '42 s ago', '5 min ago', '3 h ago', '2 d ago'."""
    if not timestamp:
        return ""
    seconds = max(0.0, (now or time.time()) - timestamp)
    if seconds < 5:
        return "just now"
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return f"{int(seconds)} s ago"


def ladder_tabs(store: ArenaStore) -> list[dict[str, Any]]:
    ladders = sorted(store.ladders(), key=lambda lad: (lad.ladder_id != PREFERRED_FIRST, lad.ladder_id))
    return [{"ladder_id": lad.ladder_id, "game": lad.game, "name": game_name(lad.game),
             "players": lad.players, "duplicate": lad.duplicate} for lad in ladders]


def page_row(row: RankingRow) -> dict[str, Any]:
    """A ranking row as the page shows it: a departed bot's id as its name, kind "left", a whole rating."""
    return {**row.to_json(), "name": row.name or row.bot_id, "kind": row.kind or "left",
            "rating": round(row.rating), "latency_ms": row.mean_latency_ms}


def ranking_rows(table: Ranking) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ladder table as the page shows it: (ranked rows, new rows)."""
    return [page_row(r) for r in table.ranked], [page_row(r) for r in table.new]


def rating_series(history_newest_first: list[dict[str, Any]],
                  limit: int = SERIES_POINTS) -> list[list[float]]:
    """[[unix time, rating], ...] oldest first, starting from the initial rating just before match one."""
    entries = list(reversed(history_newest_first[:limit]))
    points = [[float(e["at"]), round(float(e["rating"]), 1)] for e in entries]
    if entries and len(history_newest_first) <= limit:
        first = entries[0]
        points.insert(0, [float(first["at"]) - 1.0, round(float(first["rating"]) - float(first["delta"]), 1)])
    return points


WEB_PAGE = 100  # ranking rows per page of the ladder page


def ladder_snapshot(store: ArenaStore, tables: TableStore, ladder_id: str, offset: int = 0) -> dict[str, Any]:
    """Everything the live part of a ladder page shows (re-fetched every few seconds): one page of the
    ranking (``WEB_PAGE`` rows from `offset`), so the page costs the same on a ladder of any size."""
    ladder = find_ladder(store, ladder_id)
    page = read_ranking_page(store, ladder_id, offset, WEB_PAGE)
    rows, new = ranking_rows(page.table)
    series = []
    for row in rows[:CHART_SERIES] if offset == 0 else []:
        points = rating_series(store.history(ladder_id, row["bot_id"], SERIES_POINTS + 1))
        row["spark"] = [p[1] for p in points[-30:]]
        series.append({"name": row["name"], "bot_id": row["bot_id"], "points": points})
    names = {row["bot_id"]: row["name"] for row in (*rows, *new)}
    recent_docs = [d for d in store.match_docs(store.recent_matches(ladder_id, RECENT_SHOWN) or []) if d]
    all_active = store.active_matches(ladder_id)
    active_ids = all_active[:IN_PLAY_SHOWN]  # the page lists a few; the count says how many
    active_docs = store.match_docs(active_ids)
    entrants = {m["bot_id"] for doc in (*recent_docs, *(d for d in active_docs if d))
                for m in doc["spec"]["entrants"]}
    unnamed = sorted(entrants - set(names))
    names.update({b: m.name or b for b, m in store.members_of(ladder_id, unnamed).items()})
    return {
        "ladder": {**ladder.to_json(), "name": game_name(ladder.game)},
        "rows": rows, "new": new, "series": series,
        "ranked_total": page.ranked_total, "new_total": page.new_total, "offset": offset,
        "next_offset": page.next_offset, "previous_offset": page.previous_offset,
        "recent": [match_summary(doc, names) for doc in recent_docs],
        "active": len(all_active),
        "in_play": in_play(active_ids, active_docs, names),
        "live_tables": live_tables(tables, ladder.game, names=names),
        "generated": time.time(),
    }


RECENT_SHOWN = 10
IN_PLAY_SHOWN = 12  # matches in play listed on the ladder page (its count shows them all)


def recent_matches(store: ArenaStore, ladder_id: str, names: dict[str, str], limit: int = RECENT_SHOWN
                   ) -> list[dict[str, Any]]:
    docs = store.match_docs(store.recent_matches(ladder_id, limit) or [])
    return [match_summary(doc, names) for doc in docs if doc is not None]


def in_play(active: list[str], docs: list[dict[str, Any] | None], names: dict[str, str]
            ) -> list[dict[str, Any]]:
    """Queued and running matches of the ladder (who plays whom right now)."""
    out = []
    for match_id, doc in zip(active, docs, strict=True):
        if doc is not None and doc["status"] in (MatchStatus.QUEUED, MatchStatus.RUNNING):
            out.append({"match_id": match_id, "status": doc["status"], "ago": ago(doc.get("created")),
                        "ts": doc.get("created"),
                        "entrants": [names.get(m["bot_id"], m.get("name") or m["bot_id"])
                                     for m in doc["spec"]["entrants"]]})
    return sorted(out, key=lambda m: m["status"] != MatchStatus.RUNNING)


def match_summary(doc: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """A finished (or running) match as the page lists it: entrants by place, with rating deltas."""
    result = doc.get("result") or {}
    places, deltas = result.get("places") or {}, result.get("deltas") or {}
    totals = result.get("totals") or {}
    strikes: dict[str, int] = {}
    for strike in result.get("strikes") or []:
        strikes[strike["bot_id"]] = strikes.get(strike["bot_id"], 0) + 1
    entrants = [m["bot_id"] for m in doc["spec"]["entrants"]]
    ordered = sorted(entrants, key=lambda b: (places.get(b, 99), b))
    return {
        "match_id": doc["match_id"], "status": doc["status"], "ladder_id": doc["ladder_id"],
        "game": doc["spec"]["game"], "duplicate": doc["spec"]["duplicate"],
        "finished": doc.get("finished"), "ago": ago(doc.get("finished") or doc.get("created")),
        "ts": doc.get("finished") or doc.get("created"),
        "rated": doc["status"] == MatchStatus.RATED,
        "void": doc["status"] == MatchStatus.VOID,
        "challenge": "challenge" in doc,  # unrated, on no ladder (core.arena.challenges)
        "published": doc["status"] in PUBLISHED,
        "aborted_because": doc.get("aborted_because"),
        "entrants": [{"bot_id": b, "name": names.get(b, b), "place": places.get(b),
                      "delta": deltas.get(b), "total": totals.get(b), "strikes": strikes.get(b, 0),
                      "forfeited": b in (result.get("forfeited") or [])} for b in ordered],
        "games": result.get("games") or [],
        "strikes": result.get("strikes") or [],
    }


def record_row(entry: dict[str, Any]) -> dict[str, Any]:
    """One match of a bot's own record (``ArenaStore.bot_record``) as its page lists it."""
    return {**entry, "ago": ago(entry.get("at")), "ts": entry.get("at"),
            "void": entry.get("status") == MatchStatus.VOID}


def seat_label(name: str | None, kind: str, names: dict[str, str]) -> str:
    """How a seat is shown: a registered bot by its name, a house bot by its engine name, else its kind."""
    if not name:
        return kind
    return names.get(name) or name.removeprefix(HOUSE_PREFIX)


def live_tables(tables: TableStore, game: str | None = None, limit: int = 6, scan: int = 60,
                names: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Tables still being played (newest first), for the spectator links."""
    out = []
    for table_id in tables.list_tables(scan):
        try:
            record = tables.load_table(table_id)
        except TableNotFound:
            continue
        if record.status != TableStatus.PLAYING or (game and record.game != game):
            continue
        out.append({"table_id": table_id, "game": record.game, "name": game_name(record.game),
                    "version": record.version, "ago": ago(record.updated), "ts": record.updated,
                    "seats": [seat_label(s.name, s.kind.value, names or {}) for s in record.seats]})
        if len(out) >= limit:
            break
    return out


def seat_names_for_game(doc: dict[str, Any], game_no: int, names: dict[str, str]) -> list[str]:
    games = (doc.get("result") or {}).get("games") or []
    for game in games:
        if game.get("game_no") == game_no:
            return [names.get(b, b) for b in game["seating"]]
    return [names.get(m["bot_id"], m["bot_id"]) for m in doc["spec"]["entrants"]]


def with_latencies(frames: list[dict[str, Any]], latencies: dict[int, tuple[float, str]],
                   seats: list[int] | None = None) -> list[dict[str, Any]]:
    """The replay's frames with each card of a trick, and each pass or sore card, marked with the latency and
    outcome of the bot call that chose it (``core.arena.latency.move_latencies``; none for house bots).
    `seats`: the seat of each move of the record, for the pass and sore frames (each seat one move there).

    >>> cards = [{"seat": 0, "card": "2C"}, {"seat": 1, "card": "3C"}]
    >>> frame = {"kind": "trick", "moves": 3, "trick": {"cards": cards}}
    >>> with_latencies([frame], {1: (12.5, "ok"), 2: (900.0, "timeout")})[0]["trick"]["cards"][1]
    {'seat': 1, 'card': '3C', 'latency_ms': 900.0, 'outcome': 'timeout'}
    """
    for frame in frames:
        cards = (frame.get("trick") or {}).get("cards") or []
        first = frame["moves"] - len(cards)
        for offset, played in enumerate(cards):
            if first + offset in latencies:
                played["latency_ms"], played["outcome"] = latencies[first + offset]
        if frame["kind"] in ("pass", "sore") and seats is not None:
            players = len(frame["hands"])
            phase = range(max(0, frame["moves"] - players), min(frame["moves"], len(seats)))
            chosen = {seats[index]: latencies[index] for index in phase if index in latencies}
            frame["choice_latencies"] = {str(seat): {"latency_ms": ms, "outcome": outcome}
                                         for seat, (ms, outcome) in chosen.items()}
    return frames

