package quorum

import (
	"errors"
	"fmt"
	"strings"

	"github.com/distlock/distlock/driver"
)

// errSkipped is what a fanout call returns for a member it was not meant to
// call: it says nothing about the member's round trip.
var errSkipped = errors.New("not called")

// memberErrors lists the members' errors, one "label: error" each. They
// are text, not wrapped: an error whose combined outcome is unknown must not
// match a sentinel that one member returned.
func memberErrors(ts []target, errs []error) string {
	var b strings.Builder
	for i, err := range errs {
		if err == nil {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: %v", ts[i].label, err)
	}
	if b.Len() == 0 {
		return "no member failed"
	}
	return b.String()
}

// firstInvalid returns the first member error wrapping ErrInvalid, labelled.
func firstInvalid(ts []target, errs []error) error {
	for i, err := range errs {
		if errors.Is(err, driver.ErrInvalid) {
			return fmt.Errorf("%s: %w", ts[i].label, err)
		}
	}
	return nil
}

// verdict turns the members' answers to an Unlock, Expire or Fence into the
// combinator's: nil when at least need members did it; ErrUnavailable when
// it was sent to none, so that nothing changed; ErrNotHeld when so
// many members answered that the owner does not hold the lock that need of
// them cannot; otherwise an unknown-state error that is none of the
// sentinels.
func verdict(kind Kind, op string, need int, ts []target, errs []error) error {
	if err := firstInvalid(ts, errs); err != nil {
		return fmt.Errorf("%s: %w", kind.name, err)
	}
	done, notHeld := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			done++
		case errors.Is(err, driver.ErrNotHeld):
			notHeld++
		}
	}
	switch {
	case done >= need:
		return nil
	case unsent(errs):
		return fmt.Errorf("%s: %w: the %s reached no member (%s)", kind.name, driver.ErrUnavailable, op, memberErrors(ts, errs))
	case notHeld > len(errs)-need:
		return fmt.Errorf("%s: %w: %d of %d members do not hold it, so fewer than the %d needed can (%s)",
			kind.name, driver.ErrNotHeld, notHeld, len(errs), need, memberErrors(ts, errs))
	default:
		return fmt.Errorf("%s: %s outcome unknown: %d of %d members did it, %d needed (%s)",
			kind.name, op, done, len(errs), need, memberErrors(ts, errs))
	}
}

// unsent reports whether no member was sent its call: every error wraps
// ErrUnavailable.
func unsent(errs []error) bool {
	for _, err := range errs {
		if !errors.Is(err, driver.ErrUnavailable) {
			return false
		}
	}
	return len(errs) > 0
}
