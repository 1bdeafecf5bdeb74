package memlocker

import (
	"slices"
	"time"

	"github.com/distlock/distlock/driver"
)

// waiter is one entry of a key's wait queue: an owner that asked for the
// key, with a lease of ttl, and stays in line until deadline unless it asks
// again.
type waiter struct {
	owner    string
	deadline time.Time
	ttl      time.Duration
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

// enqueue puts owner at the tail of key's queue until deadline, asking
// for ttl, or moves its deadline (and lease) if it is already in line,
// keeping its place. s.mu must be held.
func (s *Store) enqueue(key, owner string, deadline time.Time, ttl time.Duration) {
	q := s.queues[key]
	if i := slices.IndexFunc(q, func(w waiter) bool { return w.owner == owner }); i >= 0 {
		q[i].deadline, q[i].ttl = deadline, ttl
		return
	}
	s.queues[key] = append(q, waiter{owner: owner, deadline: deadline, ttl: ttl})
}

// leaveQueue takes owner out of key's queue, if it is in it. s.mu must be
// held.
func (s *Store) leaveQueue(key, owner string) {
	s.setQueue(key, slices.DeleteFunc(s.queues[key], func(w waiter) bool { return w.owner == owner }))
}

// notice is what a change of a mutex tells, once s.mu is released: the
// watchers to call, and the grant to give them (zero for a release).
type notice struct {
	watchers []*driver.Callback
	grant    driver.Grant
}

// send calls the watchers, outside the store's lock.
func (n notice) send() {
	for _, w := range n.watchers {
		w.Give(n.grant)
	}
}

// handOff runs when key has just become free: it grants key to the first
// waiter whose patience has not run out (one unclaimed hold, a new token,
// the lease the waiter asked for), or leaves it free when there is none.
// It returns whom to tell, for after s.mu is released: that waiter's turn
// watchers, with the grant, or key's release watchers when nobody was
// waiting. s.mu must be held, and key must have no hold.
func (s *Store) handOff(key string, now time.Time) notice {
	q := s.lapsedHead(key, now)
	if len(q) == 0 {
		return notice{watchers: s.watchersOf(watched{key: key})}
	}
	next := q[0]
	s.setQueue(key, q[1:])
	s.tokens[key]++
	h := &hold{owner: next.owner, holds: 1, granted: true, token: s.tokens[key], expires: now.Add(s.lease(next.ttl))}
	s.locks[key] = h
	return notice{
		watchers: s.watchersOf(watched{key: key, owner: next.owner}),
		grant:    driver.Grant{Acquired: true, Holds: 1, Token: h.token, Uptime: s.uptime()},
	}
}

// dequeue takes owner out of key's queue and gives back a grant of key to
// owner that it has not claimed. The notice is for after s.mu is released.
func (s *Store) dequeue(key, owner string) notice {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leaveQueue(key, owner)
	h := s.live(key)
	if h == nil || h.owner != owner || !h.granted {
		return notice{}
	}
	delete(s.locks, key)
	return s.handOff(key, s.now())
}
