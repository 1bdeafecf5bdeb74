package main

import (
	"fmt"
	"sync"
)

// resource stands for the storage a lock protects: a file server, a
// database row. It takes the writer's fencing token with every write and
// refuses a token lower than the highest it has accepted, so a holder whose
// lease ran out cannot undo the work of the holder after it. Equal tokens
// are accepted: they come from the same hold.
type resource struct {
	mu      sync.Mutex
	highest uint64
	lines   []string
}

// errStale is returned for a write whose token is lower than one seen.
type errStale struct{ token, highest uint64 }

func (e errStale) Error() string {
	return fmt.Sprintf("stale fencing token %d (the resource has seen %d)", e.token, e.highest)
}

func (r *resource) write(token uint64, line string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if token < r.highest {
		return errStale{token, r.highest}
	}
	r.highest = token
	r.lines = append(r.lines, line)
	return nil
}

func (r *resource) contents() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}
