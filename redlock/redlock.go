package redlock

import (
	"fmt"
	"time"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorum"
)

// RedLock is a lock over independent stores that is held while a majority
// of them hold it: N/2+1 of N members. It is a driver.Backend (key k on the
// RedLock is key k on every member), so a Mutex locks it as any backend:
// locker.New(rl, "orders/42"). It also implements driver.Notifier,
// driver.Inspector, driver.ForceUnlocker, driver.BatchExpirer,
// driver.Fencer and driver.Granular. Its methods, those of the embedded
// engine, are TryLock, Unlock, Expire, ExpireBatch, Watch, Inspect,
// ForceUnlock, Fence, Granularity, Close, Supports (which optional
// capabilities every member has), Members and Needed (the quorum); the
// package documentation says what each guarantees. It is safe for
// concurrent use.
type RedLock struct {
	*quorum.Backend
}

var (
	_ driver.Backend       = (*RedLock)(nil)
	_ driver.Notifier      = (*RedLock)(nil)
	_ driver.Inspector     = (*RedLock)(nil)
	_ driver.ForceUnlocker = (*RedLock)(nil)
	_ driver.BatchExpirer  = (*RedLock)(nil)
	_ driver.Fencer        = (*RedLock)(nil)
	_ driver.Granular      = (*RedLock)(nil)
)

// New returns a RedLock over members, which it owns: Close closes them.
// Members may be any backends, combinators included. Two members need both
// (as a MultiLock does); three members tolerate one failure, five tolerate
// two.
//
// New fails with an error wrapping driver.ErrInvalid when members has fewer
// than two entries (a RedLock of one store is that store: use it directly),
// a member is nil, two members are the same store (the same value, equal
// Endpoint() strings, or a store shared by two nested combinators), or an
// option is invalid. It contacts no member.
func New(members []driver.Backend, opts ...Option) (*RedLock, error) {
	if len(members) == 1 {
		return nil, fmt.Errorf("redlock: %w: one member; a RedLock needs at least two, and three or more to tolerate a failure",
			driver.ErrInvalid)
	}
	b, err := quorum.Build(quorum.Majority, members, opts)
	if err != nil {
		return nil, err
	}
	return &RedLock{b}, nil
}

// Defaults of a RedLock's settings.
const (
	// DefaultRestartGuard is how long after a restart a member does not
	// count toward the quorum, unless the attempt's lease is longer: the
	// Mutex's default watchdog lease.
	DefaultRestartGuard = quorum.DefaultRestartGuard
	// DefaultDriftFactor is the share of the lease allowed for clock drift;
	// 2 ms more are added.
	DefaultDriftFactor = quorum.DefaultDriftFactor
)

// Option configures a RedLock.
type Option func(*quorum.Settings) error

// Clock tells a RedLock the time; it measures how long attempts take with
// it. The default is the system's monotonic clock.
type Clock = quorum.Clock

// Endpointer is the optional member capability New uses to refuse two
// clients of one server: backends that know their server return an
// identity such as "redis://10.0.0.1:6379/0" from Endpoint.
type Endpointer = quorum.Endpointer

// WithMemberTimeout bounds each member call of an attempt or renewal by d
// (and every other member call too). The default is per member: for an
// attempt with a lease L, 4 × the member's smoothed observed round trip +
// 50 ms, at most max(50ms, L/10), and L/10 before the member has answered;
// see the package documentation. It fails with ErrInvalid when d is not
// positive.
func WithMemberTimeout(d time.Duration) Option {
	return func(s *quorum.Settings) error { return s.SetMemberTimeout(d) }
}

// WithDriftFactor sets the share of the lease subtracted from the validity
// for clock drift between this process and the stores (default 0.01, plus
// 2 ms). It fails with ErrInvalid unless 0 <= f < 0.5.
func WithDriftFactor(f float64) Option {
	return func(s *quorum.Settings) error { return s.SetDriftFactor(f) }
}

// WithRestartGuard sets the restart guard: a member whose store reports an
// uptime shorter than d (or than the attempt's lease, if longer) does not
// count toward the quorum. d must be at least the longest lease any client
// of these stores takes. The default is 30 s (locker.DefaultWatchdogLease);
// 0 turns the guard off, which is safe only when the stores keep their
// locks across restarts (Redis with appendfsync always). It fails with
// ErrInvalid when d is negative.
func WithRestartGuard(d time.Duration) Option {
	return func(s *quorum.Settings) error { return s.SetRestartGuard(d) }
}

// WithClock makes the RedLock measure time with c, for tests that move time
// by hand (memlocker.ManualClock is a Clock). It fails with ErrInvalid when
// c is nil.
func WithClock(c Clock) Option {
	return func(s *quorum.Settings) error { return s.SetClock(c) }
}
