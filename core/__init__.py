"""Shared by the API and the arena, with no web framework.

- ``core.settings``, ``core.keys``, ``core.errors``, ``core.tokens``, ``core.queues``: configuration, every
  Redis key, the domain errors, seat and owner tokens, the jobs the API hands to the arena by name;
- ``core.redis``: the Redis transport (connections, the pipelined lane, table notifications, store health);
- ``core.tables``: API tables (the record, the store that commits moves in Lua, the process's game cache);
- ``core.arena``: bots, ladders and ratings (the registry, the arena store, Elo, matchmaking inputs, the URL
  guard, presence, live feeds);
- ``core.analysis``: requested game analyses and their results.
"""
