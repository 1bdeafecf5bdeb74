package quorum

import (
	"fmt"
	"time"

	"github.com/distlock/distlock/driver"
)

// Defaults.
const (
	// DefaultDriftFactor is the share of the lease allowed for clock drift
	// between the client and the stores, as in the Redlock algorithm.
	DefaultDriftFactor = 0.01
	// DriftFloor is added to the drift: it covers the stores' expiry
	// resolution and scheduling delays on short leases.
	DriftFloor = 2 * time.Millisecond
	// MinMemberTimeout is the floor added to the automatic per-member
	// timeout: a call that must first dial (and perhaps handshake TLS on) a
	// connection, or that waits behind a busy scheduler, easily takes more
	// than 10 ms even on loopback, and timing out a healthy member fails an
	// attempt.
	MinMemberTimeout = 50 * time.Millisecond
	// MemberTimeoutShare bounds the automatic per-member timeout of calls
	// that carry a lease: at most lease / MemberTimeoutShare (but never less
	// than MinMemberTimeout). It is also the timeout before the engine has
	// seen the member answer: generous, so that the first call to a distant
	// member does not fail.
	MemberTimeoutShare = 10
	// RTTFactor scales a member's smoothed round trip in its automatic
	// timeout: RTTFactor × round trip + MinMemberTimeout.
	RTTFactor = 4
	// DefaultCallTimeout bounds each member call that carries no lease
	// (Unlock, Inspect, ForceUnlock, Watch, Fence, and the release of a
	// failed attempt) when no member timeout is set.
	DefaultCallTimeout = time.Second
	// MaxCallTimeout bounds the automatic timeout of a call that carries no
	// lease, however slow the member has been.
	MaxCallTimeout = 4 * DefaultCallTimeout
	// DefaultRestartGuard is the default restart guard of a majority lock:
	// the Mutex's default watchdog lease (locker.DefaultWatchdogLease,
	// which this package cannot import, as locker imports it), the
	// longest lease most programs take.
	DefaultRestartGuard = 30 * time.Second
	// minCallTimeout is the least time a member call gets even when the
	// caller's deadline has passed, so that a last attempt can still
	// be made.
	minCallTimeout = time.Millisecond
)

// Settings are a combinator's tunables. The zero value is not valid: start
// from DefaultSettings.
type Settings struct {
	memberTimeout time.Duration // 0: automatic
	driftFactor   float64
	guarded       bool          // the kind has a restart guard
	restartGuard  time.Duration // 0: off
	clock         driver.Clock  // nil: the system's
}

// DefaultSettings returns the defaults of kind.
func DefaultSettings(kind Kind) Settings {
	s := Settings{driftFactor: DefaultDriftFactor, guarded: kind.guarded}
	if kind.guarded {
		s.restartGuard = DefaultRestartGuard
	}
	return s
}

// SetMemberTimeout bounds every member call by d. It fails with ErrInvalid
// when d is not positive.
func (s *Settings) SetMemberTimeout(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("%w: non-positive member timeout %v", driver.ErrInvalid, d)
	}
	s.memberTimeout = d
	return nil
}

// SetDriftFactor sets the share of the lease subtracted from the validity
// for clock drift. It fails with ErrInvalid unless 0 <= f < 0.5.
func (s *Settings) SetDriftFactor(f float64) error {
	if !(f >= 0 && f < 0.5) {
		return fmt.Errorf("%w: drift factor %v outside [0, 0.5)", driver.ErrInvalid, f)
	}
	s.driftFactor = f
	return nil
}

// SetRestartGuard sets the restart guard: members whose store restarted
// less than d ago (or less than the attempt's lease, if longer) do not
// count toward the quorum. Zero turns the guard off. It fails with
// ErrInvalid when d is negative, and for a kind without a restart guard.
func (s *Settings) SetRestartGuard(d time.Duration) error {
	if !s.guarded {
		return driver.Invalid("a MultiLock has no restart guard: a member that restarted cannot let a second owner in while the first holds every other member")
	}
	if d < 0 {
		return fmt.Errorf("%w: negative restart guard %v", driver.ErrInvalid, d)
	}
	s.restartGuard = d
	return nil
}

// SetClock sets the clock elapsed time is measured with; only its Now is
// used. It fails with ErrInvalid when c is nil.
func (s *Settings) SetClock(c driver.Clock) error {
	if c == nil {
		return fmt.Errorf("%w: nil clock", driver.ErrInvalid)
	}
	s.clock = c
	return nil
}

// leaseTimeout is the per-member timeout of a call carrying a lease of ttl
// to a member whose round trips are r: the configured one, else
// RTTFactor × the smoothed round trip + MinMemberTimeout, at most
// ttl/MemberTimeoutShare (or MinMemberTimeout if more), and that upper
// bound before any round trip was observed. A timeout that follows the
// member's own round trip keeps a healthy distant member usable, and the
// bound keeps a dead one from eating the lease.
func (s *Settings) leaseTimeout(ttl time.Duration, r *rtt) time.Duration {
	if s.memberTimeout > 0 {
		return s.memberTimeout
	}
	upper := max(MinMemberTimeout, ttl/MemberTimeoutShare)
	if rt, ok := r.estimate(); ok {
		return min(upper, RTTFactor*rt+MinMemberTimeout)
	}
	return upper
}

// plainTimeout is the per-member timeout of a call carrying no lease to a
// member whose round trips are r: the configured one, else
// DefaultCallTimeout, or more (up to MaxCallTimeout) for a member whose
// round trip needs it.
func (s *Settings) plainTimeout(r *rtt) time.Duration {
	if s.memberTimeout > 0 {
		return s.memberTimeout
	}
	if rt, ok := r.estimate(); ok {
		return min(MaxCallTimeout, max(DefaultCallTimeout, RTTFactor*rt+MinMemberTimeout))
	}
	return DefaultCallTimeout
}

// now reads the clock. The system clock is monotonic, as elapsed times
// need.
func (s *Settings) now() time.Time {
	if s.clock == nil {
		return time.Now()
	}
	return s.clock.Now()
}

// drift is the clock drift allowed on a lease of ttl.
func (s *Settings) drift(ttl time.Duration) time.Duration {
	return time.Duration(float64(ttl)*s.driftFactor) + DriftFloor
}

// guardWindow is how long after a restart a member does not count toward
// the quorum of an attempt with a lease of ttl; 0 when the guard is off.
func (s *Settings) guardWindow(ttl time.Duration) time.Duration {
	if s.restartGuard == 0 {
		return 0
	}
	return max(s.restartGuard, ttl)
}

// Apply returns kind's default settings with opts applied, or the first
// option's error (wrapping ErrInvalid for a nil option).
func Apply[O ~func(*Settings) error](kind Kind, opts []O) (Settings, error) {
	s := DefaultSettings(kind)
	for _, opt := range opts {
		if opt == nil {
			return Settings{}, fmt.Errorf("%s: %w: nil option", kind.name, driver.ErrInvalid)
		}
		if err := opt(&s); err != nil {
			return Settings{}, fmt.Errorf("%s: %w", kind.name, err)
		}
	}
	return s, nil
}

// forLease returns the timeout of member calls carrying a lease of ttl, for
// fanout.
func (s *Settings) forLease(ttl time.Duration) func(*rtt) time.Duration {
	return func(r *rtt) time.Duration { return s.leaseTimeout(ttl, r) }
}

// plain is the timeout of member calls carrying no lease, for fanout.
func (s *Settings) plain(r *rtt) time.Duration { return s.plainTimeout(r) }
