package driver

import (
	"context"
	"fmt"
	"time"
)

// Sharer is an optional capability: locks that several owners can hold at
// once, read-write locks and semaphores. A Sharer hands out views: a view
// is a Backend whose keys name the store's shared locks of one kind, in a
// namespace apart from its mutexes, so that the read-write lock "k", the
// semaphore "k" and the mutex "k" are three locks. Everything a Store does
// with a Backend (waiting, renewing, noticing loss, cleaning up) it then
// does with a view unchanged, and a combinator makes its views from its
// members' views.
//
// The two views of a read-write lock (Read and Write) address the same
// locks; so do all the semaphore views of one Limit, whatever their
// Permits. A view shares its Sharer's connections: closing a view closes
// the Sharer and every view of it, and a view of a closed Sharer returns
// ErrClosed.
//
// A view keeps the Backend contract, with the differences below, and may
// implement the optional capabilities a Backend may: Notifier (its watchers
// are called whenever a hold of the key ends or a waiter leaves, anything
// after which a refused attempt may succeed), Inspector and ForceUnlocker
// (over the whole lock, every mode and holder), BatchExpirer, Fencer,
// HoldUnlocker (see the tokens below), Granular, Endpointer (its Sharer's
// endpoint), Clocked, and Dequeuer for its wait list. A view is never a
// Queuer: a shared lock is not handed to a waiter by a release.
//
// # Read-write locks
//
// A read-write lock is held by any number of owners in Read mode, or by one
// owner in Write mode. Each owner's read hold and write hold are separate,
// each with its hold count and its lease.
//
//   - A Write attempt acquires when no other owner holds the lock in either
//     mode and the owner holds no read hold of its own: there is no upgrade,
//     an owner drops its read hold before it writes. It re-enters when the
//     owner holds the write hold.
//   - A Write attempt refused with a positive Request.Patience registers the
//     owner as a waiting writer until Patience has passed (each attempt
//     renews it), it acquires, or it leaves (Dequeue). While a writer waits,
//     Read attempts of owners without a hold are refused, so that readers
//     cannot starve writers.
//   - A Read attempt acquires when no other owner holds the write hold and
//     no writer waits. It always succeeds for an owner that holds the lock
//     already: a read re-entry, or a read hold taken under the owner's own
//     write hold (a downgrade, as the write hold can then be dropped with
//     the read hold kept).
//   - Tokens: the lock's counter rises on every acquisition of the write hold
//     (not on re-entry), and the write Grant carries it, at least
//     Request.Floor. A new read hold's Grant carries the counter as it is:
//     the token of the last write hold, 0 if there never was one; Floor is
//     ignored. So a resource turns away writes from stale writers, and
//     readers see the version they read. The counter never falls, as a
//     mutex's does not. Every hold keeps the token its first Grant carried
//     (re-entries carry it again), which Fence raises and UnlockHold names:
//     a write hold's is its own, but an owner's read holds with no write
//     hold between them share theirs, so a release by token cannot tell
//     them apart.
//     (Through a combinator a read token is at least the last write's: a
//     write attempt that took some members and then failed leaves their
//     counters raised.)
//   - A refused Grant's Remaining is the longest remaining lease, or
//     patience, of the holds and waiting writers in the way.
//   - A Fencer view raises the owner's hold's token, and the counter, to
//     at least the token, when the owner holds the lock in the view's mode.
//
// # Semaphores
//
// A semaphore has Limit permits; every hold of a view takes Permits of
// them. The limit is stored with the semaphore while any permit is held or
// any owner waits: an attempt that gives another limit meanwhile fails
// with ErrInvalid, changing nothing. An unused semaphore keeps only its
// token counter, so the next acquisition sets the limit anew.
//
//   - An attempt acquires when the permits not held are at least Permits
//     and no owner waits ahead of it. An owner that holds permits re-enters
//     (hold count up by one, lease reset, no more permits), and an attempt
//     that asks for a different number than it holds fails with ErrInvalid.
//   - A refused attempt with a positive Patience puts the owner at the tail
//     of the semaphore's wait list, or keeps its place, until Patience has
//     passed (each attempt renews it), it acquires, or it leaves (Dequeue).
//     Nobody overtakes a live waiter: a large request is not starved by
//     small ones.
//   - Every acquisition (not a re-entry) gets a token from the semaphore's
//     counter, rising strictly, at least Request.Floor; a re-entry
//     carries its hold's token, which Fence raises and UnlockHold names.
//   - A refused Grant's Remaining is the shortest remaining lease of the
//     holders, or the patience of the first waiter when nobody holds.
//   - Unlock drops one hold; with the last, the owner's permits are free.
type Sharer interface {
	// Share returns the view of the store's shared locks that s describes.
	// It fails with ErrInvalid for a malformed Share (see CheckShare), and
	// with an error wrapping errors.ErrUnsupported (see Unsupported) for a
	// kind of shared lock the store cannot keep.
	Share(s Share) (Backend, error)
}

// Mode is the kind of hold a view of a Sharer takes.
type Mode uint8

const (
	// Read is a read hold of a read-write lock.
	Read Mode = iota + 1
	// Write is the write hold of a read-write lock.
	Write
	// Permits is a hold of Share.Permits of a semaphore's Share.Limit
	// permits.
	Permits
)

// String returns the mode's name in lower case.
func (m Mode) String() string {
	switch m {
	case Read:
		return "read"
	case Write:
		return "write"
	case Permits:
		return "permits"
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// Share describes a view of a Sharer.
type Share struct {
	// Mode is Read or Write for a read-write lock, Permits for a semaphore.
	Mode Mode
	// Limit is a semaphore's number of permits, and Permits how many of
	// them each hold of the view takes: 1 <= Permits <= Limit. Both are 0
	// for a read-write lock.
	Limit, Permits int
}

// MaxPermits is the most permits a semaphore may have.
const MaxPermits = 1 << 30

// CheckShare rejects a malformed Share with ErrInvalid.
func CheckShare(s Share) error {
	switch s.Mode {
	case Read, Write:
		if s.Limit != 0 || s.Permits != 0 {
			return Invalid(fmt.Sprintf("a %v view with a limit or permits", s.Mode))
		}
		return nil
	case Permits:
		switch {
		case s.Limit <= 0 || s.Limit > MaxPermits:
			return Invalid(fmt.Sprintf("a semaphore of %d permits: it needs 1 to %d", s.Limit, MaxPermits))
		case s.Permits <= 0:
			return Invalid(fmt.Sprintf("a hold of %d permits: it takes at least 1", s.Permits))
		case s.Permits > s.Limit:
			return Invalid(fmt.Sprintf("a hold of %d permits of a semaphore of %d", s.Permits, s.Limit))
		}
		return nil
	}
	return Invalid(fmt.Sprintf("unknown %v", s.Mode))
}

// Holder is one owner's hold of a shared lock (see State.Holders).
type Holder struct {
	// Owner is the holder's identity.
	Owner string
	// Mode is Read or Write for a read-write lock, Permits for a semaphore.
	Mode Mode
	// Holds is the hold count; Permits the permits it takes (0 for a
	// read-write lock).
	Holds, Permits int
	// Remaining is the hold's remaining lease.
	Remaining time.Duration
	// Token is the token the hold keeps (see Sharer: the one its first
	// Grant carried, as Fence raised it), which UnlockHold names; 0 when
	// the store does not say. A view that is a HoldUnlocker says.
	Token uint64
}

// Dequeuer is an optional capability: leaving a wait list or queue that an
// attempt with a positive Request.Patience joined. A Queuer is one; so are
// the views of a Sharer that keep a wait list.
type Dequeuer interface {
	// Dequeue takes owner off key's wait list or queue (and, on a Queuer,
	// gives back a grant to owner it has not claimed). It changes nothing,
	// and returns nil, when owner is not waiting; it never drops a hold
	// that was claimed.
	Dequeue(ctx context.Context, key, owner string) error
}
