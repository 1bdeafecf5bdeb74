package locker

import (
	"context"
	"time"
)

// Backend is the driver interface a lock store implements. Programs do not
// call it directly: they use a Mutex.
//
// Every method is a single atomic attempt on the store. A Backend never
// waits for a lock, never retries and never sleeps; waiting and retrying are
// the Mutex's job.
//
// A Backend never reports success for something that did not happen. When it
// cannot know whether an operation ran (the reply was lost, the context ended
// in flight), it returns an error that is none of the sentinels, and the
// caller treats the lock's state as unknown.
//
// Keys and owners are opaque non-empty strings of any bytes. A Backend must be
// safe for concurrent use.
type Backend interface {
	// TryLock acquires key for owner with a lease of ttl if the key is free,
	// or re-enters it if owner already holds it: the hold count rises by one
	// and the lease is reset to ttl. If another owner holds key, TryLock
	// changes nothing and returns a Grant with Acquired false and, when the
	// store knows it, the holder's remaining lease. Not being acquired is not
	// an error.
	TryLock(ctx context.Context, key, owner string, ttl time.Duration) (Grant, error)

	// Unlock drops one of owner's holds on key. When the count reaches zero the
	// key is deleted and watchers are notified. If owner does not hold key,
	// Unlock changes nothing and returns ErrNotHeld.
	Unlock(ctx context.Context, key, owner string) error

	// Expire resets key's lease to ttl if owner holds it, and returns
	// ErrNotHeld (changing nothing) otherwise.
	Expire(ctx context.Context, key, owner string, ttl time.Duration) error

	// Close releases the backend's resources. Calls after Close return
	// ErrClosed. Close does not release locks: they expire with their leases.
	Close() error
}

// Grant is the result of one lock attempt.
type Grant struct {
	// Acquired reports whether the caller now holds the lock.
	Acquired bool
	// Holds is the caller's hold count after the attempt (1 on a first
	// acquisition, more on re-entry); 0 when not acquired.
	Holds int
	// Token is the fencing token of the hold: it rises strictly on every
	// free-to-held transition of the lock and stays the same on re-entry.
	// 0 when not acquired.
	Token uint64
	// Remaining is the current holder's remaining lease when not acquired,
	// rounded up: a store that knows it reports at least one nanosecond,
	// also in the lease's last instant, since 0 means unknown. The Mutex
	// uses it to bound how long it waits before trying again, so a waiter
	// tries again as the holder's lease runs out.
	Remaining time.Duration
	// Validity, when positive, is how long after the start of the attempt the
	// lock is known to be held; combinators set it to the lease less the time
	// the attempt took and the clock drift. Zero means the full lease.
	Validity time.Duration
	// Uptime, when positive, is how long the store had been running when it
	// made the attempt. Stores that forget their locks when they restart
	// (Redis without persistence) report it so that a RedLock can leave a
	// freshly restarted member out of its quorum (package redlock). Zero
	// means the store does not say; a store that does reports at least one
	// nanosecond.
	Uptime time.Duration
}

// State describes a lock as the store sees it.
type State struct {
	// Held reports whether any owner holds the lock.
	Held bool
	// Owner is the holder's identity; empty when not held.
	Owner string
	// Label is the holder's label (see WithLabel), read from Owner by
	// Mutex.Inspect: who holds the lock, for people. Empty when not held,
	// when the holder has none, and in what a backend returns.
	Label string
	// Holds is the holder's hold count; 0 when not held.
	Holds int
	// Remaining is the holder's remaining lease; 0 when not held.
	Remaining time.Duration
	// Token is the lock's current fencing token: the token of the present
	// hold, or of the last one when not held (0 if the store has none).
	Token uint64
}

// Notifier is an optional Backend capability: notification of releases.
// Without it a waiting Mutex polls with jittered backoff.
type Notifier interface {
	// Watch arranges for fn to be called each time key may have been
	// released, until stop is called. Spurious calls are allowed (for example
	// after a reconnection, when releases may have been missed); missed
	// releases are not. fn must not block. After stop returns, fn is not
	// called again.
	Watch(ctx context.Context, key string, fn func()) (stop func(), err error)
}

// Queuer is an optional Backend capability: a first-come wait queue kept by
// the store, so that waiters get the lock in the order they asked for it,
// and a release wakes one waiter instead of all.
//
// A waiter joins the queue through TryLockQueued. When a lock with waiters
// becomes free (its final Unlock, ForceUnlock, a Dequeue that gives back a
// reservation, or an attempt that finds the lease ran out), the store drops
// the entries whose patience has lapsed from the head of the queue and
// reserves the lock for the first waiter left: the lock is then held by
// that waiter with a hold count of 0, a new fencing token, and a lease
// lasting what remains of the waiter's patience. Only that waiter's
// WatchTurn watchers are called; Notifier watchers hear of a release only
// when nobody was waiting. The waiter's next TryLock or TryLockQueued takes
// the reservation (hold count 1, lease reset to ttl, the reservation's
// token); its Unlock or Dequeue gives it back, to the next waiter. A
// reservation never taken lapses with its lease. To everyone else a
// reserved lock is a held one, and a plain TryLock on a free lock also
// leaves it to the first waiter in line: nobody overtakes the queue.
//
// A waiting Mutex calls TryLockQueued instead of TryLock. A type that wraps
// a Queuer by embedding it and overrides TryLock must therefore override
// TryLockQueued too, or hide the queue with a CapabilityReporter that
// reports CapQueue unsupported.
type Queuer interface {
	// TryLockQueued is TryLock for an owner that will wait. When key is held
	// or reserved by another owner, owner joins the tail of key's queue, or
	// keeps its place if already queued, until patience from now; it must
	// call again before then to stay in line.
	TryLockQueued(ctx context.Context, key, owner string, ttl, patience time.Duration) (Grant, error)

	// Dequeue takes owner out of key's queue, and gives back a reservation
	// of key for owner that it has not taken. It changes nothing, and
	// returns nil, when owner is neither queued nor holding a reservation;
	// it never drops a hold that was taken.
	Dequeue(ctx context.Context, key, owner string) error

	// WatchTurn arranges for fn to be called each time key is reserved for
	// owner, until stop is called. As with Notifier.Watch, spurious calls
	// are allowed (for example each time the subscription becomes active)
	// and missed ones are not; fn must not block, and is not called again
	// after stop returns.
	WatchTurn(ctx context.Context, key, owner string, fn func()) (stop func(), err error)
}

// Inspector is an optional Backend capability: reading a lock's state.
type Inspector interface {
	// Inspect returns key's state.
	Inspect(ctx context.Context, key string) (State, error)
}

// ForceUnlocker is an optional Backend capability: deleting a lock whoever
// holds it.
type ForceUnlocker interface {
	// ForceUnlock deletes key regardless of its owner and notifies watchers.
	// It reports whether a lock was held.
	ForceUnlock(ctx context.Context, key string) (bool, error)
}

// Renewal is one lease renewal in a batch.
type Renewal struct {
	Key   string
	Owner string
	TTL   time.Duration
}

// BatchExpirer is an optional Backend capability: renewing many leases in
// one round trip. The Mutex's watchdog uses it to renew every lease due on a
// backend at once.
type BatchExpirer interface {
	// ExpireBatch performs Expire for each renewal and returns one error per
	// renewal, in order (nil, ErrNotHeld, or an unknown-state error).
	ExpireBatch(ctx context.Context, renewals []Renewal) []error
}

// Granular is an optional capability of a Backend or Lockable whose leases
// are counted in coarse units: the store rounds every lease up to a multiple
// of Granularity. Stores without it are exact to the millisecond.
type Granular interface {
	Granularity() time.Duration
}

// Granularity returns v's lease granularity: v.Granularity() if v is
// Granular, else one millisecond.
func Granularity(v any) time.Duration {
	if g, ok := v.(Granular); ok && g.Granularity() > 0 {
		return g.Granularity()
	}
	return time.Millisecond
}

// Endpointer is an optional Backend capability: it names the server the
// backend talks to (for example "redis://127.0.0.1:6379/0"), so that a
// combinator can refuse two clients of the same server as members. Backends
// with equal endpoints must reach the same store; an empty endpoint means
// unknown.
type Endpointer interface {
	Endpoint() string
}

// CapabilityReporter is implemented by backends and locks whose optional
// methods exist on their type but may not work on every instance, such as
// a combinator whose members lack a capability. Supports consults it.
type CapabilityReporter interface {
	Supports(c Capability) bool
}
