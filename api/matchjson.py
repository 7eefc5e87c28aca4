"""A match as the API answers it: the one mapping the ladders' and the challenges' routes share."""

from __future__ import annotations

from collections import Counter
from typing import Any

from flask import url_for

from core.arena.challenges import is_challenge
from core.arena.lookup import PUBLISHED
from core.arena.model import FINAL_STATUSES, MatchStatus

FINISHED = FINAL_STATUSES


def match_json(doc: dict[str, Any]) -> dict[str, Any]:
    """A match document as the API answers it (`GET /api/matches/{id}`, a ladder's recent matches, a
    challenge's match): the seed only once finished, replays only once published."""
    spec = doc["spec"]
    held = doc["status"] == MatchStatus.HELD  # a tournament's table whose deals other tables still play
    finished = doc["status"] in FINISHED and not held
    result = {} if held else doc.get("result") or {}
    calls = None
    if result.get("calls"):
        calls = {}
        for bot, stats in result["calls"].items():
            outcomes = Counter(outcome for kind, outcome, _ in stats["log"] if kind == "move")
            calls[bot] = {"moves": stats["moves"], "outcomes": dict(outcomes),
                          "mean_latency_ms": round(stats["latency_ms_sum"] / stats["moves"], 3)
                          if stats["moves"] else None}
    replays = [url_for("ladders.get_replay", match_id=doc["match_id"], game_no=g["game_no"])
               for g in result.get("games", [])] if doc["status"] in PUBLISHED else []
    return {
        "match_id": doc["match_id"], "ladder_id": doc["ladder_id"], "challenge": is_challenge(doc),
        "tournament": doc["tournament"]["tournament_id"] if "tournament" in doc else None,
        "status": doc["status"],
        "game": spec["game"], "duplicate": spec["duplicate"],
        "entrants": [m["bot_id"] for m in spec["entrants"]],
        "seed": result.get("seed", spec["seed"]) if finished else None, "attempts": doc.get("attempts", 0),
        "created": doc.get("created", 0.0), "finished": doc.get("finished"),
        "aborted_because": doc.get("aborted_because"), "totals": result.get("totals"),
        "places": result.get("places"), "deltas": result.get("deltas"), "winners": result.get("winners"),
        "forfeited": result.get("forfeited"), "strikes": result.get("strikes"), "calls": calls,
        "games": result.get("games"), "replays": replays,
        "url": url_for("ladders.get_match", match_id=doc["match_id"]),
    }
