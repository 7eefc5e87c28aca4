"""A local match between bot URLs and house bots, played by the arena's own match runner (same deadlines,
strikes, fallback); game ``g`` seats the bots rotated by ``g mod n`` and deals from ``seed + g // n``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import click

import engine
from arena.botclient import BotClient
from arena.drivers import HouseDriver, HttpDriver, SeatDriver
from arena.match import MatchRunner
from core.arena.model import HOUSE_PREFIX, MatchSpec, Member, MemberKind
from core.arena.netguard import UnsafeURLError, split_bot_url
from engine.bots.names import describe_house_bot_names, is_house_bot_name
from engine.errors import OptionsError


@dataclass
class BotTally:
    bot_id: str
    url: str
    name: str
    games: int = 0
    wins: int = 0
    points: int = 0
    strikes: int = 0
    forfeits: int = 0
    moves: int = 0
    latency_ms: float = 0.0
    reasons: dict[str, int] = field(default_factory=dict)

    @property
    def mean_latency_ms(self) -> float | None:
        return self.latency_ms / self.moves if self.moves else None

    @property
    def win_share(self) -> float:
        return self.wins / self.games if self.games else 0.0


def house_bot(seat: str) -> str | None:
    """The house bot a seat names (``heuristic``, ``house:search-5``), None for a URL.

    >>> house_bot("heuristic"), house_bot("house:eps-0.3"), house_bot("http://127.0.0.1:9001")
    ('heuristic', 'eps-0.3', None)
    """
    name = seat.removeprefix(HOUSE_PREFIX)
    return name if is_house_bot_name(name) else None


def bot_name(client: BotClient, fallback: str) -> str:
    result = client.info(2.0)
    if not result.ok:
        return fallback
    try:
        return str(json.loads(result.body).get("name") or fallback)
    except (ValueError, AttributeError):
        return fallback


def check_match(urls: list[str], game: str, options: dict[str, Any]) -> dict[str, Any]:
    """The game's full options for `len(urls)` players, or a click.BadParameter naming what is wrong (an
    unknown game, a player count the game is not played by, an unknown or out-of-range option, a URL that
    is not http(s)://host[:port]) before any bot is called."""
    try:
        engine.rules_for(game)
    except OptionsError as error:
        raise click.BadParameter(str(error), param_hint="'--game'") from None
    try:
        engine.validate_options(game, len(urls), {})
    except OptionsError as error:
        raise click.BadParameter(f"{error} (one URL per player)", param_hint="'URLS'") from None
    try:
        checked = engine.validate_options(game, len(urls), options)
    except OptionsError as error:
        raise click.BadParameter(str(error), param_hint="'--options'") from None
    for url in urls:
        if house_bot(url) is not None:
            continue
        try:
            split_bot_url(url)
        except UnsafeURLError as error:
            raise click.BadParameter(f"{url!r}: {error}; or a house bot: {describe_house_bot_names()}",
                                     param_hint="'URLS'") from None
    return checked


def play_local_match(urls: list[str], game: str, games: int, seed: int, options: dict[str, Any] | None = None,
                     deadline_ms: int = 1000, strike_limit: int = 5,
                     on_game: Callable[[int, dict[str, Any]], None] | None = None,
                     on_move: Callable[[], None] | None = None
                     ) -> tuple[list[BotTally], list[dict[str, Any]]]:
    """Play `games` games; returns the per-bot tallies (in `urls` order) and every game's replay record."""
    players = len(urls)
    options = engine.validate_options(game, players, options or {})
    clients = {i: BotClient(url, allow_private=True) for i, url in enumerate(urls) if house_bot(url) is None}
    try:
        names = [house_bot(url) or bot_name(clients[i], f"bot{i}") for i, url in enumerate(urls)]
        # Several copies of one bot are told apart by their seat in the URL list.
        names = [f"{n} #{i + 1}" if names.count(n) > 1 else n for i, n in enumerate(names)]
        members = [Member(f"bot{i}", MemberKind.HTTP if i in clients else MemberKind.HOUSE,
                          url=url if i in clients else None, name=names[i]) for i, url in enumerate(urls)]
        tallies = {m.bot_id: BotTally(m.bot_id, urls[i], m.name or m.bot_id) for i, m in enumerate(members)}
        drivers: dict[str, SeatDriver] = {
            m.bot_id: HttpDriver(clients[i]) if i in clients else HouseDriver(house_bot(urls[i]) or "random",
                                                                                f"{seed}:{i}")
            for i, m in enumerate(members)}
        low_wins = engine.rules_for(game).low_wins
        records: list[dict[str, Any]] = []
        for number in range(games):
            shift = number % players
            seating = members[shift:] + members[:shift]
            spec = MatchSpec(match_id=f"local-{seed}-{number}", ladder_id="local", game=game,
                             players=players, options=options, seed=seed + number // players,
                             duplicate=False, entrants=seating,
                             deadline_ms=deadline_ms, strike_limit=strike_limit,
                             pre_ratings={m.bot_id: 1500.0 for m in members},
                             pre_matches={m.bot_id: 0 for m in members})
            runner = MatchRunner(spec, drivers, heartbeat=on_move)
            result = runner.run()
            _tally(tallies, result)
            records.extend(result.records)
            if on_game is not None:
                on_game(number, {"seating": [m.name for m in seating], "totals": result.games[0]["totals"],
                                 "winners": [tallies[b].name for b in result.winners], "low_wins": low_wins})
        return [tallies[m.bot_id] for m in members], records
    finally:
        for client in clients.values():
            client.close()


def _tally(tallies: dict[str, BotTally], result: Any) -> None:
    for bot_id, tally in tallies.items():
        tally.games += 1
        tally.wins += int(bot_id in result.winners)
        tally.points += int(result.totals.get(bot_id, 0))
        tally.forfeits += int(bot_id in result.forfeited)
        calls = result.calls.get(bot_id)
        if calls is not None:
            tally.moves += calls.move_calls
            tally.latency_ms += calls.latency_sum_ms
    for strike in result.strikes:
        tally = tallies[strike.bot_id]
        tally.strikes += 1
        tally.reasons[strike.reason] = tally.reasons.get(strike.reason, 0) + 1
