package redislocker

import (
	"context"
	"crypto/sha1"
	"encoding/hex"

	"github.com/redis/go-redis/v9"
)

// Every operation is one Lua script, so each runs atomically on the server
// and compares the owner there. A lock is one hash, KEYS[1]
// ("prefix:{name}"), with one field, s, that packs the lock's state as
// struct.pack(stateFormat, e, n, t, x, b, q, #o, o):
//
//   - o, the holder ("" when free), and n, its hold count (0: a grant to a
//     waiter, not yet claimed, see queueLua);
//   - e, when the lease ends, in server ms: the lock is held while o is
//     set and e has not passed. A lease is live through the millisecond
//     it ends in, as a Redis key is, so it never ends before its length
//     has passed since the attempt began;
//   - t, the last fencing token handed out (the counter);
//   - x, the hash's own expiry, in server ms;
//   - b, the server's boot time in µs, from the uptime marker (see
//     tryLockSrc), kept so that an acquisition reads it with the rest: a
//     restart without persistence loses the hash with the marker, so the
//     copy holds as long as the hash; -1 when the marker said the uptime
//     is unknown, or the hash is new;
//   - q, when the wait queue's keys expire, in server ms, while the queue
//     may have entries: an attempt that joins the queue sets it, and a
//     hand-off that finds the queue empty clears it (0), so that the path
//     taken most need not look at the queue.
//
// One packed field, not a field per number: a script pays for each
// element of a reply and each number it parses or formats (a fencing
// token is sixteen digits), and the field-per-number layout, seven
// redis.calls per cycle, cost more on the server than the ten calls of
// separate lock and counter keys did (callgrind); the numbers are doubles
// in the field, read and written without conversion. A hash, not a string
// key: HSET of a small hash costs less than SET with KEEPTTL.
//
// Nothing expires a lease but the clock: every script reads the server's
// clock first (readLua), as the shared locks do (sharedlua.go). The hash outlives the lease by the
// counter linger: whenever a lease would end less than the linger before
// x, x moves to the lease's end plus nine eighths of the linger
// (PEXPIREAT), so that most acquisitions and renewals leave the key's
// expiry alone, and a release or a lease that runs out leaves the counter
// at least the linger. (The linger is that of the last backend to move x.)
//
// The path taken most, an uncontended acquisition and release, makes seven
// redis.calls: HGET, PTTL, HSET; HGET, PTTL, HSET, PUBLISH. It, a re-entry
// and a refusal without patience come first and return before anything
// the rarer paths need is built (the queue's functions are closures, made
// afresh on every run that reaches them; so are the strings of the channel
// names). A release always publishes: the watchers of a Notifier (the
// combinators', and waiters on a store without a queue) are invisible to a
// script, and asking PUBSUB would cost the call PUBLISH costs. The scripts
// read the clock and then write, so they first ask for effects replication
// (redis.replicate_commands, in readLua): servers before Redis 5 replicate
// a script verbatim otherwise, and refuse its writes after a
// non-deterministic command; later ones always do.
//
// Fencing tokens: a free-to-held transition sets t to max(t+1, server time
// in microseconds, the caller's floor). When t is missing (a restart
// without persistence, a failover to a replica that missed it, or a lock
// unused for longer than the linger), the token still exceeds every token
// handed out before, as long as the server's clock does not step back.
// Tokens stay below 2^53 (TryLock's floor and Fence's token are checked),
// which Lua's numbers (doubles) keep exact; the scripts return them as
// integers.

// stateFormat is the struct format of the lock hash's field s: e, n, t,
// x, b, q as little-endian doubles, then the holder, length first.
const stateFormat = `'<ddddddi4c0'`

// grantFormat is the struct format of the trylock script's reply: five
// little-endian doubles (see tryLockSrc).
const grantFormat = `'<ddddd'`

// turnFormat is the struct format of a turn message (see queueLua): the
// grant's token, the server's uptime in ms (-1 if unknown), the floor of
// the request it answers, 1 if a release named the waiter (else 0), then
// the waiter first in line behind it: its lease in ms, the patience it has
// left in ms, its floor, and its owner, length first ("" for nobody). A
// notice (driver.Turn.Behind: a waiter with a floor joined the empty line
// behind the hold; see tryLockSrc) has the hold's token negated in place
// of the grant's, -1, 0 and 0, then that waiter.
const turnFormat = `'<dddddddi4c0'`

// shortTurnFormat is the struct format of the turn message of a grant
// from the line to a request without a floor, which is not a combinator's
// (see driver.Turn.Next): the grant's token and the server's uptime in ms
// alone, which spares the grant finding the next waiter and the waiter
// reading it.
const shortTurnFormat = `'<dd'`

// timeLua reads the server's clock: us and ms since 1970. (Redis 3.2
// to 4 refuse writes after TIME unless the script replicates its effects,
// as later versions do by default.)
const timeLua = `
if redis.replicate_commands then redis.replicate_commands() end
local now = redis.call('TIME')
local us = now[1] * 1000000 + now[2]
local ms = math.floor(us / 1000)
`

// stateLua reads the state of the lock hash lock into the locals e, n, t,
// x, b, q and o, and leaves the field in s.
const stateLua = `
local e, n, t, x, b, q, o = -1, 0, 0, 0, -1, 0, ''
local s = redis.call('HGET', lock, 's')
if s then e, n, t, x, b, q, o = struct.unpack(` + stateFormat + `, s) end
`

// heldLua tells whether the lock is held, by the clock ms.
const heldLua = `
local held = o ~= '' and e >= ms
`

// readLua reads the state (stateLua), then the server's clock, us and ms,
// and tells whether the lock is held. The clock comes from the hash's own
// expiry when there is one: x less PTTL is the server's time in ms (Redis
// keeps the expiry PEXPIREAT set, and no script moves it without moving
// x), and PTTL costs less than TIME and its two numbers to parse. It is
// exact to the millisecond, all a lease needs; a new token then counts
// from the start of that millisecond, which keeps it at or below the clock
// in µs. A hash without an expiry (someone ran PERSIST) tells no time:
// TIME does, and the next save sets the expiry again. Like TIME, PTTL makes servers before Redis 5 refuse writes
// unless the script replicates its effects.
const readLua = `
if redis.replicate_commands then redis.replicate_commands() end
` + stateLua + `
local us, ms
local pttl = s and redis.call('PTTL', lock)
if pttl and pttl >= 0 then
	ms = x - pttl
	us = ms * 1000
else
	local now = redis.call('TIME')
	us = now[1] * 1000000 + now[2]
	ms = math.floor(us / 1000)
	x = 0 -- the next save sets the expiry again
end
` + heldLua

// saveLua writes the state back, first moving the hash's expiry x when the
// lease would end less than the linger before it.
const saveLua = `
local keep = x < e + linger
if keep then x = e + linger + math.floor(linger / 8) end
redis.call('HSET', lock, 's', struct.pack(` + stateFormat + `, e, n, t, x, b, q, #o, o))
if keep then redis.call('PEXPIREAT', lock, x) end
`

// uptimeLua defines uptime(): the server's uptime in ms, from b, or -1
// when b is unknown. A grant (its turn message) and a claim report it, as
// an acquisition does, for the restart guard of a combinator that counts
// them (see driver.Grant.Uptime).
const uptimeLua = `
local function uptime()
	if b and b >= 0 then return math.max(math.floor((us - b) / 1000), 0) end
	return -1
end
`

// bootLua sets b, the server's boot time, from the marker M when
// the lock hash did not have it, and up (a local of the caller), the
// uptime in ms, when known. The marker is the mutexes' (see tryLockSrc):
// INFO, under redis.pcall, writes it when missing, and a refusal marks it
// unknown for a minute; b is then -1. INFO counts whole seconds between
// times cut to the second, so it may say 1 a moment after the start: b is
// put a second later than INFO says, so that the uptime is never
// overstated. A combinator's restart guard must not count a server that
// restarted less than its window ago (a torture run with a 1 s guard saw
// a server 0.15 s after its restart reported 1.03 s old, and counted).
// The price is a second more of the guard after each restart.
const bootLua = `
if not b or b < 0 then
	local m = redis.call('GET', M)
	b = tonumber(m)
	if not b and m ~= 'unknown' then
		local info = redis.pcall('INFO', 'server')
		local up = type(info) == 'string' and string.match(info, 'uptime_in_seconds:(%d+)')
		if up then
			b = us - math.max(up - 1, 0) * 1000000
			redis.call('SET', M, string.format('%.0f', b))
		else
			redis.call('SET', M, 'unknown', 'PX', 60000)
		end
	end
	b = b or -1
end
if b >= 0 then up = math.max(math.floor((us - b) / 1000), 0) end
`

// The wait queue (driver.Queuer): KEYS queue (a list of waiting owners, in
// order of arrival) and waiters (a hash: owner -> struct.pack('<I8I8I8',
// the server time in ms when its patience lapses, the lease in ms it asked
// for, its token floor)), under the lock's hash tag. Whenever a lock with
// waiters becomes free, handoff grants it to the first waiter whose
// patience has not lapsed: the lock holds that owner with count 0 (one
// hold, not yet claimed), the lease the waiter asked for, and a new token,
// at least the floor its last attempt gave (a combinator's waiter then
// holds a token its other members agree with, see driver.Request); the token
// and the server's uptime in ms (-1 if unknown) are the message, on that
// waiter's turn channel (turns .. owner) instead of
// the release channel, so it wakes nobody else and the waiter needs no
// other call; so are the floor the grant answers and the waiter then first
// in line behind it (turnFormat), which a combinator's holder names to its
// other members' releases (driver.Passer, unlockToSrc). A trylock of the owner with patience claims the grant
// (count 0 -> 1, lease reset), one without re-enters it (0 -> 2), and
// either raises the grant's token to its floor (see driver.Request); unlock
// and dequeue treat count 0 as the last hold. A lease that simply runs out
// runs no script: the next trylock on the free lock does the hand-off.
//
// The queue keys live at least as long as the longest patience in them,
// and the lock hash outlives them, so that q is kept while the queue is.
// A join that would outlive them, or that made them afresh, sets their
// expiry (q) to twice its patience ahead: the joins that follow within
// that patience leave it alone, which saves them a PTTL and two PEXPIREs.
// The two keys are made, given their expiry and emptied together, so a
// join that made the list made the hash too (a server that evicts keys
// could part them, and loses locks anyway: see the package doc).
// A waiter's entry leaves with it (an attempt, a grant, Dequeue, or its
// patience found lapsed at the head); the list is deleted with its last
// entry. A turn message is packed (turnFormat), which costs the script a
// fraction of formatting its numbers as text.

// queueLua is the prelude of the scripts' paths that hand locks off. Its
// functions use the locals of the script they are part of: lock, queue,
// waiters, linger, publish, the clock and the state (readLua),
// which they change for the script to save. It names the lock's channels
// as keysFor does.
//
// The scripts take few arguments: a server that requires a password
// refuses a command of more than ten elements from an unauthenticated
// client with an obscure protocol error, so a call made without the
// password gets its plain NOAUTH error only when it stays within ten
// (TestScriptCallsWithinTenElements checks every single-lock operation).
const queueLua = `
local channel, turns = lock .. ':released', lock .. ':turn:'
` + uptimeLua + `
local function take()
	while true do
		local w = redis.call('LPOP', queue)
		if not w then
			q = 0
			return nil
		end
		local p = redis.call('HGET', waiters, w)
		redis.call('HDEL', waiters, w)
		if p then
			local d, lease, f = 0, 0, 0
			if #p >= 24 then d, lease, f = struct.unpack('<I8I8I8', p) else d, lease = struct.unpack('<I8I8', p) end
			if d > ms then return w, lease, f end
		end
	end
end
local function following()
	local w = q ~= 0 and redis.call('LINDEX', queue, 0)
	local p = w and redis.call('HGET', waiters, w)
	if not p or #p < 24 then return '', 0, 0, 0 end
	local d, lease, f = struct.unpack('<I8I8I8', p)
	if d <= ms then return '', 0, 0, 0 end
	return w, lease, d - ms, f
end
local function tell(w, f, passed)
	if f == 0 and passed == 0 then
		redis.call(publish, turns .. w, struct.pack(` + shortTurnFormat + `, t, uptime()))
		return
	end
	local nw, nl, np, nf = following()
	redis.call(publish, turns .. w, struct.pack(` + turnFormat + `, t, uptime(), f, passed, nl, np, nf, #nw, nw))
end
local function grant(w, lease, f)
	t = math.max(us, t + 1, f)
	o, n, e = w, 0, ms + lease
	tell(w, f, 0)
end
local function handoff()
	local w, lease, f = take()
	if w then return grant(w, lease, f) end
	redis.call(publish, channel, 'released')
end
`

// releasedLua ends the scripts that free a lock: it takes the holder out
// of the state, hands the lock to the first waiter, or, with nobody in
// line, publishes the release, and returns the script's local reply.
const releasedLua = `
o = ''
if q == 0 then
	redis.call(publish, lock .. ':released', 'released')
else
` + queueLua + `
	handoff()
end
` + saveLua + `
return reply
`

// acquireLua takes the free lock for owner, with a new token, and returns
// the trylock script's reply.
const acquireLua = `
local up = -1
` + bootLua + `
o, n, e, t = owner, 1, ms + ttl, math.max(us, floor, t + 1)
` + saveLua + `
return struct.pack(grantf, 1, 1, t, 0, up)
`

// tryLockSrc: KEYS lock, queue, waiters, marker (the uptime marker); ARGV
// one argument, struct.pack('<I8I8I8I8i4c0i4c0', patience-ms, floor,
// linger-ms, lease-ms, #publish, publish command, #owner, owner) (see
// packedarg.go): a patience of 0 does not join the queue; a new token is
// at least the floor; the linger is the counter's. The scripts of a mutex
// take their arguments packed so: a fixed binary layout is read in one C
// call, cheaper than matching a pattern, and cheaper than as many plain
// arguments, each of which Redis 7.0 pushes into the ARGV table as a new
// string, growing the table at every power of two (callgrind: the KEYS
// and ARGV tables were 14,200 of the 86,300 instructions of an
// uncontended cycle; packing its six plain arguments in two saved 2,400).
// Returns struct.pack(grantFormat, acquired 0|1, holds, token, holder's
// remaining lease ms, uptime ms or -1; a refusal puts 1 in place of the
// holds when the lock is a grant not yet claimed, see
// driver.Grant.Reserved): one string, which costs the script less than an
// array of five. The uptime is reported on
// free-to-held transitions and on the claim of a grant only. A refused
// request with patience and a floor (a combinator's) that makes the queue
// afresh, and so is first in line, is told to the holder on its turn
// channel (a notice, see turnFormat), so that the holder can name it to
// its release (driver.Passer).
//
// The marker holds the server's boot time in microseconds. It is written
// from INFO's uptime_in_seconds when missing (after a restart without
// persistence, which loses it with the locks), so the costly INFO runs once
// per restart rather than once per acquisition, and read only when a lock
// hash lacks b; a server that keeps its data across a restart keeps the
// marker, and so reports the age of its lock data. INFO is in ACL
// category @dangerous, which hardened users lack: it runs under
// redis.pcall, and when refused the uptime is unknown (-1) and the marker
// says "unknown" for a minute, so the refusal is not repeated on every
// acquisition. The script's other commands are outside @dangerous.
//
// A lock hash without the field s was written by another layout (an
// earlier distlock kept a field per holder, and the counter in a key of
// its own): its holder is invisible to these scripts, so the attempt fails
// with an error (see misconfigured) instead of taking the lock beside it.
// Only a new hash pays for the check (an EXISTS).
const tryLockSrc = `
local lock, queue, waiters, M = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local patience, floor, linger, ttl, publish, owner = struct.unpack('<I8I8I8I8i4c0i4c0', ARGV[1])
local grantf = ` + grantFormat + `
` + readLua + `
if not s and redis.call('EXISTS', lock) == 1 then
	return redis.error_reply('DISTLOCKLAYOUT the key of the lock is a hash without the field s')
end
if held and o == owner then
	local up = -1
	if n == 0 then -- a grant claimed: its token rises to the floor
		t = math.max(t, floor)
` + uptimeLua + `
		up = uptime()
	end
	n = n + 1
	if n == 1 and patience == 0 then n = 2 end -- a grant re-entered, claimed with it
	e = ms + ttl
` + saveLua + `
	return struct.pack(grantf, 1, n, t, 0, up)
end
if held and patience == 0 then return struct.pack(grantf, 0, n == 0 and 1 or 0, 0, e - ms, -1) end
if not held and q == 0 then
` + acquireLua + `
end
` + queueLua + `
local function refused(changed)
	local left, token = e - ms, 0
	if patience > 0 then
		local fresh = redis.call('HSET', waiters, owner, struct.pack('<I8I8I8', ms + patience, ttl, floor)) == 1
			and redis.call('RPUSH', queue, owner) == 1
		if fresh and floor > 0 then
			redis.call(publish, turns .. o, struct.pack(` + turnFormat + `, -t, -1, 0, 0, ttl, patience, floor, #owner, owner))
		end
		if fresh or q < ms + patience then
			q = ms + 2 * patience
			redis.call('PEXPIREAT', queue, q)
			redis.call('PEXPIREAT', waiters, q)
			if x < q then
				x = q + linger
				redis.call('PEXPIREAT', lock, x)
			end
			changed = true
		end
		token = t
	end
	if changed then
` + saveLua + `
	end
	return struct.pack(grantf, 0, n == 0 and 1 or 0, token, left, -1)
end
if held then return refused(false) end
local w, lease, f = take()
if w and w ~= owner then
	grant(w, lease, f)
	return refused(true)
end
` + acquireLua

// releaseArgs unpacks the argument of the scripts that release (see
// releaseArg): the counter linger ms, the token of the hold to release (0:
// any; only unlockSrc reads it), the publish command and the owner.
const releaseArgs = `local linger, token, publish, owner = struct.unpack('<I8I8i4c0i4c0', ARGV[1])`

// unlockSrc: KEYS lock, queue, waiters; ARGV releaseArgs. Returns -1
// when owner does not hold the lock, or holds it under another token than
// a token given (a hold after the one a late release was meant for: t is
// the holder's token while the lock is held), else the holds left. The
// final release (count 1, or 0: a grant) hands the lock off, or leaves the
// counter to linger.
const unlockSrc = `
local lock, queue, waiters = KEYS[1], KEYS[2], KEYS[3]
` + releaseArgs + `
` + readLua + `
if not held or o ~= owner or (token > 0 and t ~= token) then return -1 end
if n > 1 then
	n = n - 1
` + saveLua + `
	return n
end
local reply = 0
` + releasedLua

// dequeueSrc: KEYS lock, queue, waiters; ARGV releaseArgs. Takes owner
// out of the queue and gives back a grant of the lock to owner that it has
// not claimed. Returns 1 when it gave one back, else 0.
const dequeueSrc = `
local lock, queue, waiters = KEYS[1], KEYS[2], KEYS[3]
` + releaseArgs + `
` + readLua + `
if redis.call('HDEL', waiters, owner) == 1 then
	redis.call('LREM', queue, 1, owner)
end
if not held or o ~= owner or n ~= 0 then return 0 end
local reply = 1
` + releasedLua

// unlockToSrc (driver.Passer): KEYS lock, queue, waiters, and the left
// mark of the successor (see leaveSrc); ARGV struct.pack(
// '<I8I8I8I8I8i4c0i4c0i4c0', counter linger ms, token (0: any), the
// successor's lease ms, its patience ms, its floor, #publish, publish
// command, #owner, owner, #successor, successor) (see unlockToArg). As
// unlockSrc, but the final release grants the lock to the successor, out
// of its place in line if it has one, unless it has none (""), no
// patience left, or a left mark: the token is max(t + 1, its floor), not
// the server's clock as a queue grant's may be, so that every member a
// combinator's holder releases grants the same token (their t is the
// holder's, which they agree on).
const unlockToSrc = `
local lock, queue, waiters, left = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local linger, token, nttl, npatience, nfloor, publish, owner, nw = struct.unpack('<I8I8I8I8I8i4c0i4c0i4c0', ARGV[1])
` + readLua + `
if not held or o ~= owner or (token > 0 and t ~= token) then return -1 end
if n > 1 then
	n = n - 1
` + saveLua + `
	return n
end
local reply = 0
o = ''
` + queueLua + `
if nw ~= '' and npatience > 0 and redis.call('EXISTS', left) == 0 then
	if q ~= 0 and redis.call('HDEL', waiters, nw) == 1 then
		redis.call('LREM', queue, 1, nw)
	end
	t = math.max(t + 1, nfloor)
	o, n, e = nw, 0, ms + nttl
	tell(nw, nfloor, 1)
elseif q == 0 then
	redis.call(publish, channel, 'released')
else
	handoff()
end
` + saveLua + `
return reply
`

// leaveSrc (driver.Passer): KEYS lock, queue, waiters, and owner's left
// mark (the lock's key .. ':left:' .. owner); ARGV releaseArgs, with the
// mark's life in ms in place of the token. As dequeueSrc, after it sets
// the mark, which keeps unlockToSrc from granting the lock to owner while
// it lasts.
const leaveSrc = `
local lock, queue, waiters, left = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
` + releaseArgs + `
` + readLua + `
redis.call('SET', left, '1', 'PX', token)
if redis.call('HDEL', waiters, owner) == 1 then
	redis.call('LREM', queue, 1, owner)
end
if not held or o ~= owner or n ~= 0 then return 0 end
local reply = 1
` + releasedLua

// expireSrc: KEYS lock; ARGV struct.pack('<I8I8i4c0', lease ms, counter
// linger ms, #owner, owner) (see ownerArg). Returns 1 when the lease was
// reset, 0 when owner does not hold the lock.
const expireSrc = `
local lock = KEYS[1]
local lease, linger, owner = struct.unpack('<I8I8i4c0', ARGV[1])
` + readLua + `
if not held or o ~= owner then return 0 end
e = ms + lease
` + saveLua + `
return 1
`

// expireBatchSrc: KEYS lock1, lock2, ...; ARGV counter linger ms, then
// owner and lease ms for each lock. Returns 1 or 0 per lock, as expireSrc.
const expireBatchSrc = `
local linger = tonumber(ARGV[1])
` + timeLua + `
local out = {}
for i = 1, #KEYS do
	local lock, owner = KEYS[i], ARGV[2 * i]
` + stateLua + heldLua + `
	out[i] = 0
	if held and o == owner then
		e = ms + ARGV[2 * i + 1]
` + saveLua + `
		out[i] = 1
	end
end
return out
`

// inspectSrc: KEYS lock. Returns {held 0|1, owner, holds, remaining lease
// ms, token}. A grant (count 0) is one hold.
const inspectSrc = `
local lock = KEYS[1]
` + readLua + `
if not held then return {0, '', 0, 0, t} end
return {1, o, math.max(n, 1), e - ms, t}
`

// forceUnlockSrc: KEYS lock, queue, waiters; ARGV releaseArgs, with an
// empty owner. Returns 1 when the lock was held, else 0. Like
// unlockSrc it hands the lock off or leaves the counter to linger.
const forceUnlockSrc = `
local lock, queue, waiters = KEYS[1], KEYS[2], KEYS[3]
` + releaseArgs + `
` + readLua + `
if not held then return 0 end
local reply = 1
` + releasedLua

var (
	tryLockScript     = newScript(tryLockSrc)
	unlockScript      = newScript(unlockSrc)
	dequeueScript     = newScript(dequeueSrc)
	unlockToScript    = newScript(unlockToSrc)
	leaveScript       = newScript(leaveSrc)
	expireScript      = newScript(expireSrc)
	expireBatchScript = newScript(expireBatchSrc)
	inspectScript     = newScript(inspectSrc)
	forceUnlockScript = newScript(forceUnlockSrc)
)

// script is a Lua script run by its SHA1 digest (EVALSHA), falling back to
// its source (EVAL, which also caches it again) when the server answers
// NOSCRIPT: after a restart or SCRIPT FLUSH.
type script struct {
	src string
	sha string
	// srcArg and shaArg are src and sha boxed once, for the commands.
	srcArg, shaArg any
}

func newScript(src string) *script {
	sum := sha1.Sum([]byte(src))
	sha := hex.EncodeToString(sum[:])
	return &script{src: src, sha: sha, srcArg: src, shaArg: sha}
}

// onceCmd is a command go-redis must not send twice. go-redis retries a
// command whose reply was lost (MaxRetries); for these scripts a second run
// would count a hold twice or drop one too many, so a lost reply must
// surface as an error instead (the caller treats the state as unknown).
type onceCmd struct{ *redis.Cmd }

// NoRetry tells go-redis not to retry the command once it may have run.
func (onceCmd) NoRetry() bool { return true }

// command returns the EVALSHA (byHash) or EVAL command running s.
func (s *script) command(ctx context.Context, byHash bool, keys []any, args ...any) onceCmd {
	a := make([]any, 0, 3+len(keys)+len(args))
	if byHash {
		a = append(a, "evalsha", s.shaArg)
	} else {
		a = append(a, "eval", s.srcArg)
	}
	a = append(a, len(keys))
	a = append(a, keys...)
	a = append(a, args...)
	cmd := redis.NewCmd(ctx, a...)
	cmd.SetFirstKeyPos(3)
	return onceCmd{cmd}
}

// processor runs one command: a client, a pipeline, a Cluster node.
type processor interface {
	Process(ctx context.Context, cmd redis.Cmder) error
}

// run runs s on c and returns its reply.
func (s *script) run(ctx context.Context, c processor, keys []any, args ...any) (any, error) {
	cmd := s.command(ctx, true, keys, args...)
	err := c.Process(ctx, cmd)
	if isNoScript(err) {
		cmd = s.command(ctx, false, keys, args...)
		err = c.Process(ctx, cmd)
	}
	if err != nil {
		return nil, err
	}
	return cmd.Val(), nil
}

// isNoScript reports whether the server did not know the script's digest;
// the script did not run.
func isNoScript(err error) bool {
	return err != nil && redis.HasErrorPrefix(err, "NOSCRIPT")
}
