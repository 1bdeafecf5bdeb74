package multilock

import (
	"time"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorum"
)

// MultiLock is a lock over several stores that is held while every one of
// them holds it. It is a driver.Backend (key k on the MultiLock is key k on
// every member), so a Mutex locks it as any backend:
// locker.New(ml, "orders/42"). It also implements driver.Notifier,
// driver.Inspector, driver.ForceUnlocker, driver.BatchExpirer,
// driver.Fencer and driver.Granular. Its methods, those of the embedded
// engine, are TryLock, Unlock, Expire, ExpireBatch, Watch, Inspect,
// ForceUnlock, Fence, Granularity, Close, Supports (which optional
// capabilities every member has), Members and Needed (the quorum); the
// package documentation says what each guarantees. It is safe for
// concurrent use.
type MultiLock struct {
	*quorum.Backend
}

var (
	_ driver.Backend       = (*MultiLock)(nil)
	_ driver.Notifier      = (*MultiLock)(nil)
	_ driver.Inspector     = (*MultiLock)(nil)
	_ driver.ForceUnlocker = (*MultiLock)(nil)
	_ driver.BatchExpirer  = (*MultiLock)(nil)
	_ driver.Fencer        = (*MultiLock)(nil)
	_ driver.Granular      = (*MultiLock)(nil)
)

// New returns a MultiLock over members, which it owns: Close closes them.
// Members may be any backends, combinators included.
//
// New fails with an error wrapping driver.ErrInvalid when members is empty,
// a member is nil, two members are the same store (the same value, equal
// Endpoint() strings, or a store shared by two nested combinators), or an
// option is invalid. It contacts no member.
func New(members []driver.Backend, opts ...Option) (*MultiLock, error) {
	b, err := quorum.Build(quorum.All, members, opts)
	if err != nil {
		return nil, err
	}
	return &MultiLock{b}, nil
}

// Option configures a MultiLock or a multi-key lock (Keys).
type Option func(*quorum.Settings) error

// Clock tells a MultiLock the time; it measures how long attempts take with
// it. The default is the system's monotonic clock.
type Clock = quorum.Clock

// Endpointer is the optional member capability New uses to refuse two
// clients of one server: backends that know their server return an
// identity such as "redis://10.0.0.1:6379/0" from Endpoint.
type Endpointer = quorum.Endpointer

// WithMemberTimeout bounds each member call by d. The default is per
// member: for an attempt or renewal with a lease L, 4 × the member's
// smoothed observed round trip + 50 ms, at most max(50ms, L/10), and
// L/10 before the member has answered; for calls without a lease 1 s, or
// the same rule up to 4 s for a slow member. It fails with ErrInvalid when
// d is not positive.
func WithMemberTimeout(d time.Duration) Option {
	return func(s *quorum.Settings) error { return s.SetMemberTimeout(d) }
}

// WithDriftFactor sets the share of the lease subtracted from the validity
// for clock drift between this process and the stores (default 0.01, plus
// 2 ms). It fails with ErrInvalid unless 0 <= f < 0.5.
func WithDriftFactor(f float64) Option {
	return func(s *quorum.Settings) error { return s.SetDriftFactor(f) }
}

// WithClock makes the MultiLock measure time with c, for tests that move
// time by hand (memlocker.ManualClock is a Clock). It fails with ErrInvalid
// when c is nil.
func WithClock(c Clock) Option {
	return func(s *quorum.Settings) error { return s.SetClock(c) }
}
