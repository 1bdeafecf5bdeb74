package locker

import (
	"container/heap"
	"time"
)

// A Store ends its leases at their deadlines with one timer for them all.
// A timer per lease cost two allocations and about 130 bytes per hold, and
// a new timer at every renewal: a program holding a million locks with the
// watchdog kept a million timers, and made 48,000 a second.
//
// The Store keeps its live leases in a min-heap by deadline (guarded by
// its mu, as the deadline is: see Lease.deadline), and its timer armed no
// later than the earliest deadline. A timer is set again only when a lease
// due before it arrives; one that outlives the leases it was set for fires
// early, finds nothing due and is set for the next. So a lock and unlock
// in a loop, or a renewal, which only moves a deadline later, sets no
// timer.

// A Lease is due in the Store's expiries at its deadline.
func (l *Lease) due() time.Time { return l.deadline }
func (l *Lease) place() *int    { return &l.expiryIndex }

// track records l as live, until untrack, and schedules its end at its
// deadline. It reports false, and l is not recorded, once the Store is
// closed.
func (s *Store) track(l *Lease) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return false
	}
	heap.Push(&s.expiries, l)
	s.armExpiry()
	return true
}

// untrack forgets l.
func (s *Store) untrack(l *Lease) {
	s.mu.Lock()
	if l.expiryIndex >= 0 {
		heap.Remove(&s.expiries, l.expiryIndex)
	}
	s.mu.Unlock()
}

// moveExpiry moves the deadline of l, a live lease whose mu the caller
// holds, to deadline. It reports false, and moves nothing, when the
// deadline has passed: the lease has ended, or is about to, by the timer.
// The deadline is read against the clock under the Store's mu, as the
// timer reads it, so a lease the timer ends is never extended.
func (s *Store) moveExpiry(l *Lease, deadline time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.clock.Now().Before(l.deadline) {
		return false
	}
	l.deadline = deadline
	if l.expiryIndex >= 0 {
		heap.Fix(&s.expiries, l.expiryIndex)
		s.armExpiry()
	}
	return true
}

// armExpiry sets the timer for the earliest deadline, unless it is set
// for that time or earlier. The caller holds s.mu.
func (s *Store) armExpiry() {
	if len(s.expiries) == 0 || s.closed.Load() {
		return
	}
	next := s.expiries[0].deadline
	if !s.expiryAt.IsZero() && !next.Before(s.expiryAt) {
		return
	}
	if s.stopExpiry != nil {
		s.stopExpiry()
	}
	s.expiryGen++
	gen := s.expiryGen
	s.expiryAt = next
	s.stopExpiry = s.clock.At(next, func() { s.expireDue(gen) })
}

// expireDue ends the leases whose deadline has passed, and sets the timer
// for the next. gen is the setting of the timer that called it: a timer
// that was replaced, and fired before it could be stopped, leaves the
// setting of its successor alone.
func (s *Store) expireDue(gen uint64) {
	s.mu.Lock()
	if gen == s.expiryGen {
		s.expiryAt, s.stopExpiry = time.Time{}, nil
	}
	now := s.clock.Now()
	var due []*Lease
	for len(s.expiries) > 0 && !now.Before(s.expiries[0].deadline) {
		due = append(due, heap.Pop(&s.expiries).(*Lease))
	}
	s.armExpiry()
	s.mu.Unlock()
	for _, l := range due {
		l.expire()
	}
}

// stopExpiries stops the timer and returns the live leases, for Close.
// The caller holds s.mu.
func (s *Store) stopExpiries() []*Lease {
	if s.stopExpiry != nil {
		s.stopExpiry()
	}
	s.expiryAt, s.stopExpiry = time.Time{}, nil
	return append([]*Lease(nil), s.expiries...)
}
