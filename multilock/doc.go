// Package multilock combines several locks into one that is held only while
// all of them are: the same key on several stores (MultiLock), or several
// keys, possibly on different stores (Keys, e.g. account:A and account:B
// for a transfer).
//
// A MultiLock is itself a driver.Backend: key k on it means key k on every
// member. A Mutex therefore waits for it, renews it with its watchdog and
// inspects it as it does any backend, and combinators compose: a RedLock of
// MultiLocks is redlock.New([]driver.Backend{ml1, ml2, ml3}). A MultiKey
// (from Keys) is a locker.Lockable for locker.NewMutex.
//
//	a, _ := locker.Key(accounts, "account:A")
//	b, _ := locker.Key(accounts, "account:B")
//	both, err := multilock.Keys([]*locker.KeyLock{a, b})
//	m, err := locker.NewMutex(both)
//	lease, err := m.Lock(ctx)
//
// # Rules
//
// A MultiLock keeps the semantics of Redisson's RedissonMultiLock (every
// member must be acquired; on failure what was acquired is released) and
// follows the rules of package redlock with a quorum of every member; see
// there for the wait budget, the member timeout, the lease phases, the
// validity and the fencing tokens. In short:
//
//   - One attempt asks the first member in a fixed order (by store, then
//     key) alone, and only if it grants the lock every other member at
//     once: two round trips, not one per member. Contenders refused at the
//     first member take nothing, so simultaneous attempts on a free lock
//     always have a winner instead of each winning a part and all failing.
//     No owner ever waits while holding part of the set, so locks taken in
//     different orders cannot deadlock.
//   - It succeeds when every member granted the lock and the validity (lease
//     less elapsed time less drift) is positive; the validity goes out in
//     driver.Grant.Validity.
//   - A failed attempt releases every member, including those that refused
//     and those whose call failed or timed out (their state is unknown),
//     within the caller's deadline, and in the background for any member
//     not released by then. It reports "not acquired" (so a Mutex returns
//     driver.ErrNotAcquired, or waits and tries again) only when a member
//     refused: another owner holds it. A member that failed or timed out, a
//     late grant or a budget that ran out mid-attempt is an error wrapping
//     driver.ErrUnavailable that names the reason and the members; the
//     outcome is unknown (an error that is none of locker's sentinels) only
//     on a re-entry whose members may all still hold the lock.
//   - The member timeout follows each member's observed round trip (see
//     package redlock): members 100 ms away work with the defaults.
//   - Unlock releases every member; it returns an error wrapping
//     driver.ErrNotHeld when some member did not hold the lock (the others
//     are released all the same). Expire renews every member and returns
//     ErrNotHeld as soon as one member no longer holds the lock, so the
//     Mutex's watchdog closes Lease.Done.
//   - Fencing tokens rise strictly from holder to holder and stay the same
//     on re-entry: the token is the highest of the members' tokens, written
//     back to the members below it before it is handed out.
//   - Members must be independent (the same store twice is a configuration
//     error), and leases are rounded up to the coarsest member's
//     granularity.
//   - There is no restart guard: a store that restarts and forgets a hold
//     cannot let a second owner in while the first holds the other members.
//     (A MultiLock of one member is no safer than that store.)
//
// # Optional capabilities
//
// Watch (any release by a member that can notify wakes the waiter; members
// that cannot are not watched, and a release only they see waits for the
// waiter's safety-net re-check), Inspect (held when one
// owner holds every member; the hold count and remaining lease are the
// smallest), ForceUnlock, ExpireBatch (one batch per member, all at once)
// and Fence all work on a MultiLock, over the members' own. The methods
// always exist; when a member lacks the capability (for Watch: when no
// member has it) they fail with an error wrapping errors.ErrUnsupported,
// and Supports tells which work. MultiKey offers Watch, Inspect and
// ForceUnlock the same way.
//
// # Errors
//
// Bad input and bad configuration are errors wrapping driver.ErrInvalid,
// before any member is contacted; calls after Close wrap driver.ErrClosed;
// an attempt the members could not decide wraps driver.ErrUnavailable. Any
// error other than these and ErrNotHeld means the outcome is unknown; it
// names each member that failed and why.
//
// # Holder labels
//
// A holder's label (locker.WithLabel) travels in the owner identity, which
// every member keeps with its hold: Inspect on the MultiLock, or on any one
// member's store, reports the same label.
package multilock
