package driver

import (
	"context"
	"time"
)

// The optional capabilities below are small interfaces a Backend may also
// implement. The Store finds each by a type assertion on the Backend, once,
// when it is made; a Store method whose capability is missing returns an
// error wrapping errors.ErrUnsupported. A type that wraps a Backend must
// therefore implement exactly the capabilities it passes through: one that
// embeds a Backend passes them all, including methods it did not mean to.

// Notifier is an optional capability: notification of releases. Without it
// a waiting Store polls with jittered backoff.
type Notifier interface {
	// Watch arranges for fn to be called each time key may have been
	// released, until stop is called. Spurious calls are allowed (for
	// example after a reconnection, when releases may have been missed);
	// missed releases are not. fn must not block. After stop returns, fn is
	// not called again (see Callback).
	Watch(ctx context.Context, key string, fn func()) (stop func(), err error)
}

// Queuer is an optional capability: a first-come wait queue kept by the
// store, so that waiters get the lock in the order they asked for it, and a
// release wakes one waiter instead of all.
//
// A waiter joins the queue through TryLock with a positive
// Request.Patience. When a lock with waiters becomes free (its final
// Unlock, ForceUnlock, a Dequeue that gives back a reservation, or an
// attempt that finds the lease ran out), the store drops the entries whose
// patience has lapsed from the head of the queue and reserves the lock for
// the first waiter left: the lock is then held by that waiter with a hold
// count of 0, a new fencing token, and a lease lasting what remains of the
// waiter's patience. Only that waiter's WatchTurn watchers are called;
// Notifier watchers hear of a release only when nobody was waiting. The
// waiter's next TryLock takes the reservation (hold count 1, lease reset to
// the TTL, the reservation's token); its Unlock or Dequeue gives it back, to
// the next waiter. A reservation never taken lapses with its lease. To
// everyone else a reserved lock is a held one, and a TryLock without
// patience on a free lock also leaves it to the first waiter in line:
// nobody overtakes the queue.
type Queuer interface {
	// Dequeue takes owner out of key's queue, and gives back a reservation
	// of key for owner that it has not taken. It changes nothing, and
	// returns nil, when owner is neither queued nor holding a reservation;
	// it never drops a hold that was taken.
	Dequeue(ctx context.Context, key, owner string) error

	// WatchTurn arranges for fn to be called each time key is reserved for
	// owner, until stop is called. As with Notifier.Watch, spurious calls
	// are allowed and missed ones are not; fn must not block, and is not
	// called again after stop returns.
	WatchTurn(ctx context.Context, key, owner string, fn func()) (stop func(), err error)
}

// Inspector is an optional capability: reading a lock's state.
type Inspector interface {
	// Inspect returns key's state.
	Inspect(ctx context.Context, key string) (State, error)
}

// ForceUnlocker is an optional capability: deleting a lock whoever holds it.
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

// BatchExpirer is an optional capability: renewing many leases in one round
// trip. The Store's watchdog renews every lease due on a store at once
// through ExpireAll, which uses it when the Backend has it.
type BatchExpirer interface {
	// ExpireBatch performs Expire for each renewal and returns one error per
	// renewal, in order (nil, ErrNotHeld, or an unknown-state error).
	ExpireBatch(ctx context.Context, renewals []Renewal) []error
}

// Fencer is an optional capability that combinators (packages multilock and
// redlock) need to hand out fencing tokens that rise across several stores.
// Each store's counter rises on its own, so the highest token of a quorum is
// not monotonic by itself: a combinator takes the highest token its members
// granted and raises the other members to it before it returns the token.
type Fencer interface {
	// Fence raises the token of owner's hold on key to at least token, and
	// key's token counter with it: the key's next free-to-held transition
	// on this store gets a higher token, and a re-entry meanwhile returns
	// the raised token. A token already at or above token is left alone. If
	// owner does not hold key, Fence changes nothing and returns ErrNotHeld.
	Fence(ctx context.Context, key, owner string, token uint64) error
}

// Granular is an optional capability of a Backend whose leases are counted
// in coarse units: the store rounds every lease up to a multiple of
// Granularity. Stores without it are exact to the millisecond.
type Granular interface {
	Granularity() time.Duration
}

// Granularity returns b's lease granularity: b.Granularity() if b is
// Granular, else one millisecond.
func Granularity(b Backend) time.Duration {
	if g, ok := b.(Granular); ok && g.Granularity() > 0 {
		return g.Granularity()
	}
	return time.Millisecond
}

// Endpointer is an optional capability: it names the server the backend
// talks to (for example "redis://127.0.0.1:6379/0"), so that a combinator
// can refuse two clients of the same server as members. Backends with equal
// endpoints must reach the same store; an empty endpoint means unknown.
type Endpointer interface {
	Endpoint() string
}

// Clock tells the time. A Store times its leases, renewals and waits by its
// Backend's clock (see Clocked), so that a test can drive them all with the
// store's fake clock instead of sleeping. Contexts are not affected: their
// deadlines are the caller's, in real time.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// At calls f, once, when the clock reaches t; at once when it has
	// already. The time is absolute so that a clock moved by hand between
	// reading Now and setting a timer fires it all the same. f must not
	// block. stop cancels the call and reports whether it did so before f
	// was called.
	At(t time.Time, f func()) (stop func() bool)
}

// Clocked is an optional capability: the backend's leases run on a clock
// other than the system's.
type Clocked interface {
	// Clock returns the clock the leases run on; nil means the system
	// clock.
	Clock() Clock
}
