"""Challenges: an unrated match between bots a bot's owner picks (core.arena.challenges).

``POST /api/challenges`` queues the match and answers 201 with its URL; ``GET /api/challenges/{id}`` tells how
it stands. The match itself is served at ``/api/matches/{id}`` (same id), as a ladder match is.
Design: docs/arena.md#challenges
"""

from __future__ import annotations

from typing import Any

from flask import current_app, request, url_for

from api.arguments import Blueprint
from api.auth import bearer_token
from api.matchjson import match_json
from api.problems import refusals
from api.schemas.challenges import ChallengeCreateSchema, ChallengeSchema
from api.services import services
from core.arena.challenges import JOB_TIMEOUT_S, ChallengeRequest, ChallengeStore, entrant_names
from core.arena.model import MatchSpec
from core.queues import enqueue_challenge

blp = Blueprint("challenges", __name__, url_prefix="/api/challenges",
                description="Challenges: unrated matches between chosen bots")

OWNER = [{"ownerToken": []}, {"apiKey": []}]


def challenge_json(doc: dict[str, Any]) -> dict[str, Any]:
    spec = doc["spec"]
    names = entrant_names(doc)
    bots = [m["bot_id"] for m in spec["entrants"]]
    cid = doc["match_id"]
    return {"challenge_id": cid, "status": doc["status"], "challenger": doc["challenge"]["challenger"],
            "game": spec["game"], "players": spec["players"], "games": MatchSpec.from_json(spec).games,
            "duplicate": spec["duplicate"], "options": spec["options"], "bots": bots,
            "names": [names[b] for b in bots], "created": doc.get("created", 0.0), "match": match_json(doc),
            "url": url_for("challenges.get_challenge", challenge_id=cid),
            "match_url": url_for("ladders.get_match", match_id=cid),
            "web_url": url_for("web.challenge_page", challenge_id=cid)}


def _store() -> ChallengeStore:
    return services().challenges


@blp.post("")
@blp.arguments(ChallengeCreateSchema())
@blp.response(201, ChallengeSchema())
@refusals(blp, bad_challenge="the bots and the format do not fit: players equal to the bots and within the "
                             "game's range, a duplicate match's games a multiple of its players, each bot "
                             "named once, options valid for the game (`errors` says which)",
          challenge_not_accepted="another owner's bot that does not accept challenges")
@blp.doc(security=OWNER)
def create_challenge(body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Challenge: one unrated match between the bots named, played by the arena's challenge workers below
    the ladder's priority. Never rated, never on a ladder's standings; dealt from a fresh secret seed.

    The owner token of one of the bots, or its account's API key (403 `bad-token` otherwise). Every other
    registered bot must be yours too or accept challenges (`accepts_challenges`, set with PATCH
    /api/bots/{id}; 409 `challenge-not-accepted` otherwise); house bots always do. Quotas per owner: 429
    `challenge-quota-exceeded` (queued or running at once, or created per UTC day), and of all owners 503
    `challenge-queue-full`, both with Retry-After.
    """
    token = bearer_token(request.headers.get("Authorization"))
    registry = services().bots

    def owns(bot_id: str) -> dict[str, str] | None:
        return registry.managed(bot_id, token)

    challenges = _store()
    spec, owner, challenger = challenges.plan(ChallengeRequest(
        body["game"], body["bots"], body.get("players"), body.get("games"), body.get("duplicate"),
        body.get("options")), owns)
    doc = challenges.create(spec, owner, challenger)
    enqueue_challenge(services().challenge_queue, spec.match_id, current_app.config["KEY_PREFIX"],
                      JOB_TIMEOUT_S)
    answer = challenge_json(doc)
    return answer, 201, {"Location": answer["url"]}


@blp.get("/<challenge_id>")
@blp.response(200, ChallengeSchema())
def get_challenge(challenge_id: str) -> dict[str, Any]:
    """One challenge: its bots and format, and its match (seed, results and replays once played)."""
    return challenge_json(_store().get(challenge_id))
