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
// release hands the lock to one waiter, in the same step, instead of waking
// all of them to race for it.
//
// A waiter joins the queue through TryLock with a positive
// Request.Patience; each such attempt also records the lease the waiter
// asks for (Request.TTL). When a lock with waiters becomes free (its final
// Unlock, ForceUnlock, a Dequeue that gives back a grant, or an attempt
// that finds the lease ran out), the store drops the entries whose patience
// has lapsed from the head of the queue and grants the lock to the first
// waiter left: the lock is then held by that waiter with one hold, a new
// fencing token and the lease its last attempt asked for, and that
// waiter's WatchTurn watchers are given the grant. The waiter holds the
// lock from then on without another call: the grant's lease began after the
// store refused the waiter's last attempt, so a lease counted from the
// start of that attempt ends no later than the store's. Notifier watchers
// hear of a release only when nobody was waiting. To everyone else a
// granted lock is a held one, and a TryLock without patience on a free lock
// also leaves it to the first waiter in line: nobody overtakes the queue.
//
// A grant is unclaimed until the waiter's next TryLock with Patience claims
// it: that attempt is acquired with the grant's hold and token (it adds no
// hold; a Floor above the token raises it, see Request) and resets the
// lease to its TTL, so that a waiter whose turn went
// unheard, or crossed its own attempt, gets the lock once. A TryLock
// without Patience by the same owner re-enters (two holds) and claims it
// too. Dequeue gives back an unclaimed grant, to the next waiter; so does
// Unlock, as the last hold. A waiter that took its grant from WatchTurn
// therefore never Dequeues: it holds the lock, and gives it back with
// Unlock. A grant nobody claims lapses with its lease.
//
// A refusal while the lock is a grant not yet claimed reports
// Grant.Reserved: it is a waiter's turn. A combinator whose queue is one
// member's (packages multilock and redlock, see their docs) is a Queuer
// whose grants are that member's: its turns carry no grant (the waiter's
// next attempt takes the other members), and until then it refuses
// everyone else, reporting Reserved, though Inspect shows what the
// members hold.
//
// A refused attempt with Patience reports, in Grant.Token, the lock's
// current token: a grant made after it carries a higher one. A waiter keeps
// the highest it saw during its wait and takes a grant from WatchTurn only
// if its token is above it, so that a turn message of an earlier wait
// (late, or of a grant given back) is never taken for the present one.
type Queuer interface {
	// Dequeue takes owner out of key's queue, and gives back a grant of
	// key to owner that it has not claimed. It changes nothing, and
	// returns nil, when owner is neither queued nor holding an unclaimed
	// grant; it never drops a hold that was claimed.
	Dequeue(ctx context.Context, key, owner string) error

	// WatchTurn arranges for fn to be called each time key is granted to
	// owner, with the grant (Acquired, Holds 1, its Token, and the Uptime
	// of a store that reports it), until stop is
	// called. fn is also called with a zero Grant when a grant may have
	// gone unheard (for example when the subscription becomes active, and
	// after a reconnection), or when the store can only wake the waiter:
	// the waiter then claims the grant with TryLock. Missed calls are not
	// allowed. fn must not block, and is not called again after stop
	// returns (see Callback).
	WatchTurn(ctx context.Context, key, owner string, fn func(Grant)) (stop func(), err error)
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

// HoldUnlocker is an optional capability: an Unlock that names the hold it
// drops by its fencing token. A release can be held up in the network
// after its caller gave up on it and released again on a new connection,
// and reach the store after the same owner has locked again: a plain
// Unlock, which names only the owner, would then drop that later hold,
// and another owner could take the lock while it is still live. The Store
// releases a Lease with UnlockHold when the Backend has it.
type HoldUnlocker interface {
	// UnlockHold is Unlock of owner's hold on key whose fencing token is
	// token (re-entries share their hold's token): if owner holds key
	// under another token, or not at all, it changes nothing and returns
	// ErrNotHeld. A zero token is ErrInvalid.
	UnlockHold(ctx context.Context, key, owner string, token uint64) error
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

// Drifter is an optional capability of a driver that allows for the drift
// between the clocks its stores keep leases by and the caller's (a
// combinator: see Grant.Validity). A Mutex counts a renewal of ttl as
// held for ttl less Drift(ttl) from the start of its call, as a grant is
// held for its Validity.
type Drifter interface {
	// Drift returns how much of a lease of ttl the stores' clocks may
	// count away before the caller's clock does.
	Drift(ttl time.Duration) time.Duration
}
