package memlocker

import (
	"cmp"
	"slices"
	"time"

	"github.com/distlock/distlock/driver"
)

// space is a namespace of the store's locks. The mutexes, the read-write
// locks and the semaphores are apart, so that one key names three locks.
type space uint8

const (
	mutexSpace space = iota
	rwSpace
	semSpace
)

// sharedKey names a shared lock.
type sharedKey struct {
	space space
	key   string
}

// holdID is one owner's hold of a shared lock in one mode: an owner's read
// hold and write hold are two.
type holdID struct {
	owner string
	mode  driver.Mode
}

// share is one hold of a shared lock.
type share struct {
	holds int
	// permits is what a semaphore hold takes; 0 for a read-write lock.
	permits int
	// token is the one the hold's first grant carried (a read hold's is
	// the lock's counter then), as Fence raised it.
	token   uint64
	expires time.Time
}

// sharedLock is a read-write lock or a semaphore. Both keep holds per
// owner and mode, a wait list and a token counter; they differ only in
// whom an attempt lets in (see rwlock.go and semaphore.go).
type sharedLock struct {
	holds map[holdID]*share
	// waiters are a read-write lock's waiting writers, or a semaphore's
	// wait list, first in line first.
	waiters []waiter
	// limit is a semaphore's number of permits while it is in use; 0
	// otherwise.
	limit int
	// counter is the last token issued. It outlives the holds, as a
	// mutex's does.
	counter uint64
}

// onShared runs f on the shared lock at k, under s.mu, once the holds
// whose lease ended and the waiters whose patience did are dropped. f
// reports whether it freed anything (a hold ended, a waiter left). It
// returns the watchers to call after s.mu is released: k's, when anything
// was freed or dropped, since a refused attempt may then succeed.
func (s *Store) onShared(k sharedKey, f func(l *sharedLock, now time.Time) (freed bool)) []*driver.Callback {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	l := s.shared[k]
	if l == nil {
		l = &sharedLock{holds: make(map[holdID]*share)}
	}
	freed := l.settle(now)
	if f(l, now) {
		freed = true
	}
	l.forget()
	switch {
	case !l.idle() || l.counter > 0:
		s.shared[k] = l
	default:
		delete(s.shared, k)
	}
	if !freed {
		return nil
	}
	return s.watchersOf(watched{space: k.space, key: k.key})
}

// settle drops the holds whose lease ended and the waiters whose patience
// did, and reports whether it dropped any.
func (l *sharedLock) settle(now time.Time) bool {
	dropped := false
	for id, h := range l.holds {
		if !now.Before(h.expires) {
			delete(l.holds, id)
			dropped = true
		}
	}
	n := len(l.waiters)
	l.waiters = slices.DeleteFunc(l.waiters, func(w waiter) bool { return !now.Before(w.deadline) })
	l.forget()
	return dropped || len(l.waiters) < n
}

// forget drops the limit of a semaphore nobody uses: it keeps only its
// counter, and the next acquisition sets the limit anew.
func (l *sharedLock) forget() {
	if l.idle() {
		l.limit = 0
	}
}

// idle reports whether nobody holds or waits for the lock.
func (l *sharedLock) idle() bool {
	return len(l.holds) == 0 && len(l.waiters) == 0
}

// take gives owner a first hold in mode with token, and takes owner off the
// wait list. It reports whether owner was waiting: a waiter left.
func (l *sharedLock) take(id holdID, permits int, token uint64, expires time.Time) (driver.Grant, bool) {
	l.holds[id] = &share{holds: 1, permits: permits, token: token, expires: expires}
	return driver.Grant{Acquired: true, Holds: 1, Token: token}, l.leave(id.owner)
}

// issue raises the counter for a new write or semaphore hold, to at least
// floor, and returns the new token.
func (l *sharedLock) issue(floor uint64) uint64 {
	l.counter = max(l.counter+1, floor)
	return l.counter
}

// wait puts owner on the wait list until deadline, or moves its deadline
// if it is on it already, keeping its place.
func (l *sharedLock) wait(owner string, deadline time.Time) {
	if i := l.place(owner); i < len(l.waiters) {
		l.waiters[i].deadline = deadline
		return
	}
	l.waiters = append(l.waiters, waiter{owner: owner, deadline: deadline})
}

// place returns owner's index on the wait list, or its length when owner
// does not wait.
func (l *sharedLock) place(owner string) int {
	if i := slices.IndexFunc(l.waiters, func(w waiter) bool { return w.owner == owner }); i >= 0 {
		return i
	}
	return len(l.waiters)
}

// leave takes owner off the wait list and reports whether it was on it.
func (l *sharedLock) leave(owner string) bool {
	n := len(l.waiters)
	l.waiters = slices.DeleteFunc(l.waiters, func(w waiter) bool { return w.owner == owner })
	return len(l.waiters) < n
}

// sharedUnlock drops one of id's holds on the lock at k, if its token is
// token (0: any); with the last, the hold ends. The watchers to call are
// for after s.mu is released.
func (s *Store) sharedUnlock(k sharedKey, id holdID, token uint64) (n []*driver.Callback, err error) {
	n = s.onShared(k, func(l *sharedLock, _ time.Time) bool {
		h := l.holds[id]
		if h == nil || token != 0 && h.token != token {
			err = driver.ErrNotHeld
			return false
		}
		if h.holds > 1 {
			h.holds--
			return false
		}
		delete(l.holds, id)
		return true
	})
	return n, err
}

// sharedExpire resets the lease of id's hold on the lock at k.
func (s *Store) sharedExpire(k sharedKey, id holdID, ttl time.Duration) (n []*driver.Callback, err error) {
	n = s.onShared(k, func(l *sharedLock, now time.Time) bool {
		h := l.holds[id]
		if h == nil {
			err = driver.ErrNotHeld
			return false
		}
		h.expires = now.Add(s.lease(ttl))
		return false
	})
	return n, err
}

// sharedFence raises the token of id's hold on the lock at k, and the
// lock's counter, to at least token.
func (s *Store) sharedFence(k sharedKey, id holdID, token uint64) (n []*driver.Callback, err error) {
	n = s.onShared(k, func(l *sharedLock, _ time.Time) bool {
		h := l.holds[id]
		if h == nil {
			err = driver.ErrNotHeld
			return false
		}
		h.token = max(h.token, token)
		l.counter = max(l.counter, token)
		return false
	})
	return n, err
}

// sharedDequeue takes owner off the wait list of the lock at k.
func (s *Store) sharedDequeue(k sharedKey, owner string) []*driver.Callback {
	return s.onShared(k, func(l *sharedLock, _ time.Time) bool { return l.leave(owner) })
}

// sharedForceUnlock ends every hold of the lock at k, in every mode, and
// reports whether there was one. Waiters keep their places: they wait
// for the lock, which is now free for them.
func (s *Store) sharedForceUnlock(k sharedKey) (held bool, n []*driver.Callback) {
	n = s.onShared(k, func(l *sharedLock, _ time.Time) bool {
		held = len(l.holds) > 0
		clear(l.holds)
		return held
	})
	return held, n
}

// sharedInspect returns the state of the lock at k: its holders sorted by
// owner then mode, the writer as Owner, the longest remaining lease.
func (s *Store) sharedInspect(k sharedKey) (st driver.State, n []*driver.Callback) {
	n = s.onShared(k, func(l *sharedLock, now time.Time) bool {
		st = driver.State{Token: l.counter, Limit: l.limit}
		for id, h := range l.holds {
			left := h.expires.Sub(now)
			st.Holders = append(st.Holders, driver.Holder{Owner: id.owner, Mode: id.mode, Holds: h.holds, Permits: h.permits, Remaining: left, Token: h.token})
			st.Held = true
			st.Remaining = max(st.Remaining, left)
			if id.mode == driver.Write {
				st.Owner, st.Holds = id.owner, h.holds
			}
		}
		slices.SortFunc(st.Holders, func(a, b driver.Holder) int {
			return cmp.Or(cmp.Compare(a.Owner, b.Owner), cmp.Compare(a.Mode, b.Mode))
		})
		return false
	})
	return st, n
}
