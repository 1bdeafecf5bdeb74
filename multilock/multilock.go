package multilock

import (
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorum"
)

// New returns a MultiLock over members: a driver whose lock on key k is
// held while every member holds k for the same owner. Members may be any
// backends, combinators included, and the MultiLock owns them: its Close
// closes them. It is safe for concurrent use; programs use it through
// locker.NewStore. It keeps the semantics of Redisson's RedissonMultiLock
// (every member must be acquired; on failure what was acquired is
// released) and follows the rules of redlock.New with a quorum of every
// member, for the caller's deadline, the member timeout, the lease phases,
// the background releases and the validity. In short:
//
// An attempt (TryLock) asks the first member in a fixed order (by store,
// then key) alone, and only if it grants the lock every other member at
// once: two round trips, not one per member. Contenders refused at the
// first member take nothing, so simultaneous attempts on a free lock
// always have a winner instead of each winning a part and all failing. No
// owner ever waits while holding part of the set, so locks taken in
// different orders cannot deadlock. The attempt succeeds when every member
// granted the lock and the validity (lease less elapsed time less drift)
// is positive; the validity goes out in driver.Grant.Validity.
//
// A failed attempt releases every member, including those that refused and
// those whose call failed or timed out (their state is unknown), within the
// caller's deadline, and in the background for any member not released by
// then; on a re-entry the members in an unknown state are left alone, and
// an Unlock that may have run is sent again only where the owner holds the
// lock once, since each Unlock drops a hold, whoever's it is. Every
// release names the member's hold by the member's token where the member
// can (driver.HoldUnlocker): the token the combinator knows or, where the
// reply that carried it was lost, the one the member reports (Inspect),
// so that a release held up in the network that reaches a member after
// the owner locked again drops no later hold. It reports "not acquired"
// (so a Store returns driver.ErrNotAcquired, or waits and tries again)
// only when a member refused: another owner holds it. A member that failed
// or timed out, a late grant or a budget that ran out mid-attempt is an
// error wrapping driver.ErrUnavailable that names the reason and the
// members; the outcome is unknown (an error that is none of driver's
// sentinels) only on a re-entry whose members may all still hold the
// lock. The member timeout
// follows each member's observed round trip (combine.WithMemberTimeout):
// members 100 ms away work with the defaults.
//
// Unlock releases every member; it returns an error wrapping
// driver.ErrNotHeld when some member did not hold the lock (the others are
// released all the same). Expire renews every member and returns
// ErrNotHeld as soon as one member no longer holds the lock, so the
// Store's watchdog ends the Lease. ExpireBatch (driver.BatchExpirer) sends
// one batch to each member, all at once.
//
// Fencing tokens rise strictly from holder to holder and stay the same on
// re-entry: the token is the highest of the fencing members' tokens,
// written back to the members below it before it is handed out (see
// redlock.New). A MultiLock of one member that cannot fence hands out that
// store's own token.
//
// There is no restart guard (combine.WithRestartGuard is an error here): a
// store that restarts and forgets a hold cannot let a second owner in
// while the first holds the other members. A MultiLock of one member is no
// safer than that store.
//
// Shared locks: the MultiLock is a driver.Sharer, as every combinator is,
// and so serves locker's read-write locks and semaphores: its view of a
// driver.Share is the MultiLock of its members' views, with the same
// settings, held while every member holds it. That is always safe: every
// holder is on every member, so a writer excludes readers and other
// writers, and a semaphore of any Limit and Permits keeps its bound. A
// writer that waits (driver.Request.Patience) waits on every member, which
// keeps new readers out; a semaphore's wait list is kept by the first
// member an attempt asks, so waiters get past it in order and nobody
// overtakes a waiter. Tokens follow redlock.New's rules. Share fails with
// an error wrapping errors.ErrUnsupported, naming the member, when a
// member cannot share (memcached, PostgreSQL).
//
// The optional capabilities are offered exactly when they work, which the
// value's type shows: it implements driver.Notifier when at least one
// member notifies (any release by a member that can notify wakes the
// waiter; members that cannot are not watched, and a release only they see
// waits for the waiter's safety-net re-check), driver.Inspector when every
// member inspects (held when one owner holds every member; the hold count
// and remaining lease are the smallest), and driver.ForceUnlocker when
// every member force-unlocks; it is always a driver.BatchExpirer and a
// driver.Granular. Leases are rounded up to the coarsest member's
// granularity.
//
// New fails with an error wrapping driver.ErrInvalid when members is empty,
// a member is nil, two members are the same store (the same backend value,
// equal driver.Endpointer endpoints, or a store shared by two nested
// combinators), or an option is invalid. It contacts no member.
func New(members []driver.Backend, opts ...combine.Option) (driver.Backend, error) {
	return quorum.Build(quorum.All, members, opts)
}
