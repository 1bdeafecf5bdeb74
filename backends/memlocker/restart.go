package memlocker

import (
	"time"

	"github.com/distlock/distlock/driver"
)

// Restart simulates a restart of the store's server without persistence:
// every lock, wait queue, Leave mark and fencing counter is dropped, of the mutexes
// and the shared locks alike, the watchers are
// called (their keys were released, and waiters lost their places), and
// from then on grants report the store's uptime since this restart in
// driver.Grant.Uptime. A store that never restarted reports no uptime: it
// has forgotten nothing.
func (s *Store) Restart() {
	s.mu.Lock()
	s.locks = make(map[string]*hold)
	s.tokens = make(map[string]uint64)
	s.queues = make(map[string][]waiter)
	s.left = make(map[leftMark]time.Time)
	s.shared = make(map[sharedKey]*sharedLock)
	s.restarted = s.now()
	var ws []*driver.Callback
	for what := range s.watchers {
		ws = append(ws, s.watchersOf(what)...)
	}
	s.mu.Unlock()
	notify(ws)
}

// uptime returns how long ago the store last restarted (at least a
// nanosecond), or 0 if it never did. s.mu must be held.
func (s *Store) uptime() time.Duration {
	if s.restarted.IsZero() {
		return 0
	}
	return max(s.now().Sub(s.restarted), time.Nanosecond)
}
