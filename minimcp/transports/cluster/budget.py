"""The Redis event store's byte budget: lesson 08's rule, kept in Redis for all workers (lesson 11).

Lesson 08's memory store bounds its events in bytes, not only in number: a client chooses what its
events carry (a 1 MB ``progressToken`` is copied into every progress notice), so a count alone is no
bound. The Redis store keeps the same budget, shared by all the workers: over ``max_bytes``, the
least recently used streams are forgotten first, then the current stream's oldest events; the newest
event always stays, even alone over the budget, since a client resumes from it.

Each step must see what the other workers just did, so each is one Lua script, which Redis runs
whole, with nothing in between. Beside the streams, Redis keeps three keys of accounts:

* ``mcp:budget:sizes``, a hash: the bytes of events each stream holds;
* ``mcp:budget:used``, a sorted set: each stream, scored by when it was last used (Unix time);
* ``mcp:budget:total``: the bytes of events in all streams.

A stream that Redis expired (unused for ``ttl`` seconds) leaves its accounts behind; the next append
finds it among the streams unused that long, and settles them.
"""

from __future__ import annotations

#: The keys of the accounts, as the scripts take them: KEYS[1], KEYS[2], KEYS[3].
ACCOUNTS = ["mcp:budget:sizes", "mcp:budget:used", "mcp:budget:total"]

# Shared by both scripts. ARGV[1] is the prefix of the streams' keys: the scripts name a stream's
# key themselves, which a single Redis allows (a Redis Cluster would want every key in KEYS).
FORGET = """
local sizes, used, total, prefix = KEYS[1], KEYS[2], KEYS[3], ARGV[1]

local function forget(stream)
    redis.call('DEL', prefix .. stream)
    redis.call('DECRBY', total, tonumber(redis.call('HGET', sizes, stream) or '0'))
    redis.call('HDEL', sizes, stream)
    redis.call('ZREM', used, stream)
end

local function data_size(fields)
    for i = 1, #fields, 2 do
        if fields[i] == 'data' then return #fields[i + 1] end
    end
    return 0
end

local function drop_oldest(stream)
    local oldest = redis.call('XRANGE', prefix .. stream, '-', '+', 'COUNT', 1)[1]
    redis.call('XDEL', prefix .. stream, oldest[1])
    local size = data_size(oldest[2])
    redis.call('HINCRBY', sizes, stream, 0 - size)  -- not -size: Redis refuses "-0"
    redis.call('DECRBY', total, size)
end
"""

# --8<-- [start:append]
#: Append one entry to a stream, within the budget. ARGV: the prefix, the stream, whether the
#: entry may create the stream ("1"; a control entry may not), max_events, max_bytes, ttl, now,
#: then the entry's fields and values. Returns the entry's id, or false if nothing was written.
APPEND = (
    FORGET
    + """
local stream, creates = ARGV[2], ARGV[3] == '1'
local max_events, max_bytes = tonumber(ARGV[4]), tonumber(ARGV[5])
local ttl, now = tonumber(ARGV[6]), tonumber(ARGV[7])
local key = prefix .. stream
if not creates and redis.call('EXISTS', key) == 0 then return false end
for _, old in ipairs(redis.call('ZRANGEBYSCORE', used, '-inf', now - ttl)) do forget(old) end

local fields = {unpack(ARGV, 8)}
local id = redis.call('XADD', key, '0-*', unpack(fields))
redis.call('EXPIRE', key, ttl)
redis.call('HINCRBY', sizes, stream, data_size(fields))
redis.call('INCRBY', total, data_size(fields))
redis.call('ZADD', used, now, stream)
while redis.call('XLEN', key) > max_events do drop_oldest(stream) end

local function over() return tonumber(redis.call('GET', total)) > max_bytes end
while over() do  -- the least recently used streams first
    local others = redis.call('ZRANGE', used, 0, 1)
    local other = others[1] ~= stream and others[1] or others[2]
    if not other then break end
    forget(other)
end
while over() and redis.call('XLEN', key) > 1 do drop_oldest(stream) end  -- then our oldest
return id
"""
)
# --8<-- [end:append]

#: Forget streams and their accounts. ARGV: the prefix, then the streams.
FORGET_STREAMS = (
    FORGET
    + """
for i = 2, #ARGV do forget(ARGV[i]) end
return true
"""
)
