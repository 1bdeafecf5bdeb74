package locker

import (
	"time"

	"github.com/distlock/distlock/driver"
)

// State describes a lock as the store sees it (see Mutex.Inspect).
type State struct {
	// Held reports whether any owner holds the lock.
	Held bool
	// Owner is the holder's identity; empty when not held.
	Owner string
	// Label is the holder's label (see WithLabel), read from Owner: who
	// holds the lock, for people. Empty when not held, and when the holder
	// has none.
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
