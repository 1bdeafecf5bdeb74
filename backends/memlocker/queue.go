package memlocker

import (
	"slices"
	"time"

	"github.com/distlock/distlock/driver"
)

// waiter is one entry of a key's wait queue: an owner that asked for the
// key, with a lease of ttl, and stays in line until deadline unless it asks
// again. floor is its last attempt's Request.Floor, which the turn of a
// grant to it tells back, so that the waiter knows which of its waits the
// grant answers (driver.Turn.Floor).
type waiter struct {
	owner    string
	deadline time.Time
	ttl      time.Duration
	floor    uint64
}

// successor returns w as a release names it (driver.Successor), with the
// patience it has left at now.
func (w waiter) successor(now time.Time) driver.Successor {
	return driver.Successor{Owner: w.owner, TTL: w.ttl, Patience: w.deadline.Sub(now), Floor: w.floor}
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

// enqueue puts w at the tail of key's queue, or, if its owner is already
// in line, takes w's deadline, lease and floor for the owner's entry,
// keeping its place. s.mu must be held.
func (s *Store) enqueue(key string, w waiter) {
	q := s.queues[key]
	if i := slices.IndexFunc(q, func(e waiter) bool { return e.owner == w.owner }); i >= 0 {
		q[i] = w
		return
	}
	s.queues[key] = append(q, w)
}

// following returns the first waiter in key's queue whose patience has
// not lapsed, as a turn names it (driver.Turn.Next), dropping the lapsed
// entries ahead of it; zero when nobody waits. s.mu must be held.
func (s *Store) following(key string, now time.Time) driver.Successor {
	q := s.lapsedHead(key, now)
	if len(q) == 0 {
		return driver.Successor{}
	}
	return q[0].successor(now)
}

// leaveQueue takes owner out of key's queue, if it is in it. s.mu must be
// held.
func (s *Store) leaveQueue(key, owner string) {
	s.setQueue(key, slices.DeleteFunc(s.queues[key], func(w waiter) bool { return w.owner == owner }))
}

// notice is what a change of a mutex tells, once s.mu is released: the
// watchers to call, and the turn to tell them (zero for a release).
type notice struct {
	watchers []*driver.Callback
	turn     driver.Turn
	// behind is told after: a waiter that joined the line behind the
	// holder (see behind); nil for none.
	behind *notice
}

// send calls the watchers, outside the store's lock.
func (n notice) send() {
	for _, w := range n.watchers {
		w.Tell(n.turn)
	}
	if n.behind != nil {
		n.behind.send()
	}
}

// behind returns the notice (driver.Turn.Behind) to h's holder that w has
// joined key's line first, for a waiter whose request has a floor, as a
// combinator's does; nil otherwise. s.mu must be held.
func (s *Store) behind(key string, h *hold, w waiter, now time.Time) *notice {
	if w.floor == 0 {
		return nil
	}
	return &notice{
		watchers: s.watchersOf(watched{key: key, owner: h.owner}),
		turn:     driver.Turn{Behind: h.token, Next: w.successor(now)},
	}
}

// handOff runs when key has just become free: it grants key to the first
// waiter whose patience has not run out (one unclaimed hold, a new token,
// the lease the waiter asked for), or leaves it free when there is none.
// It returns whom to tell, for after s.mu is released: that waiter's turn
// watchers, with its turn (see grant), or key's release watchers when
// nobody was waiting. s.mu must be held, and key must have no hold.
func (s *Store) handOff(key string, now time.Time) notice {
	q := s.lapsedHead(key, now)
	if len(q) == 0 {
		return notice{watchers: s.watchersOf(watched{key: key})}
	}
	s.setQueue(key, q[1:])
	s.tokens[key]++
	return s.grant(key, q[0].successor(now), s.tokens[key], false, now)
}

// grant makes key an unclaimed grant to to.Owner, with token and the lease
// to.TTL, and returns the notice of its turn: the grant, to.Floor, passed
// (a release named the grantee), and the waiter then first in line. s.mu
// must be held, key must have no hold, and to.Owner must be out of key's
// queue.
func (s *Store) grant(key string, to driver.Successor, token uint64, passed bool, now time.Time) notice {
	s.locks[key] = &hold{owner: to.Owner, holds: 1, granted: true, token: token, expires: now.Add(s.lease(to.TTL))}
	return notice{
		watchers: s.watchersOf(watched{key: key, owner: to.Owner}),
		turn: driver.Turn{
			Grant:  driver.Grant{Acquired: true, Holds: 1, Token: token, Uptime: s.uptime()},
			Floor:  to.Floor,
			Passed: passed,
			Next:   s.following(key, now),
		},
	}
}

// dequeue takes owner out of key's queue and gives back a grant of key to
// owner that it has not claimed. The notice is for after s.mu is released.
func (s *Store) dequeue(key, owner string) notice {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.withdraw(key, owner, s.now())
}

// withdraw is dequeue with s.mu held.
func (s *Store) withdraw(key, owner string, now time.Time) notice {
	s.leaveQueue(key, owner)
	h := s.live(key)
	if h == nil || h.owner != owner || !h.granted {
		return notice{}
	}
	delete(s.locks, key)
	return s.handOff(key, now)
}
