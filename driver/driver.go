package driver

import (
	"context"
	"time"
)

// Backend is the interface a lock store implements. Programs do not call it:
// they hold a *locker.Store made from it, which validates input, waits,
// renews and reports loss.
//
// Every method is a single atomic attempt on the store. A Backend never
// waits for a lock, never retries and never sleeps; waiting and retrying are
// the Store's job.
//
// A Backend never reports success for something that did not happen. When
// it cannot know whether an operation ran (the reply was lost, the context
// ended in flight), it returns an error that wraps none of this package's
// sentinels (see IsUnknown), and the caller treats the lock's state as
// unknown. An operation it knows it never sent is ErrUnavailable.
//
// Keys and owners are opaque non-empty strings of any bytes. A Backend must
// be safe for concurrent use. Its errors need not name the operation or the
// key: the Store wraps them with both.
type Backend interface {
	// TryLock acquires r.Key for r.Owner with a lease of r.TTL if the key is
	// free, or re-enters it if r.Owner already holds it: the hold count
	// rises by one and the lease is reset to r.TTL. If another owner holds
	// the key, TryLock changes nothing (but see Request.Patience) and
	// returns a Grant with Acquired false and, when the store knows it, the
	// holder's remaining lease. Not being acquired is not an error.
	TryLock(ctx context.Context, r Request) (Grant, error)

	// Unlock drops one of owner's holds on key. When the count reaches zero
	// the key is deleted and watchers are notified. If owner does not hold
	// key, Unlock changes nothing and returns ErrNotHeld.
	Unlock(ctx context.Context, key, owner string) error

	// Expire resets key's lease to ttl if owner holds it, and returns
	// ErrNotHeld (changing nothing) otherwise.
	Expire(ctx context.Context, key, owner string, ttl time.Duration) error

	// Close releases the backend's resources. Calls after Close return
	// ErrClosed. Close does not release locks: they expire with their
	// leases. Calling Close again returns the first call's result.
	Close() error
}

// Request is one lock attempt.
type Request struct {
	// Key names the lock; Owner is the identity that will hold it.
	Key, Owner string
	// TTL is the lease the lock is taken or re-entered with.
	TTL time.Duration
	// Patience, when positive, says that Owner will wait for the lock this
	// long from now. A store with a wait queue (Queuer) then puts Owner at
	// the tail of Key's queue when another owner holds the lock, or keeps
	// its place if it is already queued, and records TTL as the lease of a
	// grant made to it; Owner must ask again before Patience has passed to
	// stay in line. The views of a Sharer
	// keep a wait list the same way (see Sharer). Stores without a queue
	// ignore it.
	Patience time.Duration
	// Floor, when positive, asks that a free-to-held transition get a
	// fencing token of at least Floor: a transition this attempt makes, a
	// grant made to Owner while it waits in the queue after this attempt
	// (see Queuer), and the claim of a grant, which raises the grant's
	// token to at least Floor. Combinators pass every member the same floor
	// so that their tokens agree (see Fencer). Stores that cannot honour it
	// ignore it; tokens must rise all the same.
	Floor uint64
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
	// 0 when the store has no tokens, and when not acquired, except that a
	// Queuer reports the lock's current token when it refuses an attempt
	// with Patience (see Queuer).
	Token uint64
	// Reserved, when not acquired, reports that the lock is a grant to
	// the first waiter of the store's queue that the waiter has not
	// claimed yet (see Queuer): it is that waiter's turn. Combinators
	// whose queue is a member's refuse an attempt that member reserved,
	// which would otherwise overtake the waiter on the other members. A
	// store without a queue never sets it.
	Reserved bool
	// Remaining is the current holder's remaining lease when not acquired,
	// rounded up: a store that knows it reports at least one nanosecond,
	// also in the lease's last instant, since 0 means unknown. The Store
	// uses it to bound how long a waiter sleeps before trying again.
	Remaining time.Duration
	// Validity, when positive, is how long after the start of the attempt
	// the lock is known to be held; combinators set it to the lease less
	// the time the attempt took and the clock drift. Zero means the full
	// lease.
	Validity time.Duration
	// Uptime, when positive, is how long the store had been running when it
	// made the attempt (or, for a grant a Queuer's turn brings, the grant).
	// Stores that forget their locks when they restart (Redis without
	// persistence) report it so that a RedLock can leave a freshly
	// restarted member out of its quorum; a store that cannot tell it
	// exactly understates it. Zero means the store does
	// not say; a store that does reports at least one nanosecond.
	Uptime time.Duration
}

// State describes a lock as the store sees it (see Inspector).
type State struct {
	// Held reports whether any owner holds the lock.
	Held bool
	// Owner is the holder's identity; empty when not held.
	Owner string
	// Holds is the holder's hold count; 0 when not held.
	Holds int
	// Remaining is the holder's remaining lease; 0 when not held.
	Remaining time.Duration
	// Token is the lock's current fencing token: the token of the present
	// hold, or of the last one when not held (0 if the store has none).
	Token uint64
	// Holders lists the holds of a shared lock (see Sharer), one per owner
	// and mode: the readers and the writer of a read-write lock, whose
	// writer is also Owner, or the permit holders of a semaphore. It is
	// empty for a mutex. Of a shared lock, Owner and Holds are the writer's
	// (empty without one), and Remaining is the longest remaining lease of
	// its holders.
	Holders []Holder
	// Limit is a semaphore's number of permits while it is in use; 0
	// otherwise.
	Limit int
}

// HoldOf reports whether owner holds the lock s describes, in mode on a
// shared lock (0 for a mutex), and the token of that hold (0 when the
// store does not say).
func (s State) HoldOf(owner string, mode Mode) (token uint64, held bool) {
	if mode == 0 {
		if s.Held && s.Owner == owner {
			return s.Token, true
		}
		return 0, false
	}
	for _, h := range s.Holders {
		if h.Owner == owner && h.Mode == mode {
			return h.Token, true
		}
	}
	return 0, false
}
