package redislocker

// A read-write lock (see sharedlua.go for the keys): the lock hash holds,
// besides the holds ("r"+owner, "w"+owner) and the common fields, "w" the
// writer, "k" the write hold's token, "k"+owner each read hold's and "q"
// the number of waiting writers, whose patience is in the leases as
// "q"+owner. A waiting writer keeps new readers out until its patience
// ends; writers do not queue among themselves.

// rwLua is what the read-write scripts splice in.
var rwLua = sharedLua{
	keys: `local H, L = KEYS[1], KEYS[2]`,
	drop: `
for i = 1, #drop do
	local m = drop[i]
	local mode = string.sub(m, 1, 1)
	if mode == 'r' then
		redis.call('HDEL', H, m, 'k' .. string.sub(m, 2))
	elseif mode == 'w' then
		redis.call('HDEL', H, m, 'w', 'k')
	else
		redis.call('HINCRBY', H, 'q', -1)
	end
	redis.call('ZREM', L, m)
end
`,
	idle:  `redis.call('DEL', L) redis.call('HDEL', H, 'x', 'q', 'w', 'k'%s)`,
	reset: `redis.call('DEL', H, L)`,
	owned: `, m, 'k' .. ARGV[2]`,
}

// rwFieldsLua reads the lock hash: x, t, e, b, the writer, the waiting
// writers, the write hold's token, then the fields that close it.
const rwFieldsLua = `redis.call('HMGET', H, 'x', 't', 'e', 'b', 'w', 'q', 'k', `

// rwHeadLua starts both trylock scripts: KEYS lock, leases, marker; ARGV
// owner, lease ms, counter linger ms, and last the publish command.
const rwHeadLua = `
local H, L, M = KEYS[1], KEYS[2], KEYS[3]
local owner = ARGV[1]
local ttl, linger = tonumber(ARGV[2]), tonumber(ARGV[3])
` + timeLua

// rwReadLockSrc: see rwHeadLua for KEYS and ARGV. Returns, as the mutex's
// trylock, {acquired 0|1, holds, token, remaining ms when refused, uptime
// ms or -1}. A read hold is refused while another owner writes or a
// writer waits, unless the owner holds the lock already (a re-entry, or a
// downgrade under its own write hold). A new hold's token is the counter,
// which the hold keeps; the uptime is reported for a new hold.
//
// It takes ten arguments in all (see queueLua), so that a client without
// the server's password gets its plain NOAUTH error.
var rwReadLockSrc = rwHeadLua + rwLua.preludeLua(rwFieldsLua+`'r' .. owner, 'k' .. owner)`) + `
local holds = tonumber(f[8])
if not holds and f[5] ~= owner and (f[5] or (f[6] and f[6] ~= '0')) then
	local all = redis.call('ZREVRANGE', L, 0, -1, 'WITHSCORES')
	local left = -1
	for i = 1, #all, 2 do
		local mode = string.sub(all[i], 1, 1)
		if mode == 'w' or mode == 'q' then left = all[i + 1] - ms break end
	end
	return {0, 0, 0, left, -1}
end
local up, token = -1, t
if holds then
	holds, token = holds + 1, tonumber(f[9]) or t
else
	holds = 1
` + bootLua + `
end
local exp = ms + ttl
local X = math.max(x, exp)
` + sharedKeepLua + `
redis.call('ZADD', L, exp, 'r' .. owner)
redis.call('HSET', H, 'r' .. owner, holds, 'k' .. owner, token, 'x', X, 't', t, 'e', e, 'b', b or -1)
` + sharedExpireLua + `
return {1, holds, token, 0, up}
`

// rwWriteLockSrc: see rwHeadLua for KEYS and ARGV, with patience ms and
// floor before the publish command. Returns as rwReadLockSrc. The write
// hold is refused while anyone else holds the lock, and while the owner
// holds a read hold (no upgrade); refused with a patience, the owner waits
// as a writer until it ends. A new hold's token is the larger of the
// counter plus one, the server's clock in µs and the floor. A waiting
// writer that takes the lock is announced as a waiter that leaves.
var rwWriteLockSrc = rwHeadLua + rwLua.preludeLua(rwFieldsLua+`'w' .. owner, 'r' .. owner)`) + `
local patience, floor = tonumber(ARGV[4]), tonumber(ARGV[5])
local exp = ms + ttl
local X = math.max(x, exp)
if f[5] == owner then
	local holds = f[8] + 1
` + sharedReentryLua(`'w' .. owner`, `tonumber(f[7])`) + `
end
local q = tonumber(f[6]) or 0
if not fresh and (f[5] or f[9] or q == 0 or redis.call('ZCARD', L) > q) then
	if patience > 0 then
		local d = ms + patience
		if redis.call('ZADD', L, d, 'q' .. owner) == 1 then q = q + 1 end
		X = math.max(x, d)
` + sharedKeepLua + `
		redis.call('HSET', H, 'q', q, 'x', X, 'e', e)
` + sharedExpireLua + `
	end
	local all = redis.call('ZREVRANGE', L, 0, -1, 'WITHSCORES')
	local left = -1
	for i = 1, #all, 2 do
		if string.sub(all[i], 1, 1) ~= 'q' then left = all[i + 1] - ms break end
	end
	return {0, 0, 0, left, -1}
end
local up = -1
` + bootLua + `
local token = math.max(t + 1, us, floor)
if q > 0 and redis.call('ZREM', L, 'q' .. owner) == 1 then
	q = q - 1
	` + sharedPublishLua + `
end
` + sharedKeepLua + `
redis.call('ZADD', L, exp, 'w' .. owner)
redis.call('HSET', H, 'w', owner, 'w' .. owner, 1, 'k', token, 'q', q, 't', token, 'x', X, 'e', e, 'b', b)
` + sharedExpireLua + `
return {1, 1, token, 0, up}
`

var (
	rwReadLockScript    = newScript(rwReadLockSrc)
	rwWriteLockScript   = newScript(rwWriteLockSrc)
	rwUnlockScript      = newScript(rwLua.unlockSrc())
	rwForceUnlockScript = newScript(rwLua.forceUnlockSrc())
	rwDequeueScript     = newScript(rwLua.dequeueSrc())
)
