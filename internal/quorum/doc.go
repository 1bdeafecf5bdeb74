// Package quorum is the engine behind packages multilock and redlock, and
// behind locker.Keys: one lock over several member stores, held while
// enough of them hold it for the same owner (all of them for a MultiLock,
// a majority for a RedLock). What it returns is a driver.Backend, whose
// optional capabilities are those its members allow (capabilities.go).
//
// The engine makes each attempt in rounds that contact every member in
// parallel (fanout.go), each call bounded by a per-member timeout (derived
// from the member's observed round trips, see Settings.leaseTimeout) and
// by the caller's deadline, and abandoned shortly after it: round one
// asks every member for the lock, with the whole lease; round two, when it
// is needed, raises the members' fencing counters to the combined token,
// and releases members whose first call ended in an unknown state. It then checks the quorum and the validity
// (lease less elapsed time and clock drift). A failed attempt releases
// the members it took, within the caller's deadline and then in the background
// (background.go), and reports "not acquired" only when members refused,
// ErrUnavailable for any other failure to decide (cleanup.go). A lock that
// needs every member asks one member first (gate.go). A combinator of
// mutexes whose members keep wait queues waits in line at one of them, its
// line member (line.go, linestate.go); a waiter that is not in line there
// wakes at the releases of the members that refused it (wake.go).
//
// Redisson, calling members one after another, gives each the remaining
// wait divided by N (at least 1 ms). Here the calls overlap, so one round
// costs the slowest call, not the sum, and each member call gets
// min(member timeout, time left to the caller's deadline), and at least
// 1 ms even when none is left (callContext). The calls of a round share one context
// where their bounds are within an eighth of each other, as they are when
// the members' round trips are alike (launch).
//
// # Fencing
//
// Each store's token counter rises on its own, so the highest token of a
// quorum is not monotonic by itself. The combined token is made by this
// scheme, over the members that are fencers (F of them: driver.Fencers,
// and nested combinators with fencing members of their own):
//
//  1. Round one takes the lock; each member's grant carries its own token,
//     which rose past its counter. T is the highest token of the fencing
//     members that granted the lock; at least F/2+1 of them must have.
//  2. Round two raises every granting fencing member whose token is below T
//     to T (Fence, which raises the hold's token and the member's counter,
//     only if the owner still holds it there); a member that cannot be
//     raised does not count toward the quorum. T is handed out only if at
//     least F/2+1 fencing members now carry it.
//
// When every member fences, both majorities follow from the quorum. With
// mixed members a quorum may include too few fencing ones: the attempt then
// fails rather than hand out a token that cannot be shown to rise.
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
// expired) gets a new, higher token, as the hold was partly lost.
//
// When the tokens of round one agree, round two has nothing to raise and is
// skipped. Members that honour driver.Request.Floor (the Redis backend)
// make them agree: round one gives each the same floor, the time in
// microseconds plus a second (tokenFloor), and a member whose counter is
// below it grants exactly the floor; a member whose counter is above it (a
// faster clock, a missed acquisition) grants more, and round two raises
// the others as above.
//
// # Shared locks
//
// A combinator is a driver.Sharer (share.go): its view of a driver.Share
// is the combinator of the same kind and settings over its members'
// views, so that every rule above holds for read, write and permit holds
// unchanged. What the engine assumed of mutexes, and how it holds there:
//
//   - Exclusion comes from the members: two quorums share a member, which
//     does not let in two holds that exclude each other (a write and
//     anything, or more holds than its permits). So read-write locks are
//     exclusive under a majority too, but a majority of semaphores does
//     not bound their holders, and Share refuses the views where it would
//     not (bound.go).
//   - The cleanup of a failed attempt unlocks every member, refusing ones
//     included: a view's Unlock drops a hold of its own mode only, so it
//     cannot touch another owner's hold, nor the owner's hold of another
//     mode (a downgrade's write hold, an upgrade's read hold).
//   - A re-entry is known by a hold count above one, kept per owner and
//     mode, as a mutex's, or by the engine's own count (ledger.go); a downgrade's read hold under its write hold is
//     a first read hold, whose unknown members are released as usual.
//   - The restart guard and the validity count grants, whatever their
//     mode: a restarted member that forgot the readers must not let a
//     writer in any more than it may a second owner of a mutex.
//   - Tokens are combined by the scheme above for every mode. A write
//     token rises as a mutex's; a read token is the highest counter of the
//     read quorum, written back to the fencing members below it: at least
//     the last write's token (a read quorum meets the write's fenced
//     members) and less than the next write's (which meets the read's). A
//     semaphore's token is higher than that of every acquisition that
//     ended before it began; acquisitions whose attempts overlap may get
//     the same one.
//   - Inspect combines the holders one by one as it does a mutex's owner
//     (inspectshared.go).
//   - Waiting writers, and a semaphore's wait list where one member can
//     keep it, go to the members through Request.Patience (waitlist.go).
package quorum
