package redislocker

// A semaphore (see sharedlua.go for the keys): the lock hash holds,
// besides each holder's hold count ("h"+owner) and the common fields, its
// permits ("p"+owner) and token ("k"+owner), and "l" the limit, "u" the
// permits held, "q" the number of waiters and "a" the arrival number of
// the last one. The wait list is the queue, a sorted set of the waiting
// owners by arrival; their patience is in the leases as "q"+owner. The
// limit goes with the lock's last hold or waiter, so an idle semaphore
// forgets it.

// semLua is what the semaphore scripts splice in.
var semLua = sharedLua{
	keys: `local H, L, Q = KEYS[1], KEYS[2], KEYS[3]`,
	drop: `
for i = 1, #drop do
	local m = drop[i]
	local o = string.sub(m, 2)
	if string.sub(m, 1, 1) == 'h' then
		redis.call('HINCRBY', H, 'u', -tonumber(redis.call('HGET', H, 'p' .. o)))
		redis.call('HDEL', H, m, 'p' .. o, 'k' .. o)
	else
		redis.call('ZREM', Q, o)
		redis.call('HINCRBY', H, 'q', -1)
	end
	redis.call('ZREM', L, m)
end
`,
	idle:  `redis.call('DEL', L, Q) redis.call('HDEL', H, 'x', 'l', 'u', 'q', 'a'%s)`,
	reset: `redis.call('DEL', H, L, Q)`,
	owned: `, m, 'p' .. ARGV[2], 'k' .. ARGV[2]`,
}

// semLockSrc: KEYS lock, leases, queue, marker; ARGV owner, lease ms,
// counter linger ms, patience ms, floor, limit, permits, publish command.
// Returns as rwReadLockSrc, or {-1, limit} when the semaphore is in use
// with another limit, {-2, permits} when the owner holds other permits
// than asked. Only the first waiter, or anyone when nobody waits, may take
// free permits; refused with a patience, the owner joins the tail of the
// wait list or keeps its place. A new hold's token is the larger of the
// counter plus one, the server's clock in µs and the floor. Taking the
// first waiter off the wait list is announced: the next waiter may go.
var semLockSrc = `
local H, L, Q, M = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owner = ARGV[1]
local ttl, linger, patience, floor = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local limit, permits = tonumber(ARGV[6]), tonumber(ARGV[7])
` + timeLua + semLua.preludeLua(`redis.call('HMGET', H, 'x', 't', 'e', 'b', 'l', 'u', 'q', 'a', 'h' .. owner, 'p' .. owner, 'k' .. owner)`) + `
if not fresh and tonumber(f[5]) ~= limit then return {-1, tonumber(f[5])} end
local exp = ms + ttl
local X = math.max(x, exp)
local holds = tonumber(f[9])
if holds then
	if tonumber(f[10]) ~= permits then return {-2, tonumber(f[10])} end
	holds = holds + 1
` + sharedReentryLua(`'h' .. owner`, `tonumber(f[11])`) + `
end
local used, q = tonumber(f[6]) or 0, tonumber(f[7]) or 0
if (q == 0 or redis.call('ZRANGE', Q, 0, 0)[1] == owner) and limit - used >= permits then
	local up = -1
` + bootLua + `
	local token = math.max(t + 1, us, floor)
	if q > 0 then
		redis.call('ZREM', Q, owner)
		redis.call('ZREM', L, 'q' .. owner)
		q = q - 1
		` + sharedPublishLua + `
	end
` + sharedKeepLua + `
	redis.call('ZADD', L, exp, 'h' .. owner)
	redis.call('HSET', H, 'h' .. owner, 1, 'p' .. owner, permits, 'k' .. owner, token,
		'u', used + permits, 'l', limit, 'q', q, 't', token, 'x', X, 'e', e, 'b', b)
` + sharedExpireLua + `
	return {1, 1, token, 0, up}
end
if patience > 0 then
	local d = ms + patience
	X = math.max(x, d)
` + sharedKeepLua + `
	if redis.call('ZADD', L, d, 'q' .. owner) == 1 then
		local a = (tonumber(f[8]) or 0) + 1
		redis.call('ZADD', Q, a, owner)
		redis.call('HSET', H, 'q', q + 1, 'a', a, 'x', X, 'e', e)
	else
		redis.call('HSET', H, 'x', X, 'e', e)
	end
	redis.call('PEXPIREAT', Q, X)
` + sharedExpireLua + `
end
local all = redis.call('ZRANGE', L, 0, -1, 'WITHSCORES')
local left = -1
for i = 1, #all, 2 do
	if string.sub(all[i], 1, 1) == 'h' then left = all[i + 1] - ms break end
end
if left < 0 then
	local first = redis.call('ZRANGE', Q, 0, 0)[1]
	if first then left = redis.call('ZSCORE', L, 'q' .. first) - ms end
end
return {0, 0, 0, left, -1}
`

var (
	semLockScript        = newScript(semLockSrc)
	semUnlockScript      = newScript(semLua.unlockSrc())
	semForceUnlockScript = newScript(semLua.forceUnlockSrc())
	semDequeueScript     = newScript(semLua.dequeueSrc())
)
