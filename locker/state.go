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
	// Holders lists the holds of a read-write lock (its readers and its
	// writer, who is also Owner) or of a semaphore, one per owner and
	// mode. It is empty for a Mutex. Of those locks, Owner, Label and Holds
	// are the writer's (empty without one), and Remaining is the longest
	// remaining lease of the holders.
	Holders []Holder
	// Limit is a semaphore's number of permits while it is in use; 0
	// otherwise.
	Limit int
}

// Holder is one owner's hold of a read-write lock or a semaphore.
type Holder struct {
	// Owner is the holder's identity, and Label its label (see WithLabel).
	Owner, Label string
	// Write reports a read-write lock's write hold; false for its read
	// holds and for a semaphore's.
	Write bool
	// Holds is the hold count, and Permits the permits it takes of a
	// semaphore (0 for a read-write lock).
	Holds, Permits int
	// Remaining is the hold's remaining lease.
	Remaining time.Duration
	// Token is the hold's fencing token: a write or semaphore hold's own,
	// a read hold's the token of the last write when it began (raised,
	// through a MultiLock or RedLock, to agree across members); 0 when the
	// store does not say (etcd's read holds).
	Token uint64
}

func stateOf(s driver.State) State {
	st := State{Held: s.Held, Owner: s.Owner, Label: labelOf(s.Owner), Holds: s.Holds, Remaining: s.Remaining, Token: s.Token, Limit: s.Limit}
	for _, h := range s.Holders {
		st.Holders = append(st.Holders, Holder{
			Owner: h.Owner, Label: labelOf(h.Owner), Write: h.Mode == driver.Write,
			Holds: h.Holds, Permits: h.Permits, Remaining: h.Remaining, Token: h.Token,
		})
	}
	return st
}
