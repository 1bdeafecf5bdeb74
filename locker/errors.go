package locker

import (
	"errors"
	"fmt"

	"github.com/distlock/distlock/driver"
)

// Sentinel errors. Backends and combinators return them (possibly wrapped);
// callers test for them with errors.Is.
var (
	// ErrNotAcquired reports that a lock attempt, or a wait for one, ended
	// without the lock because another owner holds it: the store answered,
	// and its answer was no. It never means that the store was slow or
	// down; that is ErrUnavailable or an unknown outcome.
	ErrNotAcquired = driver.ErrNotAcquired

	// ErrUnavailable reports that the stores could not decide: a combinator
	// reached no quorum because members failed or timed out, or left
	// members out under its restart guard, or a store could not be reached
	// before anything was sent. The message names the reason and the
	// members. Nothing is held afterwards (a combinator releases what its
	// members may have taken, in the background if need be), so a retry is
	// safe; it may succeed once the stores recover.
	ErrUnavailable = driver.ErrUnavailable

	// ErrNotHeld reports an Unlock or Expire by an owner that does not hold
	// the lock. Nothing was changed.
	ErrNotHeld = driver.ErrNotHeld

	// ErrLost reports that a held lock was lost: its lease ran out or the
	// store no longer records the owner.
	ErrLost = errors.New("lock lost")

	// ErrReleased is what Lease.Err returns after Unlock.
	ErrReleased = errors.New("lock released")

	// ErrClosed reports a call on a closed Store or driver.
	ErrClosed = driver.ErrClosed

	// ErrInvalid reports bad input: an empty name, a non-positive lease, a
	// negative wait, a nil driver. Nothing was changed.
	ErrInvalid = driver.ErrInvalid
)

// OpError wraps an error with the operation and the lock it concerns.
type OpError struct {
	// Op is the operation: "lock", "trylock", "unlock", "extend", "inspect"
	// or "forceunlock".
	Op string
	// Lock names the lock, as Mutex.Name returns it.
	Lock string
	// Err is the cause; errors.Is and errors.As see through to it.
	Err error
}

// maxNameInError is how much of a lock name an error message quotes.
const maxNameInError = 200

// Error implements error. A long lock name is cut short in the message.
func (e *OpError) Error() string {
	return fmt.Sprintf("distlock: %s %q: %v", e.Op, shortName(e.Lock), e.Err)
}

// shortName is name as errors, logs and telemetry quote it: cut to
// maxNameInError bytes, with its full length, when longer.
func shortName(name string) string {
	if len(name) > maxNameInError {
		return fmt.Sprintf("%s…(%d bytes)", name[:maxNameInError], len(name))
	}
	return name
}

// Unwrap returns the cause.
func (e *OpError) Unwrap() error { return e.Err }

func opError(op, lock string, err error) error {
	if err == nil {
		return nil
	}
	return &OpError{Op: op, Lock: lock, Err: err}
}

// invalid returns an ErrInvalid error explaining what is wrong.
func invalid(what string) error {
	return fmt.Errorf("%w: %s", ErrInvalid, what)
}

// unsupported returns an errors.ErrUnsupported error naming the capability.
func unsupported(capability string) error {
	return fmt.Errorf("%w: the store has no %s", errors.ErrUnsupported, capability)
}

// IsUnknown reports whether err leaves a lock's state unknown: err is not
// nil and wraps none of the sentinels (ErrNotAcquired, ErrUnavailable,
// ErrNotHeld, ErrLost, ErrReleased, ErrClosed, ErrInvalid). Such a call may or may not have run on
// the store, as when a reply is lost.
func IsUnknown(err error) bool {
	if err == nil {
		return false
	}
	for _, s := range []error{ErrNotAcquired, ErrUnavailable, ErrNotHeld, ErrLost, ErrReleased, ErrClosed, ErrInvalid} {
		if errors.Is(err, s) {
			return false
		}
	}
	return true
}
