package locker

import (
	"fmt"
	"time"
)

// MaxNameLen is the longest lock name a Mutex accepts, in bytes. Every
// store takes names this long; longer ones fail with ErrInvalid before any
// store is called, so that no store keeps, and no error quotes, a name of
// unbounded size.
const MaxNameLen = 1024

// maxOwnerLen is the longest owner identity WithOwner accepts, in bytes.
const maxOwnerLen = 256

// MinLease is the shortest lease a Mutex takes. A lease shorter than a
// store's reply time would run out before every reply, and a Mutex would
// try for ever; a store whose leases are coarser (see driver.Granular) raises the
// floor to its granularity. Shorter leases fail with ErrInvalid before any
// store is called.
const MinLease = 10 * time.Millisecond

// checkName checks a lock name's length.
func checkName(name string) error {
	if len(name) > MaxNameLen {
		return invalid(fmt.Sprintf("lock name of %d bytes, longer than MaxNameLen (%d)", len(name), MaxNameLen))
	}
	return nil
}
