"""The Lua scripts of the table store (core.tables.store): each runs atomically inside Redis."""

# The per-seat move limit (core.tables.posts.PostLimit), counted inside whichever script a move post runs
# first, so counting costs no round trip of its own. `counter` is a hash {v: table version, n: posts at v} per
# (table, seat, poster's token); it starts over when the table's version changes. Returns the seconds left
# in the window when this post is over `limit`, else 0.
SEAT_POSTS_FUNCTION = """
local function over_seat_limit(counter, version, limit, window)
  version = version or '-'
  local n
  if redis.call('HGET', counter, 'v') ~= version then
    redis.call('HSET', counter, 'v', version, 'n', 1)  -- both fields: the old count is gone
    redis.call('EXPIRE', counter, window)
    n = 1
  else
    n = redis.call('HINCRBY', counter, 'n', 1)
  end
  if n <= limit then return 0 end
  local ttl = redis.call('TTL', counter)
  if ttl < 1 then ttl = 1 end
  return ttl
end
"""

# Count one move post alone (a post refused before it reaches the store, e.g. a malformed body).
# KEYS: 1 table hash, 2 counter. ARGV: 1 limit, 2 window s. Returns what over_seat_limit returns.
SEAT_POSTS_SCRIPT = SEAT_POSTS_FUNCTION + """
return over_seat_limit(KEYS[2], redis.call('HGET', KEYS[1], 'version'), tonumber(ARGV[1]), tonumber(ARGV[2]))
"""

# Commit a computed move iff the table is still at the version it was computed from.
# ARGV: 1 that version, 2 the new one (published on the table's channel ARGV[4]), 3 the move log entry,
# 5 seconds to keep the table from now (finished: retention; playing: idle limit; 0 = forever), 6 limit and
# 7 window s of the post counter KEYS[4] if given (then the post is counted first: -seconds if over the
# limit), 8 the number n of record items that follow: field, value, ... (core.tables.record), then every
# view: name, JSON, name, JSON, ...
COMMIT_SCRIPT = SEAT_POSTS_FUNCTION + """
local version = redis.call('HGET', KEYS[1], 'version')
if KEYS[4] then
  local wait = over_seat_limit(KEYS[4], version, tonumber(ARGV[6]), tonumber(ARGV[7]))
  if wait > 0 then return -wait end
end
if version ~= ARGV[1] then return 0 end
local n = tonumber(ARGV[8])
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('HSET', KEYS[1], unpack(ARGV, 9, 8 + n))
redis.call('HSET', KEYS[3], unpack(ARGV, 9 + n))
local ttl = tonumber(ARGV[5])
if ttl > 0 then
  for k = 1, 3 do redis.call('EXPIRE', KEYS[k], ttl) end
end
redis.call('PUBLISH', ARGV[4], ARGV[2])
return 1
"""


# A seat's state in one command (one reply to parse), consistent with the last commit: the token hash
# (field ARGV[1]), the table fields and the seat's stored answer (ARGV[2]).
SNAPSHOT_SCRIPT = """
local t = redis.call('HMGET', KEYS[1], ARGV[1], 'players', 'version', 'status', 'to_act')
t[6] = redis.call('HGET', KEYS[2], ARGV[2])
return t
"""

# Claim a seat: its token hash in the table (KEYS[1] field ARGV[1]) unless the seat is taken, and a copy in
# the views hash (KEYS[2] field ARGV[2]) for the seat's plain reads. Returns 1 if claimed, else 0.
JOIN_SCRIPT = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[3]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 1
"""


# The table record plus the moves logged from index ARGV[1] on (none if ARGV[1] is -1), atomically, and
# with KEYS[3] (the poster's counter; ARGV[2] limit, ARGV[3] window s) the post counted first: the third
# element is the seconds to wait if it is over the limit (record and moves are then left out), else 0.
SYNC_SCRIPT = SEAT_POSTS_FUNCTION + """
if KEYS[3] then
  local wait = over_seat_limit(KEYS[3], redis.call('HGET', KEYS[1], 'version'), tonumber(ARGV[2]),
                               tonumber(ARGV[3]))
  if wait > 0 then return {{}, {}, wait} end
end
local record = redis.call('HGETALL', KEYS[1])
local missing = {}
local from = tonumber(ARGV[1])
if from >= 0 and #record > 0 then missing = redis.call('LRANGE', KEYS[2], from, -1) end
return {record, missing, 0}
"""
