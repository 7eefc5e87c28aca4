"""API tables in Redis: the record, the store (moves committed atomically by Lua), the game cache."""
