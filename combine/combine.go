// Package combine holds the options of the combinators of packages
// multilock and redlock: one Option type, shared by both.
package combine

import (
	"time"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorum"
)

// Option configures a combinator: multilock.New or redlock.New. A nil
// Option is an error wrapping driver.ErrInvalid.
type Option func(*quorum.Settings) error

// DefaultRestartGuard is a RedLock's restart guard unless WithRestartGuard
// sets another: the Mutex's default watchdog lease
// (locker.DefaultWatchdogLease), the longest lease most programs take.
const DefaultRestartGuard = quorum.DefaultRestartGuard

// WithMemberTimeout bounds every member call by d. The default is per
// member and follows the round trips the combinator has observed to it: a
// call that carries a lease L (an attempt, a renewal) gets 4 × the
// member's smoothed round trip + 50 ms, at most max(50ms, L/10), and L/10
// before the member has answered anything; a call without a lease (Unlock,
// Inspect, Watch, ForceUnlock, the release of a failed attempt) gets 1 s,
// or the same rule up to 4 s for a slow member. A call that times out
// raises the member's estimate to half that timeout, so the next one waits
// about twice as long, up to the bound.
//
// Why not a fixed share of the lease, as Redis's documentation suggests
// (5–50 ms for a 10 s lease): that makes a healthy store 100 ms away
// unusable, whereas a timeout that follows the round trip keeps it usable,
// keeps a near store's timeout near 50 ms, and the bound keeps a dead one
// from eating the lease (whatever the rounds spend is subtracted from the
// validity anyway). 50 ms is the floor because a call that must first dial
// a connection (and perhaps handshake TLS), or that waits behind a busy
// scheduler, easily takes more than 10 ms even on loopback.
//
// WithMemberTimeout fails with driver.ErrInvalid when d is not positive.
func WithMemberTimeout(d time.Duration) Option {
	return func(s *quorum.Settings) error { return s.SetMemberTimeout(d) }
}

// WithDriftFactor sets the share of the lease subtracted from the validity
// of an acquisition, and from a renewal's lease in the Lease's Deadline,
// for clock drift between this process and the stores: the default is
// 0.01, as in the Redlock algorithm, and 2 ms more are always subtracted
// (the stores' expiry resolution, scheduling delays). It fails with
// driver.ErrInvalid unless 0 <= f < 0.5.
func WithDriftFactor(f float64) Option {
	return func(s *quorum.Settings) error { return s.SetDriftFactor(f) }
}

// WithRestartGuard sets a RedLock's restart guard: a member whose store
// reports an uptime (driver.Grant.Uptime) shorter than d, or than the
// attempt's lease if longer, does not count toward the quorum. d must be
// at least the longest lease any client of these stores takes. The default
// is DefaultRestartGuard; 0 turns the guard off, which is safe only when
// the stores keep their locks across restarts (Redis with appendfsync
// always). See redlock.New.
//
// It fails with driver.ErrInvalid when d is negative, and on a MultiLock,
// which has no restart guard: a member that restarted and forgot a hold
// cannot let a second owner in while the first holds every other member.
func WithRestartGuard(d time.Duration) Option {
	return func(s *quorum.Settings) error { return s.SetRestartGuard(d) }
}

// WithClock makes the combinator measure how long its attempts take with
// c's Now, for tests that move time by hand: the clock of package driver,
// so that the clock a test gives its stores (memlocker.ManualClock) serves
// here too. The default is the system's monotonic clock. It fails with
// driver.ErrInvalid when c is nil.
func WithClock(c driver.Clock) Option {
	return func(s *quorum.Settings) error { return s.SetClock(c) }
}
