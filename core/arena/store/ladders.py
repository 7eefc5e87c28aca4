"""The arena store's ladders section: ladder configs and their members (house bots and registered bots)."""

from __future__ import annotations

import json

from core import keys
from core.arena.elo import INITIAL_RATING
from core.arena.model import LadderConfig, Member, MemberKind
from core.arena.store.base import StoreBase


class LadderStore(StoreBase):
    def save_ladder(self, config: LadderConfig) -> None:
        """Create or update a ladder; its house bots become (permanent) members rated from 1500, and house
        bots an update no longer names stop being matched (their rating and history stay, as a removed
        registered bot's do)."""
        p = self.prefix
        wanted = [Member.house(name) for name in config.house_bots or ()]
        retired = [m.bot_id for m in self.members(config.ladder_id) if m.kind is MemberKind.HOUSE
                   and m.bot_id not in {w.bot_id for w in wanted}]
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(keys.arena_ladder(p, config.ladder_id), json.dumps(config.to_json()))
        pipe.incr(keys.bots_generation(p))  # its house bots may have changed: the scheduler re-reads members
        pipe.sadd(keys.arena_ladders(p), config.ladder_id)
        if retired:
            pipe.hdel(keys.arena_members(p, config.ladder_id), *retired)
        for member in wanted:
            pipe.hset(keys.arena_members(p, config.ladder_id), member.bot_id, json.dumps(member.to_json()))
            pipe.zadd(keys.arena_ratings(p, config.ladder_id), {member.bot_id: INITIAL_RATING}, nx=True)
        answers = pipe.execute()
        if wanted:
            self._add_unrated(config.ladder_id, [m.bot_id for m in wanted], answers[-2 * len(wanted) + 1::2])

    def ladder(self, ladder_id: str) -> LadderConfig | None:
        raw = self.redis.get(keys.arena_ladder(self.prefix, ladder_id))
        return LadderConfig.from_json(json.loads(raw)) if raw else None

    def ladders(self) -> list[LadderConfig]:
        ids = sorted(self.redis.smembers(keys.arena_ladders(self.prefix)))
        return [ladder for ladder in (self.ladder(i) for i in ids) if ladder is not None]

    def members(self, ladder_id: str) -> list[Member]:
        raw = self.redis.hgetall(keys.arena_members(self.prefix, ladder_id))
        return [Member.from_json(json.loads(v)) for _, v in sorted(raw.items())]

    def members_of(self, ladder_id: str, bot_ids: list[str]) -> dict[str, Member]:
        """The members among `bot_ids` by bot id (one that left the ladder is missing)."""
        if not bot_ids:
            return {}
        raws = self.redis.hmget(keys.arena_members(self.prefix, ladder_id), bot_ids)
        return {b: Member.from_json(json.loads(raw)) for b, raw in zip(bot_ids, raws, strict=True) if raw}

    def member_count(self, ladder_id: str) -> int:
        return int(self.redis.hlen(keys.arena_members(self.prefix, ladder_id)))

    def member_names(self, ladder_id: str) -> dict[str, str]:
        """Display name of every member by bot id (the bot id where a member has no name)."""
        return {m.bot_id: m.name or m.bot_id for m in self.members(ladder_id)}

    def set_members(self, ladder_id: str, wanted: list[Member]) -> tuple[list[str], list[str]]:
        """Make the registered (non-house) members exactly `wanted`; returns (added, removed) bot ids.

        A removed bot keeps its rating and history (it may come back); it just is not matched any more.
        """
        p = self.prefix
        current = {m.bot_id: m for m in self.members(ladder_id) if m.kind is not MemberKind.HOUSE}
        wanted_by_id = {m.bot_id: m for m in wanted}
        removed = [b for b in current if b not in wanted_by_id]
        changed = [m for b, m in wanted_by_id.items() if current.get(b) != m]
        if not removed and not changed:
            return [], []
        pipe = self.redis.pipeline(transaction=True)
        if removed:
            pipe.hdel(keys.arena_members(p, ladder_id), *removed)
        for member in changed:
            pipe.hset(keys.arena_members(p, ladder_id), member.bot_id, json.dumps(member.to_json()))
            pipe.zadd(keys.arena_ratings(p, ladder_id), {member.bot_id: INITIAL_RATING}, nx=True)
        answers = pipe.execute()
        if changed:
            self._add_unrated(ladder_id, [m.bot_id for m in changed], answers[-2 * len(changed) + 1::2])
        return [m.bot_id for m in changed if m.bot_id not in current], removed

    def _add_unrated(self, ladder_id: str, bot_ids: list[str], added: list[int]) -> None:
        """List the bots whose rating was just created (`added`: ZADD NX's answers) as new on the ranking."""
        fresh = {bot_id: 0 for bot_id, one in zip(bot_ids, added, strict=True) if one}
        if fresh:
            self.redis.zadd(keys.arena_unrated(self.prefix, ladder_id), fresh)
