"""The Lua scripts of the table store (core.tables): each runs atomically inside Redis."""

# Commit a computed move iff the table is still at the version it was computed from.
COMMIT_SCRIPT = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'status', ARGV[4], 'to_act', ARGV[5],
           'decision_since', ARGV[6], 'turn_started', ARGV[7], 'updated', ARGV[8])
for i = 12, #ARGV, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
if ARGV[10] ~= '' then redis.call('HSET', KEYS[1], 'record', ARGV[10]) end
-- ARGV[11]: seconds to keep the table from now (finished: retention; playing: idle limit); 0 = forever
local ttl = tonumber(ARGV[11])
if ttl > 0 then
  for k = 1, 3 do redis.call('EXPIRE', KEYS[k], ttl) end
end
redis.call('PUBLISH', ARGV[9], ARGV[2])
return 1
"""


# A seat's state in one command (one reply to parse), consistent with the last commit.
SNAPSHOT_SCRIPT = """
local t = redis.call('HMGET', KEYS[1], ARGV[1], 'players', 'version', 'status', 'to_act', 'turn_started',
                     'move_timeout')
t[8] = redis.call('HGET', KEYS[2], ARGV[2])
return t
"""


# The table record plus the moves logged from index ARGV[1] on (none if ARGV[1] is -1), atomically.
SYNC_SCRIPT = """
local record = redis.call('HGETALL', KEYS[1])
local missing = {}
local from = tonumber(ARGV[1])
if from >= 0 and #record > 0 then missing = redis.call('LRANGE', KEYS[2], from, -1) end
return {record, missing}
"""
