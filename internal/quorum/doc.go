// Package quorum is the engine behind packages multilock and redlock: one
// lock over several member stores, held while enough of them hold it for
// the same owner (all of them for a MultiLock, a majority for a RedLock).
//
// The engine makes each attempt in rounds that contact every member in
// parallel, each call bounded by a per-member timeout (derived from the
// member's observed round trips, see Settings.leaseTimeout) and by the
// caller's wait budget, and abandoned shortly after it: round one asks
// every member for the lock; round two, when it
// is needed, sets the requested lease after a provisional one, raises the
// members' fencing counters to the combined token, and releases members
// whose first call ended in an unknown state. It then checks the quorum and
// the validity (lease less elapsed time and clock drift). A failed attempt
// releases every member, within the caller's deadline and then in the
// background (background.go), and reports "not acquired" only when members
// refused, ErrUnavailable for any other failure to decide (cleanup.go).
//
// The public packages document the rules; this package keeps them in one
// place so that both combinators, and the multi-key lock, share one
// implementation.
package quorum
