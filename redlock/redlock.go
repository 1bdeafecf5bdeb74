package redlock

import (
	"fmt"

	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorum"
)

// New returns a RedLock over members: a driver whose lock on key k is held
// while a majority of the members, N/2+1 of N, hold k for the same owner,
// so that N-(N/2+1) may fail. Two members need both (as a MultiLock does);
// three tolerate one failure, five tolerate two. Members may be any
// backends, combinators included, and the RedLock owns them: its Close
// closes them. It is safe for concurrent use; programs use it through
// locker.NewStore. It keeps the semantics of Redisson's RedissonRedLock and
// fixes what that lacks.
//
// An attempt (TryLock) contacts every member at once, not one after
// another: it costs about one round trip to the slowest member. It waits
// for every member's answer, each bounded by the member timeout (see
// combine.WithMemberTimeout) and by the caller's deadline (of its
// context; a Mutex's wait, locker.WithWait, bounds only the waiting
// between attempts), because a member whose state it does not know must be
// released; a member call still running 20 ms after its deadline is
// abandoned and its state taken as unknown, so every call returns by its
// context's deadline. Each member call gets at least 1 ms even when no
// time is left, so that a last attempt can still be made; cancelling the
// context cancels the calls at once. Members are taken with the whole lease
// in that one round, whatever the deadline. Redisson's tryLock(wait, lease)
// first takes them for twice the wait and extends them in a second round,
// so that the holds of a client that dies mid-attempt last twice the wait
// only; that costs every attempt with a deadline another round trip to
// every member. Here a client that dies mid-attempt leaves what it took
// until the lease ends: holds on fewer than N/2+1 members block nobody
// who reaches the others, and a short lease (locker.WithLease, or the
// watchdog's) bounds the rest.
//
// The attempt succeeds when N/2+1 members granted the lock and the
// validity left, the lease less the time the attempt took less the clock
// drift (lease × 0.01 + 2 ms, see combine.WithDriftFactor), is positive.
// Validity is measured with a monotonic clock and goes out in
// driver.Grant.Validity, so the Lease's Deadline reflects it, and each
// renewal counts its lease less the drift (driver.Drifter; Redisson checks
// no validity). The grant's Holds is the hold count a quorum of the
// granting members has in common, so that a hold a quorum still has for
// the owner (resurrected by a failover, or left by a lost Unlock) shows and
// is given back; one that fewer members have stays until its lease ends,
// since each Unlock drops one hold on every member, and giving it back
// would drop the owner's live holds on the others. A successful attempt releases the members
// whose call ended in an unknown state, in its second round, except on a
// re-entry (below); the members it holds are released by Unlock.
//
// A failed attempt releases every member: those that granted the lock,
// those that refused it (their Unlock finds another owner and changes
// nothing) and those whose call failed or timed out, since such a call may
// have run (Redisson's RedisResponseTimeoutException branch). The release
// does not hold the caller past its context's deadline: a member not
// released by then is released in the background, retried until it
// answers or until the lease it may hold has run out (Close stops it), and
// the owner's next attempt or renewal first has that release tried again
// and leaves the member out while it still runs. On a re-entry (the owner
// already held some member, or the combinator counts a hold or a call of
// the owner there) the members in an unknown state are left alone
// instead: an Unlock there could drop the earlier hold rather than this
// attempt's. For the same reason an Unlock that may have run on a member
// is sent again only while the owner holds the lock there once. Every
// release names the member's hold by the member's token where the member
// can (driver.HoldUnlocker): the token the combinator knows or, where the
// reply that carried it was lost, the one the member reports (Inspect),
// so that a release held up in the network that reaches a member after
// the owner locked again drops no later hold. A
// failed attempt reports "not acquired" (Grant.Acquired false, no error; a
// Store turns it into driver.ErrNotAcquired and, if waiting, tries again)
// only when another owner holds the lock: more than N-(N/2+1) members
// answered no, so no quorum could be reached. Every other failure to
// decide is an error wrapping driver.ErrUnavailable, naming the reason and
// each member's error: members failed or timed out
// (a member's own ErrUnavailable, nothing sent, counts as failed), the
// restart guard left members out, no validity was left (a late grant), or
// the caller's budget ran out mid-attempt. Nothing is held afterwards, so
// a retry is safe. Only when N/2+1 members may still hold the lock for the
// owner and are not being released (a re-entry whose calls timed out) is
// the outcome unknown: an error that is none of driver's sentinels.
//
// Unlock releases every member and succeeds when N/2+1 did; it returns an
// error wrapping driver.ErrNotHeld when so many members did not hold it
// that the owner did not hold the lock (the members that did are released
// all the same), and a member whose Unlock got no answer is released in the
// background. Expire (renewal) renews every member and succeeds when N/2+1
// did; it returns ErrNotHeld once more than N-(N/2+1) members no longer
// hold the lock, so the Store's watchdog ends the Lease when the quorum is
// gone. Renewals need no restart guard: a renewal only extends holds the
// owner has, and a store that forgot one answers that it no longer holds
// it. ExpireBatch (driver.BatchExpirer) sends one batch to each member,
// all at once, and judges each renewal as Expire does.
//
// Restart guard: a store that restarts without persistence forgets its
// locks. With five members, a client holding three loses one to a restart,
// and a second client can then win a majority while the first still holds
// its lease. Redlock's answer is the delayed restart, a restarted store
// staying out for one maximum lease; the RedLock enforces it: a member
// whose grant reports an uptime (driver.Grant.Uptime) shorter than the
// guard does not count toward the quorum (it is still released
// afterwards). The guard is the longer of combine.WithRestartGuard's value
// (combine.DefaultRestartGuard, 30 s) and the attempt's own lease; it must
// cover the longest lease any client takes. Stores that do not report an
// uptime are counted: use persistence with them.
//
// Fencing: the RedLock's token rises strictly from holder to holder and
// stays the same on re-entry, on members that are driver.Fencers (F of
// them): the token is the highest the fencing members granted, at least
// F/2+1 of them must have granted the lock, and the members below it are
// raised to it before it is handed out, which F/2+1 fencing members must
// then carry; otherwise the attempt fails (everything is released, a
// waiting Mutex tries again) rather than hand out a token that cannot be
// shown to rise (package internal/quorum says why this suffices). Members
// that honour driver.Request.Floor (Redis) grant the same token, and an
// uncontended RedLock of them costs two rounds, lock and unlock. A RedLock
// with no fencing member hands out token 0 (no fencing), except with one
// member, whose own token is used. The argument needs each member to
// remember its counter: a store that restarts without persistence and
// resets its counters can break it, unless it seeds a lost counter from
// something monotonic (the Redis backend seeds from the server's clock).
// A RedLock is fenced the same way as the member of another combinator
// when it has fencing members.
//
// The optional capabilities (Redisson throws UnsupportedOperationException
// for these) are offered exactly when they work, which the value's type
// shows: it implements driver.Notifier when at least one member notifies,
// driver.Inspector when every member inspects, and driver.ForceUnlocker
// when every member force-unlocks; it is always a driver.BatchExpirer and a
// driver.Granular. Watch watches every member that can notify and calls
// back on any of their releases; it holds when one member is watched, since
// a holder's Unlock releases every member, so a RedLock with members that
// cannot notify (memcached) still wakes a waiting Mutex at once when one
// member can. A release only unwatched members see (a lease that ran out
// there, or a holder that held none of the watched members) is caught by
// the waiter's safety-net re-check, at the latest when the holder's lease
// would have ended or after a few seconds; stop stops them all. Inspect
// reports the lock held when one owner holds N/2+1 members; Holds and
// Remaining are what the best N/2+1 of them have in common, and Token is
// the combined token. ForceUnlock deletes the key on every member and
// reports whether N/2+1 held it.
//
// Shared locks: the RedLock is a driver.Sharer, as every combinator is,
// and so serves locker's read-write locks and semaphores: its view of a
// driver.Share is the RedLock of its members' views, with the same
// settings, and a hold of it is held while N/2+1 members hold it, under
// every rule above (validity, cleanup, restart guard, background releases,
// fencing). Share fails with an error wrapping errors.ErrUnsupported,
// naming the member, when a member cannot share (memcached, PostgreSQL).
//
//   - Read-write locks are safe under a majority: a write majority and a
//     read majority (or another write majority) share a member, which
//     never lets both in. A writer that waits (driver.Request.Patience)
//     waits on every member, so new readers are kept from every member
//     where it waits. A write token rises as a mutex's does; a read token
//     is the highest counter among the members that granted the read,
//     raised on the others before it is handed out: at least the token of
//     the last write and below the next one's.
//   - Semaphores are not, in general. N members of Limit permits each let
//     c = Limit/Permits holds of a view in, and a holder needs q = N/2+1
//     of them, so up to floor(N·c/q) holders fit, more than c when c > 1:
//     with three members of 2 permits and holds of 1, holders A on members
//     {1,2}, B on {1,3} and C on {2,3} hold at once. Share therefore
//     refuses a semaphore view unless floor(N·c/q) <= c, that is
//     c·(N-q) < q, with an error wrapping driver.ErrInvalid (no retry
//     fixes it) and errors.ErrUnsupported (the RedLock cannot keep that
//     kind of semaphore): in practice c = 1, every hold taking more than
//     half the permits (or c <= 2 with four members). Views that pass
//     keep the bound, and never let more than Limit permits be held at
//     once, whatever the Permits of each. A MultiLock, which needs every
//     member, keeps the bound for every semaphore: use it for many small
//     holds. A RedLock's semaphore keeps no wait list (waiters lined up in
//     different orders on different members would keep each other out),
//     so a waiter may be overtaken. Its tokens rise from every acquisition
//     to the next that begins after it ended; acquisitions whose attempts
//     overlap may get the same token.
//
// Leases are rounded up to the coarsest member's granularity
// (Granularity), so every member holds the same lease, while the validity
// still counts from the lease asked for: members may be any stores, Redis,
// etcd, memcached and mem mixed.
//
// New fails with an error wrapping driver.ErrInvalid when members has fewer
// than two entries (a RedLock of one store is that store: use it directly),
// a member is nil, two members are the same store (the same backend value,
// equal driver.Endpointer endpoints, or a store shared by two nested
// combinators), or an option is invalid. It contacts no member.
func New(members []driver.Backend, opts ...combine.Option) (driver.Backend, error) {
	if len(members) == 1 {
		return nil, fmt.Errorf("redlock: %w: one member; a RedLock needs at least two, and three or more to tolerate a failure",
			driver.ErrInvalid)
	}
	return quorum.Build(quorum.Majority, members, opts)
}
