package locker

import (
	"time"

	"github.com/distlock/distlock/driver"
)

// Temporary aliases while the tree moves to package driver.
type (
	Backend       = driver.Backend
	Grant         = driver.Grant
	Notifier      = driver.Notifier
	Queuer        = driver.Queuer
	Inspector     = driver.Inspector
	ForceUnlocker = driver.ForceUnlocker
	Renewal       = driver.Renewal
	BatchExpirer  = driver.BatchExpirer
	Granular      = driver.Granular
	Endpointer    = driver.Endpointer
	Fencer        = driver.Fencer
	Clock         = driver.Clock
	Clocked       = driver.Clocked
)

// Granularity returns b's lease granularity.
func Granularity(v any) time.Duration {
	if g, ok := v.(Granular); ok && g.Granularity() > 0 {
		return g.Granularity()
	}
	return time.Millisecond
}

// CapabilityReporter is temporary.
type CapabilityReporter interface {
	Supports(c Capability) bool
}

// State describes a lock as the store sees it.
type State struct {
	// Held reports whether any owner holds the lock.
	Held bool
	// Owner is the holder's identity; empty when not held.
	Owner string
	// Label is the holder's label (see WithLabel), read from Owner by
	// Mutex.Inspect: who holds the lock, for people. Empty when not held,
	// and when the holder has none.
	Label string
	// Holds is the holder's hold count; 0 when not held.
	Holds int
	// Remaining is the holder's remaining lease; 0 when not held.
	Remaining time.Duration
	// Token is the lock's current fencing token: the token of the present
	// hold, or of the last one when not held (0 if the store has none).
	Token uint64
}

func stateOf(s driver.State) State {
	return State{Held: s.Held, Owner: s.Owner, Holds: s.Holds, Remaining: s.Remaining, Token: s.Token}
}
