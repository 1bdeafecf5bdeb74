package redislocker

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/distlock/driver"
)

// ErrReplicaAck reports an acquisition that fewer replicas acknowledged
// than WithReplicaAck asked for. The backend released the hold before
// returning it. It is not driver.ErrNotAcquired: nobody else need hold the
// lock, the store just could not make the hold durable.
var ErrReplicaAck = errors.New("redislocker: replicas did not acknowledge the lock")

// Backend is a driver.Backend on Redis: standalone, Sentinel-managed
// (go-redis failover client) or Cluster. It also implements
// driver.Notifier, driver.Queuer, driver.Inspector, driver.ForceUnlocker,
// driver.BatchExpirer, driver.Fencer, driver.HoldUnlocker and driver.Sharer (read-write locks
// and semaphores, see Share). Leases are exact to the millisecond. It is
// safe for concurrent use.
type Backend struct {
	client  redis.UniversalClient
	cluster *redis.ClusterClient // nil unless client is one
	cfg     config
	// publish is the command announcing releases: SPUBLISH on a Cluster
	// (sharded pub/sub keeps the message on the lock's shard), PUBLISH
	// elsewhere.
	publish string
	notify  *notifier

	// guard turns calls away after Close and lets Close wait for the calls
	// in flight.
	guard driver.Guard
	// keyCache keeps the Redis names of the locks in use.
	keyCache keyCache
	// shared keeps those of the shared locks in use (see Share).
	shared sharedNames
}

var (
	_ driver.Backend       = (*Backend)(nil)
	_ driver.Notifier      = (*Backend)(nil)
	_ driver.Inspector     = (*Backend)(nil)
	_ driver.ForceUnlocker = (*Backend)(nil)
	_ driver.BatchExpirer  = (*Backend)(nil)
	_ driver.HoldUnlocker  = (*Backend)(nil)
)

// New returns a Backend over client: a *redis.Client (standalone, or a
// Sentinel failover client from redis.NewFailoverClient) or a
// *redis.ClusterClient. A *redis.Ring is refused: its shards are not one
// store. New fails with ErrInvalid for a nil or Ring client or a bad
// option; it does not contact the server.
//
// The client stays the caller's: Close does not close it unless
// WithOwnedClient is given. For context deadlines to bound calls, the
// client needs ContextTimeoutEnabled (clients opened from a URL have it);
// without it a call whose server stalls lasts the client's ReadTimeout, as
// one whose context is cancelled before its deadline always does (see the
// package doc).
// The backend never lets go-redis retry its scripts (a retry after a lost
// reply could count a hold twice), whatever the client's MaxRetries.
func New(client redis.UniversalClient, opts ...Option) (*Backend, error) {
	if client == nil {
		return nil, fmt.Errorf("redislocker: %w: nil client", driver.ErrInvalid)
	}
	if _, ok := client.(*redis.Ring); ok {
		return nil, fmt.Errorf("redislocker: %w: a redis.Ring is not supported (its shards are independent stores)", driver.ErrInvalid)
	}
	cfg := config{prefix: DefaultPrefix, fenceLinger: DefaultFenceLinger}
	for _, opt := range opts {
		if err := opt(&cfg); err != nil {
			return nil, fmt.Errorf("redislocker: %w", err)
		}
	}
	b := &Backend{client: client, cfg: cfg, publish: "PUBLISH"}
	if c, ok := client.(*redis.ClusterClient); ok {
		b.cluster, b.publish = c, "SPUBLISH"
	}
	b.notify = newNotifier(b)
	return b, nil
}

// Client returns the go-redis client the backend uses.
func (b *Backend) Client() redis.UniversalClient { return b.client }

// Prefix returns the key prefix.
func (b *Backend) Prefix() string { return b.cfg.prefix }

// Close turns new calls away, closes the client first if the backend owns
// it (WithOwnedClient, or opened from a URL), which ends the commands on its
// connections (their outcome is unknown), waits for the calls in flight,
// and stops the backend's pub/sub connections and their goroutines. Locks
// stay on the server until their leases end. Calls after Close return
// driver.ErrClosed; closing twice is harmless.
//
// With the caller's client, a call waiting for a server that stopped
// answering ends by its context's deadline (with ContextTimeoutEnabled) or
// the client's ReadTimeout, and Close waits that long at most: lock calls
// are not bound to Close, which would cost each a context. Subscriptions
// are, and end at once.
func (b *Backend) Close() error {
	var cut func() error
	if b.cfg.ownsClient {
		cut = b.client.Close
	}
	return b.guard.Close(cut, func() error {
		b.notify.close()
		return nil
	})
}

// keys returns the Redis names of lock key.
func (b *Backend) keys(key string) *keys {
	return b.keyCache.get(key, func(name string) keys { return keysFor(b.cfg.prefix, name, b.cluster != nil) })
}

// millis converts a lease to whole milliseconds, rounding up so a lease is
// never shorter than asked.
func millis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// TryLock implements driver.Backend. A positive r.Patience joins the
// lock's queue (see driver.Queuer), counted by the server's clock; r.Floor
// is honoured up to 2^53. With WithReplicaAck it also waits for the
// replicas, and fails with ErrReplicaAck (having released the hold) when
// too few acknowledge.
func (b *Backend) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	if err := driver.CheckRequest(r); err != nil {
		return driver.Grant{}, err
	}
	if r.Floor > maxFloor {
		return driver.Grant{}, fmt.Errorf("redislocker: %w: floor %d above %d", driver.ErrInvalid, r.Floor, uint64(maxFloor))
	}
	if err := b.guard.Enter(); err != nil {
		return driver.Grant{}, err
	}
	defer b.guard.Exit()
	return b.tryLock(ctx, r)
}

// maxFloor is the largest floor the scripts count exactly: Lua numbers
// are doubles. Microseconds since 1970 stay below it for 280 years.
const maxFloor = 1 << 53

// tryLock runs the trylock script; a positive patience joins the queue,
// and a new token is at least the floor.
func (b *Backend) tryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	k := b.keys(r.Key)
	keys := k.tried
	args := []any{b.tryLockArg(r)}
	if b.cfg.replicas > 0 {
		return b.tryLockAcked(ctx, r.Key, r.Owner, k, keys, args)
	}
	reply, err := tryLockScript.run(ctx, b.client, keys, args...)
	if err != nil {
		return driver.Grant{}, b.failed(err)
	}
	g, err := parseGrant(reply)
	if err != nil {
		return driver.Grant{}, b.failed(err)
	}
	return g, nil
}

// tryLockArg packs the trylock script's argument (see tryLockSrc).
func (b *Backend) tryLockArg(r driver.Request) string {
	var buf [argRoom]byte
	p := appendNum(buf[:0], millis(r.Patience))
	p = appendNum(p, int64(r.Floor))
	p = appendNum(p, millis(b.cfg.fenceLinger))
	p = appendNum(p, millis(r.TTL))
	return string(appendStr(appendStr(p, b.publish), r.Owner))
}

// releaseArg packs the argument of the scripts that release owner's hold
// (see releaseArgs); token names the hold, 0 any hold of owner.
func (b *Backend) releaseArg(owner string, token uint64) string {
	var buf [argRoom]byte
	p := appendNum(buf[:0], millis(b.cfg.fenceLinger))
	p = appendNum(p, int64(token))
	return string(appendStr(appendStr(p, b.publish), owner))
}

// ownerArg packs the argument of the scripts that set a number of owner's
// hold, the renewal's lease (see expireSrc) or the fence's token (see
// fenceSrc): n, the counter linger, then owner.
func (b *Backend) ownerArg(n int64, owner string) string {
	var buf [argRoom]byte
	p := appendNum(buf[:0], n)
	p = appendNum(p, millis(b.cfg.fenceLinger))
	return string(appendStr(p, owner))
}

// parseGrant reads the reply of tryLockSrc: five little-endian doubles
// (grantFormat), whole numbers below 2^53.
func parseGrant(reply any) (driver.Grant, error) {
	s, _ := reply.(string)
	var r [5]int64
	if !wholeDoubles(s, r[:]) {
		return driver.Grant{}, fmt.Errorf("malformed script reply %q: want five whole doubles", reply)
	}
	acquired, holds, token, left, up := r[0], r[1], r[2], r[3], r[4]
	if token < 0 {
		return driver.Grant{}, fmt.Errorf("malformed token %d", token)
	}
	if acquired != 1 {
		// token: the lock's, on a refusal with patience (see driver.Queuer);
		// holds: 1 when the lock is a grant not yet claimed
		return driver.Grant{Remaining: remaining(left), Reserved: holds == 1, Token: uint64(token), Uptime: uptime(up)}, nil
	}
	return driver.Grant{Acquired: true, Holds: int(holds), Token: uint64(token), Uptime: uptime(up)}, nil
}

// wholeDoubles reads s, len(out) little-endian doubles packed by a script
// (struct.pack '<d'), into out, and reports whether it held exactly that
// many, each a whole number within 2^53 of zero.
func wholeDoubles(s string, out []int64) bool {
	if len(s) != 8*len(out) {
		return false
	}
	for i := range out {
		f := math.Float64frombits(binary.LittleEndian.Uint64([]byte(s[8*i : 8*i+8])))
		if f != math.Trunc(f) || math.Abs(f) > maxFloor {
			return false
		}
		out[i] = int64(f)
	}
	return true
}

// uptime converts the script's uptime in milliseconds to Grant.Uptime: at
// least a nanosecond when known, 0 when the script did not say.
func uptime(ms int64) time.Duration {
	if ms < 0 {
		return 0
	}
	return max(time.Duration(ms)*time.Millisecond, time.Nanosecond)
}

// Unlock implements driver.Backend. The final release hands the lock to
// the first waiter in its queue, if any, and publishes on the lock's
// channel. Unlock of a grant that a release made to owner, claimed or
// not, is its final release.
func (b *Backend) Unlock(ctx context.Context, key, owner string) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	return b.unlock(ctx, key, owner, 0)
}

// UnlockHold implements driver.HoldUnlocker: Unlock of owner's hold whose
// fencing token is token.
func (b *Backend) UnlockHold(ctx context.Context, key, owner string, token uint64) error {
	if err := checkHold(key, owner, token); err != nil {
		return err
	}
	return b.unlock(ctx, key, owner, token)
}

// checkHold checks an UnlockHold's input: driver.CheckToken, and
// ErrNotHeld for a token above maxFloor, which no hold has.
func checkHold(key, owner string, token uint64) error {
	if err := driver.CheckToken(key, owner, token); err != nil {
		return err
	}
	if token > maxFloor {
		return driver.ErrNotHeld
	}
	return nil
}

// unlock runs the unlock script on owner's hold whose token is token (0:
// any), and classifies its errors.
func (b *Backend) unlock(ctx context.Context, key, owner string, token uint64) error {
	if err := b.guard.Enter(); err != nil {
		return err
	}
	defer b.guard.Exit()
	err := b.unlockOnce(ctx, key, owner, token)
	if err != nil && err != driver.ErrNotHeld {
		return b.failed(err)
	}
	return err
}

// unlockOnce runs the unlock script. Its errors are unclassified, but for
// ErrNotHeld.
func (b *Backend) unlockOnce(ctx context.Context, key, owner string, token uint64) error {
	k := b.keys(key)
	reply, err := unlockScript.run(ctx, b.client, k.queued, b.releaseArg(owner, token))
	if err != nil {
		return err
	}
	left, err := replyInt(reply)
	if err != nil {
		return err
	}
	if left < 0 {
		return driver.ErrNotHeld
	}
	return nil
}

// Expire implements driver.Backend.
func (b *Backend) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	if err := driver.CheckLease(key, owner, ttl); err != nil {
		return err
	}
	if err := b.guard.Enter(); err != nil {
		return err
	}
	defer b.guard.Exit()
	k := b.keys(key)
	reply, err := expireScript.run(ctx, b.client, k.held, b.ownerArg(millis(ttl), owner))
	if err != nil {
		return b.failed(err)
	}
	ok, err := replyInt(reply)
	if err != nil {
		return b.failed(err)
	}
	if ok != 1 {
		return driver.ErrNotHeld
	}
	return nil
}

// remaining converts a script's remaining lease in ms to a lease. A
// lease counts whole milliseconds, so one in its last millisecond reads 0:
// it is reported as a millisecond, since 0 would mean unknown and send a
// waiter to sleep long past the expiry; a negative one is unknown.
func remaining(pttl int64) time.Duration {
	if pttl < 0 {
		return 0
	}
	return time.Duration(max(pttl, 1)) * time.Millisecond
}

func replyArray(reply any, n int) ([]any, error) {
	r, ok := reply.([]any)
	if !ok || len(r) != n {
		return nil, fmt.Errorf("malformed script reply %v: want an array of %d", reply, n)
	}
	return r, nil
}

func replyInt(v any) (int64, error) {
	switch v := v.(type) {
	case int64:
		return v, nil
	case string:
		return strconv.ParseInt(v, 10, 64)
	}
	return 0, fmt.Errorf("malformed script reply %v: want an integer", v)
}

func replyToken(v any) (uint64, error) {
	switch v := v.(type) {
	case string:
		return strconv.ParseUint(v, 10, 64)
	case int64:
		if v >= 0 {
			return uint64(v), nil
		}
	}
	return 0, fmt.Errorf("malformed token %v", v)
}

func replyString(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("malformed script reply %v: want a string", v)
	}
	return s, nil
}
