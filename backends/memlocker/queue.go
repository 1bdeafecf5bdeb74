package memlocker

import (
	"slices"
	"time"

	"github.com/distlock/distlock/driver"
)

// waiter is one entry of a key's wait queue: an owner that asked for the
// key and stays in line until deadline unless it asks again.
type waiter struct {
	owner    string
	deadline time.Time
}

// lapsedHead drops the entries at the head of key's queue whose patience
// ran out, and returns what is left. Entries further back stay until they
// reach the head: an owner that calls again before then keeps its place.
// s.mu must be held.
func (s *Store) lapsedHead(key string, now time.Time) []waiter {
	q := s.queues[key]
	i := 0
	for i < len(q) && !now.Before(q[i].deadline) {
		i++
	}
	return s.setQueue(key, q[i:])
}

// setQueue stores q as key's queue and returns it. s.mu must be held.
func (s *Store) setQueue(key string, q []waiter) []waiter {
	if len(q) == 0 {
		delete(s.queues, key)
		return nil
	}
	s.queues[key] = q
	return q
}

// enqueue puts owner at the tail of key's queue until deadline, or moves
// its deadline if it is already in line, keeping its place. s.mu must be
// held.
func (s *Store) enqueue(key, owner string, deadline time.Time) {
	q := s.queues[key]
	if i := slices.IndexFunc(q, func(w waiter) bool { return w.owner == owner }); i >= 0 {
		q[i].deadline = deadline
		return
	}
	s.queues[key] = append(q, waiter{owner: owner, deadline: deadline})
}

// leaveQueue takes owner out of key's queue, if it is in it. s.mu must be
// held.
func (s *Store) leaveQueue(key, owner string) {
	s.setQueue(key, slices.DeleteFunc(s.queues[key], func(w waiter) bool { return w.owner == owner }))
}

// handOff runs when key has just become free: it reserves key for the
// first waiter whose patience has not run out (hold count 0, a new token, a
// lease until the waiter's deadline), or leaves it free when there is none.
// It returns whom to tell, for after s.mu is released: that waiter's turn
// watchers, or key's release watchers when nobody was waiting. s.mu must be
// held, and key must have no hold.
func (s *Store) handOff(key string, now time.Time) []*driver.Callback {
	q := s.lapsedHead(key, now)
	if len(q) == 0 {
		return s.watchersOf(watched{key: key})
	}
	next := q[0]
	s.setQueue(key, q[1:])
	s.tokens[key]++
	s.locks[key] = &hold{owner: next.owner, token: s.tokens[key], expires: next.deadline}
	return s.watchersOf(watched{key: key, owner: next.owner})
}

// dequeue takes owner out of key's queue and gives back a reservation of
// key for owner that it has not taken. The watchers to call are for after
// s.mu is released.
func (s *Store) dequeue(key, owner string) []*driver.Callback {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leaveQueue(key, owner)
	h := s.live(key)
	if h == nil || h.owner != owner || h.holds > 0 {
		return nil
	}
	delete(s.locks, key)
	return s.handOff(key, s.now())
}
