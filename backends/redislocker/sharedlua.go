package redislocker

import "strings"

// The shared locks (see Share) in Redis. A shared lock is two keys under
// its hash tag (see sharedKeys), three for a semaphore:
//
//   - the lock hash: "t" the lock's token counter, "e" when the hash
//     expires, "b" the server's boot time in µs (the uptime marker's value,
//     kept so that an acquisition reads it with the rest), "x" when the
//     leases expire, present while the lock is in use; the holds, one field
//     per owner and mode, named by the mode's letter and the owner
//     ("r"+owner for a read hold, "w"+owner for a write hold, "h"+owner for
//     a semaphore's), whose value is the hold count; and the fields the
//     kinds add (rwscripts.go, semscripts.go);
//   - the leases, a sorted set: each hold's member (the name of its field)
//     scored with the server time in ms when its lease ends, and each
//     waiter, "q"+owner, scored with the end of its patience.
//
// Every script reads the server's clock (TIME), and drops the leases and
// patience that have ended before it decides: that is how a lease runs
// out, as nothing expires a single field. A lease of d taken in the
// millisecond ms ends at ms + d, and is live through that millisecond, as
// Redis keeps a key through the millisecond it expires in: so it never
// ends before d has passed since the attempt began. The leases expire at "x", the
// furthest end of a lease or patience they hold (PEXPIREAT), and are
// deleted with the last hold or waiter, which also deletes the lock's
// fields but the counter's: an idle lock leaves its hash with "t", "e"
// and "b" only. When the leases expire by themselves (every holder and
// waiter gone without a word), the hash still says "x", now past: the
// next attempt finds its fields stale and starts the lock anew, keeping
// the counter.
//
// The counter (the hash) outlives the leases by the linger, as a mutex's
// counter does, and by up to an eighth of the linger more: whenever "x"
// rises past "e" less the linger, "e" is set to "x" plus nine eighths of
// the linger, so that most acquisitions leave the hash's expiry alone. A
// counter that is missing (lost with a restart without persistence, or
// idle for the linger) starts again from the server's clock in µs, as a
// mutex's does, so tokens still rise.
//
// The scripts make few redis.calls and define no functions: the fragments
// below, and timeLua and bootLua, which the mutex's scripts share
// (scripts.go), are spliced into their text. Each script's comment lists its KEYS
// and ARGV. Their locals: H, L (and Q) the keys, M the uptime marker, ms
// and us the server's clock, f the lock hash's fields (x, t, e, b first),
// x, t, e, b their numbers, X the leases' new expiry.

// sharedKeepLua decides, before the lock hash is written with "x" = X and
// "e" = e, whether the hash's expiry must move to keep the counter the
// linger past the leases.
const sharedKeepLua = `
local keep = e < X + linger
if keep then e = X + linger + math.floor(linger / 8) end
`

// sharedExpireLua moves the expiries, after the lock hash was written.
const sharedExpireLua = `
if keep then redis.call('PEXPIREAT', H, e) end
if X > x then redis.call('PEXPIREAT', L, X) end
`

// sharedReentryLua is a re-entry's grant: owner's hold count, holds
// already one up, is written to its field, and its lease reset to exp;
// the grant carries token.
func sharedReentryLua(field, token string) string {
	return sharedKeepLua + `
redis.call('ZADD', L, exp, ` + field + `)
redis.call('HSET', H, ` + field + `, holds, 'x', X, 'e', e)
` + sharedExpireLua + `
return {1, holds, ` + token + `, 0, -1}
`
}

// sharedPublishLua announces a release on the lock's channel, with the
// publish command ARGV[#ARGV].
const sharedPublishLua = `redis.call(ARGV[#ARGV], H .. ':released', 'released')`

// sharedLua is what a kind of shared lock splices into the scripts of
// every kind.
type sharedLua struct {
	// keys names the KEYS of the scripts that release: H, L, and a
	// semaphore's Q.
	keys string
	// drop ends the holds and waits whose members (names in L) are in the
	// table drop, as if released: it takes them out of L and the lock hash.
	drop string
	// idle deletes the leases (and queue) of a lock that nobody holds or
	// waits for any more, and the lock hash's fields but the counter's and
	// those listed after %s (a Lua list, with a leading comma).
	idle string
	// reset deletes the keys of a lock whose leases expired by
	// themselves.
	reset string
	// owned lists, for idle, the fields of the hold ARGV[2] holds in mode
	// ARGV[1] (m), and the last one.
	owned string
}

// idleLua is k.idle, deleting the fields extra as well.
func (k sharedLua) idleLua(extra string) string {
	return strings.Replace(k.idle, "%s", extra, 1)
}

// cleanupLua drops the leases and patience ended before ms, and leaves
// them in drop.
func (k sharedLua) cleanupLua() string {
	return `
local drop = redis.call('ZRANGEBYSCORE', L, '-inf', '(' .. ms)
if #drop > 0 then
` + k.drop + `
	if redis.call('ZCARD', L) == 0 then ` + k.idleLua("") + ` end
end
`
}

// preludeLua starts a trylock script: it reads the lock hash with fields
// (an HMGET), and leaves in f what it says once the ended leases and
// patience are dropped (which it announces), and in fresh whether the
// lock was free of holds and waiters.
func (k sharedLua) preludeLua(fields string) string {
	return `
local f = ` + fields + `
local x = tonumber(f[1])
local t, e, b = tonumber(f[2]) or 0, tonumber(f[3]) or 0, tonumber(f[4])
if x and x < ms then
	` + k.reset + `
	` + sharedPublishLua + `
	f, x, e = {}, nil, 0
elseif x then
` + k.cleanupLua() + `
	if #drop > 0 then
		` + sharedPublishLua + `
		f = ` + fields + `
		x = tonumber(f[1])
	end
end
local fresh = not x
x = x or 0
`
}

// unlockSrc: KEYS lock, leases[, queue]; ARGV mode letter, owner, token
// (decimal, 0 for any), publish command. Returns -1 when owner holds
// nothing in the mode, or holds it under another token (a write hold's
// "k", another hold's "k"+owner), else its holds left. The last hold ends
// as if it had run out, and is announced; the lock's last one leaves only
// the counter. (The first two leases tell at once whether owner's is the
// only one.)
func (k sharedLua) unlockSrc() string {
	return k.keys + `
local m = ARGV[1] .. ARGV[2]
` + timeLua + `
local first = redis.call('ZRANGE', L, 0, 1, 'WITHSCORES')
local sole = first[1] == m and not first[3]
local s = sole and tonumber(first[2]) or tonumber(redis.call('ZSCORE', L, m))
if not s or s < ms then return -1 end
local h = redis.call('HMGET', H, m, ARGV[1] == 'w' and 'k' or 'k' .. ARGV[2])
local token = tonumber(ARGV[3])
if token > 0 and tonumber(h[2]) ~= token then return -1 end
local holds = tonumber(h[1])
if holds > 1 then return redis.call('HINCRBY', H, m, -1) end
if sole then
	` + k.idleLua(k.owned) + `
else
	local drop = {m}
` + k.drop + `
end
` + sharedPublishLua + `
return 0
`
}

// forceUnlockSrc: KEYS lock, leases[, queue]; ARGV publish command. Ends
// every hold, in every mode; waiters keep their places. Returns 1 when
// there was a hold, else 0.
func (k sharedLua) forceUnlockSrc() string {
	return k.keys + timeLua + `
local x = tonumber(redis.call('HGET', H, 'x'))
if not x or x < ms then return 0 end
` + k.cleanupLua() + `
local expired = #drop
local all = redis.call('ZRANGE', L, 0, -1)
drop = {}
for i = 1, #all do
	if string.sub(all[i], 1, 1) ~= 'q' then drop[#drop + 1] = all[i] end
end
local held = #drop
if held > 0 then
` + k.drop + `
	if redis.call('ZCARD', L) == 0 then ` + k.idleLua("") + ` end
end
if held + expired > 0 then ` + sharedPublishLua + ` end
if held > 0 then return 1 end
return 0
`
}

// dequeueSrc: KEYS lock, leases[, queue]; ARGV owner, publish command.
// Takes owner off the wait list and announces it. Returns 1 when owner was
// waiting, else 0. (A wait on the leases means that they have not
// expired: the lock hash agrees with them.)
func (k sharedLua) dequeueSrc() string {
	return k.keys + `
if redis.call('ZREM', L, 'q' .. ARGV[1]) == 0 then return 0 end
redis.call('HINCRBY', H, 'q', -1)
if KEYS[3] then redis.call('ZREM', KEYS[3], ARGV[1]) end
if redis.call('ZCARD', L) == 0 then ` + k.idleLua("") + ` end
` + sharedPublishLua + `
return 1
`
}

// sharedExpireSrc renews holds: KEYS lock, leases for each lock; ARGV
// counter linger ms, mode letter, then owner and lease ms for each lock.
// Returns 1 per lock whose owner holds it in the mode (its lease reset), -1
// for the others. (A live lease means that the leases have not expired.)
const sharedExpireSrc = `
local linger, mode = tonumber(ARGV[1]), ARGV[2]
` + timeLua + `
local out = {}
for i = 1, #KEYS, 2 do
	local H, L = KEYS[i], KEYS[i + 1]
	local m = mode .. ARGV[i + 2]
	local s = tonumber(redis.call('ZSCORE', L, m))
	if s and s >= ms then
		local exp = ms + ARGV[i + 3]
		redis.call('ZADD', L, exp, m)
		local f = redis.call('HMGET', H, 'x', 'e')
		local x, e = tonumber(f[1]), tonumber(f[2])
		local X = math.max(x, exp)
		if X > x then
` + sharedKeepLua + `
			redis.call('HSET', H, 'x', X, 'e', e)
` + sharedExpireLua + `
		end
		out[#out + 1] = 1
	else
		out[#out + 1] = -1
	end
end
return out
`

// sharedFenceSrc: KEYS lock, leases; ARGV mode letter, owner, token
// (decimal). If owner holds the lock in the mode, raises the token of its
// hold (a write hold's "k", another hold's "k"+owner) and the counter to
// at least the token, and returns 1; else returns -1.
const sharedFenceSrc = `
local H, L = KEYS[1], KEYS[2]
local mode, owner, token = ARGV[1], ARGV[2], tonumber(ARGV[3])
` + timeLua + `
local s = tonumber(redis.call('ZSCORE', L, mode .. owner))
if not s or s < ms then return -1 end
local field = mode == 'w' and 'k' or 'k' .. owner
local f = redis.call('HMGET', H, 't', field)
if (tonumber(f[2]) or 0) < token then redis.call('HSET', H, field, ARGV[3]) end
if tonumber(f[1]) < token then redis.call('HSET', H, 't', ARGV[3]) end
return 1
`

// sharedInspectSrc: KEYS lock, leases. Returns {server time ms, the lock
// hash's fields and values, the live leases and patience with their
// ends}; the caller reads the state from them.
const sharedInspectSrc = `
local now = redis.call('TIME')
local ms = now[1] * 1000 + math.floor(now[2] / 1000)
return {ms, redis.call('HGETALL', KEYS[1]), redis.call('ZRANGEBYSCORE', KEYS[2], ms, '+inf', 'WITHSCORES')}
`

var (
	sharedExpireScript  = newScript(sharedExpireSrc)
	sharedFenceScript   = newScript(sharedFenceSrc)
	sharedInspectScript = newScript(sharedInspectSrc)
)
