"""Registered bots at a table a person opens: which may sit there (a pure check of their records).

Design: docs/arena.md#people-at-the-table
"""

from __future__ import annotations

from collections.abc import Callable

from core.arena.challenges import registered_member
from core.arena.model import MemberKind
from core.errors import BadChallenge, BadSeats, BotNotFound

BOT_SEAT_PREFIX = "bot:"  # a seat named "bot:<bot id>" is a registered bot's
OPEN_SEAT = "open"


def guest_bot_id(name: str) -> str | None:
    """The bot id a seat name stands for ("bot:0f3c9a1b2c3d4e5f"), else None.

    >>> guest_bot_id("bot:0f3c9a1b2c3d4e5f"), guest_bot_id("heuristic"), guest_bot_id("bot:")
    ('0f3c9a1b2c3d4e5f', None, None)
    """
    bot_id = name[len(BOT_SEAT_PREFIX):] if name.startswith(BOT_SEAT_PREFIX) else ""
    return bot_id or None


def check_guests(game: str, seats: list[str], record: Callable[[str], dict[str, str]],
                 owns: Callable[[str], bool]) -> None:
    """Refuse the registered bots named in `seats` (the seats as the request names them: "open", a house bot,
    "bot:<id>") that may not sit at a table a person opens: BadSeats for a bot
    named twice, a table with no open seat, a bot that does not play the game or has no URL (it plays
    through the move API); ChallengeNotAccepted for another owner's bot that does not accept challenges,
    or a suspended one. `record(bot_id)`: its raw record (BotNotFound if none); `owns(bot_id)`: the
    request's token manages it (its owner may seat it even with challenges off, or disabled)."""
    guests = [(index, bot_id) for index, name in enumerate(seats) if (bot_id := guest_bot_id(name))]
    if not guests:
        return
    names = [bot_id for _, bot_id in guests]
    if len(set(names)) != len(names):
        raise BadSeats("a registered bot takes one seat of a table: name each once",
                       errors={"seats": ["a bot named twice"]})
    if OPEN_SEAT not in seats:
        raise BadSeats("a table with a registered bot keeps a seat 'open' for a person (bots meet bots in "
                       "challenges)", errors={"seats": ["no open seat"]})
    for index, bot_id in guests:
        try:
            member = registered_member(bot_id, record(bot_id), game, owned=owns(bot_id))
        except BadChallenge as refused:
            why = f"{index}: {refused.detail}"
            raise BadSeats(f"seat {why}", errors={"seats": [why]}) from None
        except BotNotFound:
            raise BadSeats(f"seat {index}: no bot {bot_id!r}", errors={"seats": [f"{index}: no such bot"]}) \
                from None
        if member.kind is not MemberKind.HTTP:
            raise BadSeats(f"seat {index}: bot {bot_id} has no URL (it plays through the move API); only a "
                           "bot the arena calls over HTTP can be seated at a person's table",
                           errors={"seats": [f"{index}: a polling bot"]})
