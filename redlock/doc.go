// Package redlock combines independent lock stores into one lock that is
// held while a majority of them hold it (the Redlock algorithm), so that the
// lock survives the failure of a minority of the stores.
//
// A RedLock is itself a driver.Backend: key k on the RedLock means key k on
// every member. A Mutex therefore waits for it, renews it with its watchdog
// and inspects it as it does any backend, and combinators compose: a RedLock
// of MultiLocks is redlock.New([]driver.Backend{ml1, ml2, ml3}).
//
//	rl, err := redlock.New([]driver.Backend{r1, r2, r3, r4, r5})
//	m, err := locker.New(rl, "orders/42")
//	lease, err := m.Lock(ctx)
//	...
//	defer lease.Unlock(context.Background())
//
// # Rules
//
// A RedLock of N members needs N/2+1 of them; N-(N/2+1) may fail. It keeps
// the semantics of Redisson's RedissonRedLock and fixes what that lacks:
//
//   - One attempt contacts every member at once, not one after another: it
//     costs about one round trip to the slowest member. It waits for every
//     member's answer (each bounded by the member timeout), because a member
//     whose state it does not know must be released.
//   - An attempt succeeds when N/2+1 members granted the lock and the
//     validity left, the lease less the time the attempt took less the clock
//     drift (lease × 0.01 + 2 ms), is positive. Validity is measured with a
//     monotonic clock and goes out in driver.Grant.Validity, so the Lease's
//     Deadline reflects it. Redisson checks no validity. The grant's Holds
//     is the largest hold count among the granting members, so that a hold
//     one member still has for the owner (resurrected by a failover, or
//     left by a lost Unlock) shows; repeated Unlocks drain every member.
//   - A failed attempt releases every member: those that granted the lock,
//     those that refused it (their Unlock finds another owner and changes
//     nothing) and those whose call failed or timed out, since such a call
//     may have run (Redisson's RedisResponseTimeoutException branch). The
//     release does not hold the caller past its context's deadline: a
//     member not released by then is released in the background, retried
//     until it answers or until the lease it may hold has run out (Close
//     stops it). On a re-entry (the owner already held some member) the
//     members in an unknown state are left alone instead: an Unlock there
//     could drop the earlier hold rather than this attempt's.
//   - A successful attempt releases the members whose call ended in an
//     unknown state, in its second round (except on a re-entry, as above);
//     the members it holds are released by Unlock.
//   - A failed attempt reports "not acquired" (Grant.Acquired false, no
//     error; a Mutex turns it into driver.ErrNotAcquired and, if waiting,
//     tries again) only when another owner holds the lock: more than
//     N-(N/2+1) members answered no, so no quorum could be reached. Every
//     other failure to decide is an error wrapping driver.ErrUnavailable,
//     naming the reason and each member's error: members failed or timed
//     out (a member's own ErrUnavailable, nothing sent, counts as failed),
//     the restart guard left members out, no validity was left (a late
//     grant), or the caller's budget ran out mid-attempt. Nothing is held
//     afterwards, so a retry is safe. Only when N/2+1 members may still hold
//     the lock for the owner and are not being released (a re-entry whose
//     calls timed out) is the outcome unknown: TryLock then returns an error
//     that is none of locker's sentinels.
//   - Unlock releases every member and succeeds when N/2+1 did; Expire
//     (renewal) succeeds when N/2+1 members renewed, and returns ErrNotHeld
//     once more than N-(N/2+1) members no longer hold the lock, so the
//     Mutex's watchdog closes Lease.Done when the quorum is gone.
//   - Members must be independent: the same backend value twice, two
//     backends whose Endpoint() strings are equal (see Endpointer), or a
//     store shared by two nested combinators is a configuration error.
//   - Leases are rounded up to the coarsest member's granularity
//     (Granularity is the maximum over the members), so every member holds
//     the same lease, while the validity still counts from the lease asked
//     for: members may be any stores, Redis, etcd, memcached and mem mixed.
//
// # Wait budget, member timeout and lease phases
//
// The deadline of the context passed to TryLock, if any, is what remains of
// the caller's wait budget (locker.Lockable's contract). Redisson, calling
// members one after another, gives each the remaining wait divided by N (at
// least 1 ms). Here the calls overlap, so one round costs the slowest call,
// not the sum, and each member call gets min(member timeout, remaining
// budget) — and at least 1 ms even when the budget is gone, so that a last
// attempt (TryLock with a zero wait) can still be made. Cancelling the
// context cancels the calls at once.
//
// The member timeout is per member and follows the round trips the RedLock
// has observed to it: 4 × its smoothed round trip + 50 ms, at most a tenth
// of the lease (and at least 50 ms), and a tenth of the lease before the
// member has answered anything (1 s for a 10 s lease). A call that times
// out raises the member's estimate to half that timeout, so the next one
// waits about twice as long, up to the bound. A fixed share of the lease
// (Redis's documentation suggests 5–50 ms for a 10 s lease) makes a
// healthy store 100 ms away unusable; a timeout that follows the round trip
// keeps it usable, keeps a near store's timeout near 50 ms, and the bound
// keeps a dead one from eating the lease (whatever the rounds spend is
// subtracted from the validity anyway). 50 ms is the floor because a call
// that must first dial a connection (and perhaps handshake TLS), or that
// waits behind a busy scheduler, easily takes more than 10 ms even on
// loopback. Calls without a lease (Unlock, Inspect, Watch, ForceUnlock,
// Fence, and releasing a failed attempt) are bounded by 1 s, or by the
// same rule up to 4 s for a slow member. WithMemberTimeout sets one timeout
// for every call.
//
// Every call returns by its context's deadline (plus a few milliseconds),
// whatever the members do: a member call still running 20 ms after its
// deadline is abandoned, and its member's state taken as unknown.
//
// Redisson's tryLock(wait, lease) takes members with a lease of twice the
// wait and sets the requested lease in a second phase, so that a lock taken
// early cannot expire before the last one is, and a client that dies
// mid-attempt leaves its partial holds for twice the wait, not the whole
// lease. Here all members are taken at once, so only the second reason
// stands; it is kept: when the context's remaining budget is less than half
// the lease, members are first taken for twice the budget, and the second
// round gives those that count the full lease. Members the second round
// cannot extend do not count.
//
// # Restart guard
//
// A store that restarts without persistence forgets its locks: with five
// members, a client holding three loses one to a restart and a second client
// can then win a majority while the first still holds its lease. Redlock's
// answer is the delayed restart: a restarted store must stay out for one
// maximum lease. The RedLock enforces it: a member whose grant reports an
// uptime (driver.Grant.Uptime) shorter than the guard does not count toward
// the quorum (it is still released afterwards). The guard is the longer of
// WithRestartGuard's value (default 30 s, locker.DefaultWatchdogLease) and
// the attempt's own lease; it must cover the longest lease any client takes.
// Stores that do not report an uptime are counted: use persistence with
// them. Renewals need no guard: a renewal only extends holds the owner has,
// and a store that forgot one answers that it no longer holds it.
//
// # Fencing tokens
//
// Each store's token counter rises on its own, so the highest token of a
// quorum is not monotonic by itself. A RedLock's token is made by this
// scheme, over the members that are locker.Fencers (F of them):
//
//  1. Round one takes the lock; each member's grant carries its own token,
//     which rose past its counter. T is the highest token of the fencing
//     members that granted the lock; at least F/2+1 of them must have.
//  2. Round two raises every granting fencing member whose token is below T
//     to T (Fencer.Fence, which raises the hold's token and the member's
//     counter, only if the owner still holds it there); a member that cannot
//     be raised does not count toward the quorum. T is handed out only if at
//     least F/2+1 fencing members now carry it.
//
// When every member fences, both majorities follow from the quorum. With
// mixed members a quorum may include too few fencing ones: the attempt then
// fails (everything is released, and a waiting Mutex tries again) rather
// than hand out a token that cannot be shown to rise. A RedLock with no
// fencing member at all hands out token 0: it has no fencing tokens.
//
// Why tokens rise strictly from holder to holder: let A get token T_A, and
// B acquire after A's hold ended. A's write set (the fencing members
// carrying T_A, written while A held them) and B's read set (the fencing
// members that granted B the lock) each have at least F/2+1 of the F
// fencing members, so they share a member m. A held m from its grant to its
// write, B holds m from its grant on, and a store never lets two owners
// hold a key at once, so B's grant at m came after A's write: m's counter
// was at least T_A, m gave B more, and T_B, the highest of B's tokens, is
// more than T_A. On re-entry every member returns the hold's token, which
// round two made T (or which was already at most T), so the token stays
// the same; a re-entry that had to take some member afresh (its hold had
// expired) gets a new, higher token, as the hold was partly lost. When the
// tokens of round one agree, round two has nothing to raise and is
// skipped. Members that are locker.FloorLockers (the Redis backend) make
// them agree: round one gives each the same floor, the time in microseconds
// plus a second, and a member whose counter is below it grants exactly the
// floor; a member whose counter is above it (a faster clock, a missed
// acquisition) grants more, and round two raises the others as above. So an
// uncontended RedLock of Redis members costs two rounds, lock and unlock.
//
// The argument needs member m to remember its counter: a store that
// restarts without persistence and resets its counters can break it, unless
// it seeds a lost counter from something monotonic (the Redis backend seeds
// from the server's clock). A RedLock whose members are not Fencers hands
// out token 0 (no fencing), except with one member, whose own token is
// used.
//
// # Optional capabilities
//
// Every capability works on a RedLock, implemented over the members' own
// (Redisson throws UnsupportedOperationException for these):
//
//   - Watch watches every member that can notify and calls back on any of
//     their releases; it holds when one member is watched, since a
//     holder's Unlock releases every member. A RedLock with members that
//     cannot notify (memcached) is thus still watchable when one member
//     can, and a waiting Mutex wakes on a release at once instead of
//     polling. A release that only unwatched members see (a lease that ran
//     out there, or a holder that held none of the watched members) is
//     caught by the waiter's safety-net re-check, at the latest when the
//     holder's lease would have ended or after a few seconds. stop stops
//     them all.
//   - Inspect: held when one owner holds N/2+1 members; Holds and Remaining
//     are what the best N/2+1 of them have in common; Token is the
//     combined token.
//   - ForceUnlock deletes the key on every member and reports whether N/2+1
//     held it.
//   - ExpireBatch sends one batch to each member, all at once; each renewal
//     is judged as Expire is.
//   - Fence makes a RedLock a fencing member of another combinator.
//
// The methods always exist, so the combinator is a fixed type; when a
// member lacks the capability they fail with an error wrapping
// errors.ErrUnsupported (for Watch: when no member can notify; a Mutex then
// polls instead of waiting for notifications). Supports tells whether the
// capability works: every member has it, or for Watch one member.
//
// # Guarantees
//
// Mutual exclusion holds while no more than N-(N/2+1) members fail or
// restart without persistence inside the restart guard, and while the
// holder's clock and pauses stay within the drift allowance of the
// validity. A holder paused past its validity (garbage collection, a
// stopped VM) can still believe it holds the lock: protect resources with
// Lease.Token.
//
// # Errors
//
// Bad input (empty key or owner, non-positive lease) and bad configuration
// are errors wrapping driver.ErrInvalid, before any member is contacted.
// Calls after Close wrap driver.ErrClosed. A TryLock that could not decide
// returns an error wrapping driver.ErrUnavailable (see the rules). Unlock
// and Expire return errors wrapping driver.ErrNotHeld when the quorum does
// not hold the lock. Any other error means the outcome is unknown; it names
// each member that failed and why.
//
// # Holder labels
//
// A holder's label (locker.WithLabel) travels in the owner identity, which
// every member keeps with its hold: Inspect on the RedLock, or on any one
// member's store, reports the same label.
package redlock
