package driver

import (
	"errors"
	"fmt"
)

// Sentinel errors. Backends return them, wrapped with what went wrong;
// callers test for them with errors.Is. Package locker re-exports them.
var (
	// ErrNotAcquired reports that a lock attempt, or a wait for one, ended
	// without the lock because another owner holds it: the store answered,
	// and its answer was no. It never means that the store was slow or
	// down; that is ErrUnavailable or an unknown outcome.
	ErrNotAcquired = errors.New("lock not acquired")
	// ErrUnavailable reports that the stores could not decide: nothing was
	// sent because the store could not be reached, or a combinator reached
	// no quorum because members failed or timed out, or left members out
	// under its restart guard. Nothing is held afterwards, so a retry is
	// safe.
	ErrUnavailable = errors.New("stores unavailable")
	// ErrNotHeld reports an Unlock or Expire by an owner that does not hold
	// the lock. Nothing was changed.
	ErrNotHeld = errors.New("lock not held")
	// ErrClosed reports a call on a closed store.
	ErrClosed = errors.New("store closed")
	// ErrInvalid reports bad input or a misconfiguration that no retry
	// fixes: an empty key, a non-positive lease, a wrong password. Nothing
	// was changed.
	ErrInvalid = errors.New("invalid argument")
)

// Invalid returns an error wrapping ErrInvalid that says what is wrong.
func Invalid(what string) error {
	return fmt.Errorf("%w: %s", ErrInvalid, what)
}

// Unsupported returns an error wrapping errors.ErrUnsupported that names
// the capability missing, such as "inspection".
func Unsupported(capability string) error {
	return fmt.Errorf("%w: the store has no %s", errors.ErrUnsupported, capability)
}

// IsUnknown reports whether err leaves a lock's state unknown: err is not
// nil and wraps none of the sentinels. Such a call may or may not have run
// on the store, as when a reply is lost.
func IsUnknown(err error) bool {
	if err == nil {
		return false
	}
	for _, s := range []error{ErrNotAcquired, ErrUnavailable, ErrNotHeld, ErrClosed, ErrInvalid} {
		if errors.Is(err, s) {
			return false
		}
	}
	return true
}
