package memlocker

import (
	"fmt"
	"time"

	"github.com/distlock/distlock/driver"
)

// semTryLock is an attempt on the semaphore at r.Key of sh.Limit permits,
// for sh.Permits of them (see driver.Sharer). The watchers to call are for
// after s.mu is released.
func (s *Store) semTryLock(sh driver.Share, r driver.Request) (g driver.Grant, n []*driver.Callback, err error) {
	n = s.onShared(sharedKey{space: semSpace, key: r.Key}, func(l *sharedLock, now time.Time) (left bool) {
		g, left, err = l.trySem(sh, r, now, now.Add(s.lease(r.TTL)))
		g.Uptime = s.uptime()
		return left
	})
	if err != nil {
		return driver.Grant{}, n, err
	}
	return g, n, nil
}

// trySem decides an attempt on a semaphore. It reports whether a waiter
// left the wait list by acquiring, and fails, changing nothing, when the
// semaphore is in use with another limit or the owner holds another number
// of permits.
func (l *sharedLock) trySem(sh driver.Share, r driver.Request, now, expires time.Time) (driver.Grant, bool, error) {
	if !l.idle() && l.limit != sh.Limit {
		return driver.Grant{}, false, driver.Invalid(fmt.Sprintf("a semaphore of %d permits is in use with %d", sh.Limit, l.limit))
	}
	id := holdID{r.Owner, driver.Permits}
	if h := l.holds[id]; h != nil {
		if h.permits != sh.Permits {
			return driver.Grant{}, false, driver.Invalid(fmt.Sprintf("a hold of %d permits asked of an owner holding %d", sh.Permits, h.permits))
		}
		h.holds++
		h.expires = expires
		return driver.Grant{Acquired: true, Holds: h.holds, Token: h.token}, false, nil
	}
	l.limit = sh.Limit
	// Nobody overtakes a live waiter (settle dropped the lapsed ones).
	if l.place(r.Owner) == 0 && l.free() >= sh.Permits {
		g, left := l.take(id, sh.Permits, l.issue(r.Floor), expires)
		return g, left, nil
	}
	if r.Patience > 0 {
		l.wait(r.Owner, now.Add(r.Patience))
	}
	return driver.Grant{Remaining: l.shortestWait(now)}, false, nil
}

// free returns the permits of a semaphore that nobody holds.
func (l *sharedLock) free() int {
	n := l.limit
	for _, h := range l.holds {
		n -= h.permits
	}
	return n
}

// shortestWait is a refused semaphore attempt's Remaining: the shortest
// remaining lease of the holders, or the patience of the first waiter when
// nobody holds.
func (l *sharedLock) shortestWait(now time.Time) time.Duration {
	var shortest time.Duration
	for _, h := range l.holds {
		if left := h.expires.Sub(now); shortest == 0 || left < shortest {
			shortest = left
		}
	}
	if shortest == 0 && len(l.waiters) > 0 {
		return l.waiters[0].deadline.Sub(now)
	}
	return shortest
}
