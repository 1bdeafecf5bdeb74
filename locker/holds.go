package locker

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// A Mutex re-enters only holds that its Store knows to be live (a Store is
// one process's view of the store). A hold
// can outlive what the process knows of it: an Unlock whose outcome was
// unknown may not have run, and a failover can promote a replica that still
// has a hold released on the old primary. Re-entering such a hold would
// hand out its old token (a protected resource then refuses the real
// holder) and keep renewing a hold nobody accounts for. So every
// acquisition compares the hold count the store reports with the holds the
// process accounts for, and gives the difference back.
//
// A Mutex with an owner of its own accounts for one hold, its own: its
// local token admits one live Lease at a time. Mutexes that share an owner
// (WithOwner) account together, by owner and lock name, in their Store's
// sharedHolds:
// every Lease of theirs that is live, or whose attempt is in flight, counts
// one. Counting an attempt before it is made keeps two concurrent
// acquisitions from taking each other's holds for stale ones; where the
// count errs, it errs high, which at worst leaves a stale hold alone as
// before.
type sharedHolds struct {
	mu sync.Mutex
	n  map[holdKey]int
}

type holdKey struct{ owner, lock string }

// maxStaleRounds bounds how often one acquisition gives back stale holds
// and tries again: more means the store keeps resurrecting holds.
const maxStaleRounds = 3

// account adds delta to the holds the Mutex's owner accounts for on its
// lock, and returns the new count. Only shared owners are counted; for an
// owner of its own it returns 1.
func (m *Mutex) account(delta int) int {
	if !m.sharedOwner {
		return 1
	}
	h := &m.s.holds
	k := holdKey{m.owner, m.name}
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.n[k] + delta
	if n <= 0 {
		delete(h.n, k)
		return 0
	}
	if h.n == nil {
		h.n = make(map[holdKey]int)
	}
	h.n[k] = n
	return n
}

// giveBack releases extra of the owner's holds on the lock, whose token is
// token, one Unlock each. It stops early, without error, when the store
// says the owner holds no more.
func (m *Mutex) giveBack(ctx context.Context, extra int, token uint64) error {
	for ; extra > 0; extra-- {
		err := m.storeUnlock(ctx, token)
		if errors.Is(err, ErrNotHeld) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("giving back a hold this process does not account for: %w", err)
		}
	}
	return nil
}
