"""A trained policy ``(observation, action_mask) -> action`` as a Trick Arena bot in one call: the arena's
view is encoded by :func:`training.encoding.encode`, the environments' own encoder: what was trained plays.
Design: docs/training.md#from-a-policy-to-a-bot
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from trickarena import Bot
from trickarena.types import GAME_IDS, Move, View

from .encoding import action_mask, card_code, encode

#: A policy: the encoded observation and the int8 mask of legal actions in, one action (a card int) out.
Policy = Callable[[np.ndarray, np.ndarray], int]


class PolicyBot(Bot):
    """A :class:`trickarena.Bot` deciding with ``policy``; a pass is asked of it one card at a time, with the
    cards already picked in the observation and out of the mask (as in the environments). An action outside
    the mask is replaced by the lowest legal card and counted in ``illegal``."""

    def __init__(self, policy: Policy, name: str = "policy-bot", games: Sequence[str] = GAME_IDS,
                 author: str = "anonymous") -> None:
        self.policy = policy
        self.name = name  # per instance: one class serves any policy
        self.author = author
        self.games = tuple(games)
        self.illegal = 0

    def choose(self, view: View) -> Move:
        decision: dict[str, Any] = view["decision"]
        picked: list[int] = []
        for _ in range(int(decision["count"])):
            mask = action_mask(view, picked)
            action = int(self.policy(encode(view, picked), mask))
            if not 0 <= action < len(mask) or not mask[action]:
                self.illegal += 1
                action = int(np.flatnonzero(mask)[0])
            picked.append(action)
        if decision["kind"] == "pass":
            return [card_code(c) for c in picked]
        return card_code(picked[0])


def policy_bot(policy: Policy, name: str = "policy-bot", games: Sequence[str] = GAME_IDS,
               author: str = "anonymous") -> PolicyBot:
    """``policy`` as a bot: ``policy_bot(p).serve(port=9001)`` serves the bot protocol over HTTP,
    ``policy_bot(p).play_ladder(api, bot_id, token)`` polls its ladder seats, ``trickarena.run(...)`` gives it
    the starters' command line."""
    return PolicyBot(policy, name, games, author)
