package redislocker

import (
	"context"
	"crypto/sha1"
	"encoding/hex"

	"github.com/redis/go-redis/v9"
)

// Every operation is one Lua script, so each runs atomically on the server
// and compares the owner there. KEYS[1] is the lock hash, KEYS[2] the
// fencing counter; both share the lock's hash tag. The lock hash has one
// field, holder -> hold count. The scripts make as few redis.calls as they
// can, and do the least on the path taken most, an uncontended
// acquisition and release (ten calls in all): that path comes first in
// each script and returns before anything the rarer paths need is built
// (the queue's functions are closures, made afresh on every run that
// reaches them; so are the strings of the channel names). Arguments are
// passed as strings where a command takes them (a Lua number handed to
// redis.call is formatted on every call). The scripts that read TIME and
// then write first ask for effects replication (redis.replicate_commands):
// servers before Redis 5 replicate a script verbatim otherwise, and refuse
// its writes after a non-deterministic command; later ones always do.
//
// Fencing tokens: a free-to-held transition sets the counter to
// max(counter+1, server time in microseconds, the caller's floor). When the counter is missing
// (a restart without persistence, a failover to a replica that missed it,
// or a lock unused for longer than the counter lingers), the token still
// exceeds every token handed out before, as long as the server's clock does
// not step back. Tokens stay below 2^53, which Lua's numbers (doubles) and
// redis.call's formatting of them ("%.17g") keep exact; the scripts return
// them as integers or the counter's own string.
//
// Counter linger: every script that sets the lock's lease to ttl also sets
// the counter's to ttl + linger, in the same script (so against the same
// clock), and no script lengthens the lock otherwise. So while the lock
// exists the counter outlives it by at least the linger, and a release
// (Unlock, ForceUnlock) or the lease running out leaves the counter at
// least the linger: the release need not touch the counter. (The linger is
// that of the last backend to set the lease.) An acquisition writes the
// counter anyway, for its new token, and its expiry rides in the same SET:
// leaving it out (KEEPTTL) would save no call, only the update of the
// expiry, and knowing when that is safe would take a PTTL, a call of its
// own, or a second record of the expiry that every script keeps in step.

// The wait queue (driver.Queuer): KEYS queue (a list of waiting owners, in
// order of arrival) and waiters (a hash: owner -> struct.pack('<I8I8',
// the server time in ms when its patience lapses, the lease in ms it asked
// for)), under the lock's hash tag. Whenever a lock with waiters becomes
// free, handoff grants it to the first waiter whose patience has not
// lapsed: the lock hash holds that owner with count 0 (one hold, not yet
// claimed), the lease the waiter asked for, and a new token; the token is
// the message, on that waiter's turn channel (turns .. owner) instead of
// the release channel, so it wakes nobody else and the waiter needs no
// other call. A trylock of the owner with patience claims the grant
// (count 0 -> 1, lease reset), one without re-enters it (0 -> 2); unlock
// and dequeue treat count 0 as the last hold. A lease that simply runs out
// runs no script: the next trylock on the free lock does the hand-off.
//
// The queue keys live as long as the longest patience in them: each join
// sets both to at least its own. A waiter's entry leaves with it (an
// attempt, a grant, Dequeue, or its patience found lapsed at the head);
// the list is deleted with its last entry, so EXISTS tells whether anyone
// may be waiting.

// queueLua is the prelude of the scripts' paths that hand locks off. Its
// functions use the locals of the script they are part of: lock, fence,
// queue, waiters, linger, publish. It names the lock's channels as keysFor
// does. handoff expects the queue to exist (its callers check first, on
// their fast path).
//
// The scripts take few arguments: a server that requires a password
// refuses a command of more than ten elements from an unauthenticated
// client with an obscure protocol error, so a call made without the
// password gets its plain NOAUTH error only when it stays within ten
// (TestScriptCallsWithinTenElements checks every single-lock operation).
const queueLua = `
local channel, turns = lock .. ':released', lock .. ':turn:'
local function now()
	local t = redis.call('TIME')
	return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local function mint(t, last, keep)
	local token = t
	last = tonumber(last)
	if last and last >= token then token = last + 1 end
	redis.call('SET', fence, token, 'PX', keep)
	return token
end
local function head(ms)
	while true do
		local w = redis.call('LINDEX', queue, 0)
		if not w then return nil end
		local e = redis.call('HGET', waiters, w)
		if e then
			local d, lease = struct.unpack('<I8I8', e)
			if d > ms then return w, lease end
		end
		redis.call('LPOP', queue)
		redis.call('HDEL', waiters, w)
	end
end
local function grant(w, lease, t, last)
	redis.call('LPOP', queue)
	redis.call('HDEL', waiters, w)
	local token = mint(t, last, lease + linger)
	redis.call('HSET', lock, w, 0)
	redis.call('PEXPIRE', lock, lease)
	redis.call(publish, turns .. w, token)
end
local function handoff()
	local t = now()
	local w, lease = head(math.floor(t / 1000))
	if w then return grant(w, lease, t, redis.call('GET', fence)) end
	redis.call(publish, channel, 'released')
end
`

// releasedLua ends the scripts that free a lock, once they have deleted
// it: it hands the lock to the first waiter, or, with nobody in line,
// publishes the release, and returns the script's local reply.
const releasedLua = `
if redis.call('EXISTS', queue) == 0 then
	redis.call(publish, lock .. ':released', 'released')
	return reply
end
` + queueLua + `
handoff()
return reply
`

// tryLockSrc: KEYS lock, fence, marker (the uptime marker), queue,
// waiters; ARGV owner, then the rest packed in one argument (see
// tryLockArg), as struct.pack('<I8I8I8sss', patience-ms, floor,
// linger-ms, lease-ms, lease-ms + linger-ms, publish command): a patience
// of 0 does not join the queue; a new token is at least the floor; the
// linger is the counter's. Five keys leave room for two arguments within
// ten elements; a fixed binary layout is read in one C call, cheaper than
// matching a pattern and than as many plain arguments, and hands the
// lease and the counter's expiry over as strings, ready for the commands.
// Returns {acquired 0|1, holds, token, holder's PTTL, uptime ms or -1}.
// The uptime is reported on free-to-held transitions only.
//
// The fast path (no lock, no queue: one EXISTS tells both) takes the lock
// when the marker is there; every other case (held, re-entered, queued,
// or the marker to be written) takes the general path below it.
//
// The marker holds the server's boot time in microseconds. It is written
// from INFO's uptime_in_seconds when missing (after a restart without
// persistence, which loses it with the locks), so the costly INFO runs once
// per restart rather than once per acquisition; a server that keeps its
// data across a restart keeps the marker, and so reports the age of its
// lock data. INFO is in ACL category @dangerous, which hardened users
// lack: it runs under redis.pcall, before the script writes anything, and
// when refused the uptime is unknown (-1) and the marker says "unknown"
// for a minute, so the refusal is not repeated on every acquisition. The
// script's other commands are outside @dangerous.
const tryLockSrc = `
local lock, fence, marker, queue, waiters = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local owner = ARGV[1]
local patience, floor, linger, ttl, keep, publish = struct.unpack('<I8I8I8sss', ARGV[2])
if redis.replicate_commands then redis.replicate_commands() end
if redis.call('EXISTS', lock, queue) == 0 then
	local t = redis.call('TIME')
	t = t[1] * 1000000 + t[2]
	local read = redis.call('MGET', fence, marker)
	local up = -1
	local booted = tonumber(read[2])
	if booted then up = math.max(math.floor((t - booted) / 1000), 0) end
	if booted or read[2] == 'unknown' then
		local token = math.max(t, floor)
		local last = tonumber(read[1])
		if last and last >= token then token = last + 1 end
		redis.call('SET', fence, token, 'PX', keep)
		redis.call('HSET', lock, owner, '1')
		redis.call('PEXPIRE', lock, ttl)
		return {1, 1, token, 0, up}
	end
end
` + queueLua + `
local function uptime(t, booted)
	if booted == 'unknown' then return -1 end
	booted = tonumber(booted)
	if not booted then
		local info = redis.pcall('INFO', 'server')
		local up = type(info) == 'string' and string.match(info, 'uptime_in_seconds:(%d+)')
		if not up then
			redis.call('SET', marker, 'unknown', 'PX', 60000)
			return -1
		end
		booted = t - tonumber(up) * 1000000
		redis.call('SET', marker, booted)
	end
	return math.max(math.floor((t - booted) / 1000), 0)
end
local function refused(t)
	if patience == 0 then return {0, 0, 0, redis.call('PTTL', lock), -1} end
	local ms = math.floor((t or now()) / 1000)
	if redis.call('HSET', waiters, owner, struct.pack('<I8I8', ms + patience, tonumber(ttl))) == 1 then
		redis.call('RPUSH', queue, owner)
	end
	local life = math.max(redis.call('PTTL', queue), patience)
	redis.call('PEXPIRE', queue, life)
	redis.call('PEXPIRE', waiters, life)
	return {0, 0, redis.call('GET', fence) or 0, redis.call('PTTL', lock), -1}
end
local held = redis.call('HGETALL', lock)
if held[1] == owner and #held == 2 then
	local holds
	if held[2] ~= '0' then
		holds = redis.call('HINCRBY', lock, owner, 1)
	elseif patience > 0 then
		holds = 1 -- the waiter claims its grant
	else
		holds = 2 -- re-entry of a grant, claimed with it
	end
	if held[2] == '0' then redis.call('HSET', lock, owner, holds) end
	redis.call('PEXPIRE', lock, ttl)
	local token = redis.call('GET', fence)
	if token then
		redis.call('PEXPIRE', fence, keep)
	else
		token = mint(math.max(now(), floor), nil, keep)
	end
	return {1, holds, token, 0, -1}
end
if #held > 0 then return refused(nil) end
local t = now()
local read = redis.call('MGET', fence, marker)
local w, lease = head(math.floor(t / 1000))
if w and w ~= owner then
	grant(w, lease, t, read[1])
	return refused(t)
end
local up = uptime(t, read[2])
if w then
	redis.call('LPOP', queue)
	redis.call('HDEL', waiters, w)
end
local token = mint(math.max(t, floor), read[1], keep)
redis.call('HSET', lock, owner, '1')
redis.call('PEXPIRE', lock, ttl)
return {1, 1, token, 0, up}
`

// unlockSrc: KEYS lock, fence, queue, waiters; ARGV owner, publish
// command, counter linger ms. Returns -1 when owner does not hold the lock,
// else the holds left. The final release (count 1, or 0: a grant) hands
// the lock off, or leaves the counter alone: its expiry, set with the
// lease, already runs the linger past the lease. The hold count is
// compared as the string HGET returns.
const unlockSrc = `
local lock, fence, queue, waiters = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owner, publish = ARGV[1], ARGV[2]
if redis.replicate_commands then redis.replicate_commands() end
local holds = redis.call('HGET', lock, owner)
if not holds then return -1 end
if holds ~= '1' and holds ~= '0' then return redis.call('HINCRBY', lock, owner, -1) end
redis.call('DEL', lock)
local linger, reply = ARGV[3], 0 -- a string: Lua's arithmetic converts it, in the hand-off only
` + releasedLua

// dequeueSrc: KEYS lock, fence, queue, waiters; ARGV owner, publish
// command, counter linger ms. Takes owner out of the queue and gives back
// a grant of the lock to owner that it has not claimed. Returns 1 when it
// gave one back, else 0.
const dequeueSrc = `
local lock, fence, queue, waiters = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owner, publish, linger = ARGV[1], ARGV[2], tonumber(ARGV[3])
if redis.replicate_commands then redis.replicate_commands() end
if redis.call('HDEL', waiters, owner) == 1 then
	redis.call('LREM', queue, 1, owner)
end
if redis.call('HGET', lock, owner) ~= '0' then return 0 end
redis.call('DEL', lock)
local reply = 1
` + releasedLua

// expireSrc: ARGV owner, lease ms, counter linger ms. Returns 1 when the
// lease was reset, 0 when owner does not hold the lock.
const expireSrc = `
local lock, fence = KEYS[1], KEYS[2]
if redis.call('HEXISTS', lock, ARGV[1]) == 0 then return 0 end
local ttl = tonumber(ARGV[2])
redis.call('PEXPIRE', lock, ttl)
redis.call('PEXPIRE', fence, ttl + tonumber(ARGV[3]))
return 1
`

// expireBatchSrc: KEYS lock1, fence1, lock2, fence2, ...; ARGV counter
// linger ms, then owner and lease ms for each lock. Returns 1 or 0 per
// lock, as expireSrc.
const expireBatchSrc = `
local linger = tonumber(ARGV[1])
local out = {}
for i = 1, #KEYS, 2 do
	local owner, ttl = ARGV[i + 1], tonumber(ARGV[i + 2])
	if redis.call('HEXISTS', KEYS[i], owner) == 1 then
		redis.call('PEXPIRE', KEYS[i], ttl)
		redis.call('PEXPIRE', KEYS[i + 1], ttl + linger)
		out[#out + 1] = 1
	else
		out[#out + 1] = 0
	end
end
return out
`

// inspectSrc returns {held 0|1, owner, holds, PTTL, token (string)}. A
// grant (count 0) is one hold.
const inspectSrc = `
local fields = redis.call('HGETALL', KEYS[1])
local token = redis.call('GET', KEYS[2]) or '0'
if #fields == 0 then return {0, '', 0, 0, token} end
return {1, fields[1], math.max(tonumber(fields[2]), 1), redis.call('PTTL', KEYS[1]), token}
`

// forceUnlockSrc: KEYS lock, fence, queue, waiters; ARGV publish command,
// counter linger ms. Returns 1 when a
// lock was deleted, else 0. Like unlockSrc it hands the lock off or leaves
// the counter to linger.
const forceUnlockSrc = `
local lock, fence, queue, waiters = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local publish, linger = ARGV[1], tonumber(ARGV[2])
if redis.replicate_commands then redis.replicate_commands() end
if redis.call('DEL', lock) == 0 then return 0 end
local reply = 1
` + releasedLua

var (
	tryLockScript     = newScript(tryLockSrc)
	unlockScript      = newScript(unlockSrc)
	dequeueScript     = newScript(dequeueSrc)
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
