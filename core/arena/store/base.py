"""What every section of the arena store shares: its connection, key prefix and Lua scripts."""

from __future__ import annotations

from typing import Any, overload

from redis.commands.core import Script

from core.redis.connections import StrRedis


class StoreBase:
    """The connection (decoding replies) and key prefix of an arena store; each section adds its methods."""

    redis: StrRedis
    prefix: str


class LuaScript:
    """A section's Lua script, declared where it is used; registered on a store's connection on first use.

    Registering sends nothing (redis-py runs it by its SHA and loads it only if Redis lacks it).
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.attribute = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.attribute = f"_registered{name}"

    @overload
    def __get__(self, store: None, owner: type) -> LuaScript: ...

    @overload
    def __get__(self, store: StoreBase, owner: type) -> Script: ...

    def __get__(self, store: StoreBase | None, owner: type) -> Any:
        if store is None:
            return self
        script = store.__dict__.get(self.attribute)
        if script is None:
            script = store.__dict__[self.attribute] = store.redis.register_script(self.source)
        return script
