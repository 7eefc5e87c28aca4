"""API tables in Redis: the record and its codec (record), the store (store; moves committed atomically by
the Lua scripts of lua), the seat answer's wire format (answer), the move checks (checks), the per-seat
move limit (posts) and the game cache (cache)."""
