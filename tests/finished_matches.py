"""A registered bot's finished matches, as its export lists them: rated matches on two ladders and played
challenges, in turn, each played by the arena's own job function against a real HTTP bot."""

from __future__ import annotations

import secrets

from arena.jobs import play_match
from core.arena.challenges import ChallengeStore
from core.arena.model import LadderConfig, Member, MemberKind
from core.arena.store import ArenaStore
from core.settings import Settings
from tests.scenarios import match_spec

HOUSE = ("heuristic", "eps-0.5", "random")
LADDERS = (LadderConfig("ss-4p", "sore-spot", 4, {"rounds": 1}, house_bots=HOUSE),  # duplicate: 4 games
           LadderConfig("ss-3p", "sore-spot", 3, {"rounds": 1}, house_bots=HOUSE))


def entrants(bot_id: str, url: str, players: int) -> list[Member]:
    return [Member(bot_id, MemberKind.HTTP, url=url, name="exported"),
            *(Member.house(name) for name in HOUSE)][:players]


def play_ladder_match(store: ArenaStore, settings: Settings, ladder: LadderConfig, bot_id: str,
                      url: str) -> str:
    """One rated match of `ladder`: the bot and house bots."""
    spec = match_spec(f"m{secrets.token_hex(6)}", entrants(bot_id, url, ladder.players), game=ladder.game,
                      ladder_id=ladder.ladder_id, options=ladder.options, seed=secrets.randbelow(2**53),
                      duplicate=bool(ladder.duplicate), deadline_ms=3000)
    store.create_match(spec)
    outcome = play_match(store, spec.match_id, worker="export-tests", settings=settings)
    assert outcome["status"] == "rated", outcome
    return spec.match_id


def play_challenge(store: ArenaStore, settings: Settings, bot_id: str, url: str, games: int = 2) -> str:
    """A challenge of the bot against two house bots, created as the API creates it and played to the end."""
    spec = match_spec(f"c{secrets.token_hex(8)}", entrants(bot_id, url, 3), ladder_id="",
                      seed=secrets.randbelow(2**53), deadline_ms=3000, challenge=True, game_count=games)
    challenges = ChallengeStore(store)
    challenges.create(spec, owner=f"bot:{bot_id}", challenger=bot_id)
    outcome = play_match(store, spec.match_id, worker="export-tests", settings=settings)
    assert outcome["status"] == "played", outcome
    return spec.match_id


def play_matches(store: ArenaStore, settings: Settings, bot_id: str, url: str, rounds: int = 2) -> list[str]:
    """`rounds` times: a match on each ladder and a challenge (saved first); their ids, oldest first."""
    for ladder in LADDERS:
        store.save_ladder(ladder)
    played = []
    for _ in range(rounds):
        played += [play_ladder_match(store, settings, LADDERS[0], bot_id, url),
                   play_challenge(store, settings, bot_id, url),
                   play_ladder_match(store, settings, LADDERS[1], bot_id, url)]
    return played
