package memlocker

import (
	"time"

	"github.com/distlock/distlock/driver"
)

// rwTryLock is an attempt on the read-write lock at r.Key, in mode Read or
// Write (see driver.Sharer). The watchers to call are for after s.mu is
// released.
func (s *Store) rwTryLock(mode driver.Mode, r driver.Request) (g driver.Grant, n []*driver.Callback) {
	n = s.onShared(sharedKey{space: rwSpace, key: r.Key}, func(l *sharedLock, now time.Time) (left bool) {
		g, left = l.tryRW(mode, r, now, now.Add(s.lease(r.TTL)))
		g.Uptime = s.uptime()
		return left
	})
	return g, n
}

// tryRW decides an attempt on a read-write lock. It reports whether a
// waiting writer left the wait list by acquiring.
func (l *sharedLock) tryRW(mode driver.Mode, r driver.Request, now, expires time.Time) (driver.Grant, bool) {
	if h := l.holds[holdID{r.Owner, mode}]; h != nil {
		h.holds++
		h.expires = expires
		return driver.Grant{Acquired: true, Holds: h.holds, Token: h.token}, false
	}
	if mode == driver.Write {
		// Any hold is in the way, the owner's own read hold too: there is
		// no upgrade.
		if len(l.holds) > 0 {
			if r.Patience > 0 {
				l.wait(r.Owner, now.Add(r.Patience))
			}
			return driver.Grant{Remaining: l.longestHold(now, func(holdID) bool { return true })}, false
		}
		return l.take(holdID{r.Owner, driver.Write}, 0, l.issue(r.Floor), expires)
	}
	if _, writes := l.holds[holdID{r.Owner, driver.Write}]; !writes {
		// Another's write hold, and any waiting writer, keep a new reader
		// out; an owner's read under its own write hold is a downgrade.
		inWay := l.longestHold(now, func(id holdID) bool { return id.mode == driver.Write })
		for _, w := range l.waiters {
			inWay = max(inWay, w.deadline.Sub(now))
		}
		if inWay > 0 {
			return driver.Grant{Remaining: inWay}, false
		}
	}
	return l.take(holdID{r.Owner, driver.Read}, 0, l.counter, expires)
}

// longestHold returns the longest remaining lease of the holds that in
// selects, 0 if it selects none.
func (l *sharedLock) longestHold(now time.Time, in func(holdID) bool) time.Duration {
	var longest time.Duration
	for id, h := range l.holds {
		if in(id) {
			longest = max(longest, h.expires.Sub(now))
		}
	}
	return longest
}
