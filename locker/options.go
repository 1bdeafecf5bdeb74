package locker

import (
	"fmt"
	"time"
)

// DefaultWatchdogLease is the lease a Mutex takes when a lock call gives no
// lease. The watchdog renews it every third of its length until Unlock.
const DefaultWatchdogLease = 30 * time.Second

// MutexOption configures a Mutex.
type MutexOption func(*Mutex) error

// WithOwner sets the Mutex's owner identity. Mutexes of one Store on the
// same lock with the same owner nest: while one holds the lock, another's Lock re-enters it
// and the hold count rises. The identity must be unguessable by other
// processes (see NewOwner), and at most 256 bytes long. Without this option
// every Mutex has an owner of its own.
func WithOwner(owner string) MutexOption {
	return func(m *Mutex) error {
		if owner == "" {
			return invalid("empty owner")
		}
		if len(owner) > maxOwnerLen {
			return invalid(fmt.Sprintf("owner of %d bytes, longer than %d", len(owner), maxOwnerLen))
		}
		m.owner = owner
		m.sharedOwner = true
		return nil
	}
}

// WithWatchdogLease sets the lease taken, and renewed every third of its
// length, when a lock call gives no lease. The default is
// DefaultWatchdogLease.
func WithWatchdogLease(d time.Duration) MutexOption {
	return func(m *Mutex) error {
		if d <= 0 {
			return invalid(fmt.Sprintf("non-positive watchdog lease %v", d))
		}
		m.watchdogLease = d
		return nil
	}
}

// LockOption configures one Lock or TryLock call.
type LockOption func(*lockSettings) error

type lockSettings struct {
	lease time.Duration // 0: watchdog
	wait  time.Duration
	// waitSet distinguishes TryLock's "one attempt" from "wait up to wait".
	waitSet bool
}

// WithLease gives the lock a fixed lease: it is not renewed, and the lease's
// Done channel closes when it runs out. A lease shorter than MinLease, or
// than the store's lease granularity, fails the call with ErrInvalid. Without it the Mutex's watchdog
// renews the lease until Unlock.
func WithLease(d time.Duration) LockOption {
	return func(s *lockSettings) error {
		if d <= 0 {
			return invalid(fmt.Sprintf("non-positive lease %v", d))
		}
		s.lease = d
		return nil
	}
}

// WithWait bounds how long the call waits for the lock: once the wait runs
// out the call waits no more, and an attempt in flight then is given the
// store's answer, within the call's context, so that the call ends with
// the lock or with ErrNotAcquired rather than with an attempt cut short. For TryLock
// the default is a single attempt; for Lock it is no bound but the context.
func WithWait(d time.Duration) LockOption {
	return func(s *lockSettings) error {
		if d < 0 {
			return invalid(fmt.Sprintf("negative wait %v", d))
		}
		s.wait = d
		s.waitSet = true
		return nil
	}
}
