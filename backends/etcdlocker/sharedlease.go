package etcdlocker

import (
	"slices"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Shared leases take the lease grant off TryLock's path. TryLock binds its
// key to a lease the backend granted a moment earlier for the same lease
// length, which other TryLocks of the backend use too, for a short while
// after its grant; the key's value says its lease is shared. Nothing ever
// renews a shared lease (Expire moves its key to a lease of its own first),
// and nothing revokes it but the backend that granted it, once it no longer
// hands it out and has seen every key it bound to it unbound again by its
// own writes. A shared lease whose fate is unsure simply runs out.

// maxLeaseLengths bounds how many lease lengths the pool keeps shared
// leases for.
const maxLeaseLengths = 8

// stockRetry is how long the stocker waits after a failed grant.
const stockRetry = 100 * time.Millisecond

// shareWindow is how long after its grant a shared lease of ttl seconds is
// handed out: a tenth of its length, at most a second. A lease counts from
// its grant, so a hold taken later is that much shorter; TryLock reports
// the shortfall in Grant.Validity.
func shareWindow(ttl int64) time.Duration {
	return min(time.Duration(ttl)*time.Second/10, time.Second)
}

// sharedLease is one lease the backend binds keys to.
type sharedLease struct {
	id  clientv3.LeaseID
	ttl int64 // seconds, as granted
	// granted is the local time at the start of the grant call: the lease
	// lasts at least until granted plus ttl.
	granted time.Time

	// Guarded by the pool's mutex:
	pending int  // attempts binding a key to it right now
	bound   int  // keys bound to it, less those seen unbound: never too few
	unsure  bool // an attempt's outcome is unknown: bound may be too few
	retired bool // no longer handed out
}

// validFor is how long after start the lease is known to last.
func (l *sharedLease) validFor(start time.Time) time.Duration {
	return l.granted.Add(time.Duration(l.ttl) * time.Second).Sub(start)
}

// validity is Grant.Validity for a hold of ttl bound to the lease by an
// attempt that started at start: how long after start the lease is known
// to last when that is less than ttl, else 0 (the full lease).
func (l *sharedLease) validity(start time.Time, ttl time.Duration) time.Duration {
	v := l.validFor(start)
	if v >= ttl {
		return 0
	}
	// A lease is shared only while most of it is left, so v is far from
	// zero; zero would mean the full lease.
	return max(v, time.Nanosecond)
}

// idle reports whether the lease may be revoked: it is no longer handed
// out and no key can be bound to it.
func (l *sharedLease) idle() bool {
	return l.retired && l.pending == 0 && l.bound == 0 && !l.unsure
}

// gone reports whether the lease has run out on the server for sure by now
// (a new leader adds an election timeout or so to every lease).
func (l *sharedLease) gone(now time.Time) bool {
	return now.Sub(l.granted) > time.Duration(l.ttl)*time.Second+5*time.Second
}

// leaseLength is the pool's state for one lease length.
type leaseLength struct {
	current []*sharedLease // handed out, oldest first
	asked   time.Time      // the last attempt that asked for this length
}

// leasePool holds the backend's shared leases. It is safe for concurrent
// use.
type leasePool struct {
	mu     sync.Mutex
	closed bool
	length map[int64]*leaseLength // by the lease asked for, in seconds
	// leases holds every shared lease that may still be revoked or may
	// still hold keys of this backend.
	leases map[clientv3.LeaseID]*sharedLease
}

// take returns the youngest shared lease for asked seconds still handed
// out, marked as pending for the caller, who ends with done; nil when there
// is none. It also returns leases it retired that may be revoked, and
// whether the stocker should look at the pool (this attempt made a lease
// due ahead).
func (p *leasePool) take(asked int64, now time.Time) (*sharedLease, []clientv3.LeaseID, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, nil, false
	}
	ll, revoke := p.lengthFor(asked)
	revoke = append(revoke, p.retireStale(ll, now)...)
	_, wasDue := p.restock(ll)
	ll.asked = now
	_, due := p.restock(ll)
	if n := len(ll.current); n > 0 {
		l := ll.current[n-1]
		l.pending++
		return l, revoke, due && !wasDue
	}
	return nil, revoke, false
}

// adopt makes sp, granted for an attempt that found no shared lease, a
// shared lease for asked seconds, marked as pending for the caller.
func (p *leasePool) adopt(asked int64, sp grantedLease) (*sharedLease, []clientv3.LeaseID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := &sharedLease{id: sp.id, ttl: sp.ttl, granted: sp.granted, pending: 1}
	p.register(l)
	if p.closed {
		l.retired = true
		return l, nil
	}
	ll, revoke := p.lengthFor(asked)
	p.shelve(ll, l)
	return l, revoke
}

// add makes sp, granted ahead by the stocker, a shared lease for asked
// seconds. It reports false when the pool is closed: the caller revokes sp.
func (p *leasePool) add(asked int64, sp grantedLease) (bool, []clientv3.LeaseID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false, nil
	}
	l := &sharedLease{id: sp.id, ttl: sp.ttl, granted: sp.granted}
	p.register(l)
	ll, revoke := p.lengthFor(asked)
	p.shelve(ll, l)
	return true, revoke
}

func (p *leasePool) register(l *sharedLease) {
	if p.leases == nil {
		p.leases = make(map[clientv3.LeaseID]*sharedLease)
	}
	p.leases[l.id] = l
}

// shelve adds l to ll's current leases, in the order of their grants.
func (p *leasePool) shelve(ll *leaseLength, l *sharedLease) {
	i, _ := slices.BinarySearchFunc(ll.current, l.granted, func(c *sharedLease, t time.Time) int { return c.granted.Compare(t) })
	ll.current = slices.Insert(ll.current, i, l)
}

// lengthFor returns the state of asked seconds, making room for it by
// retiring the leases of the length asked for least recently. It returns
// the retired leases that may be revoked.
func (p *leasePool) lengthFor(asked int64) (*leaseLength, []clientv3.LeaseID) {
	if ll := p.length[asked]; ll != nil {
		return ll, nil
	}
	if p.length == nil {
		p.length = make(map[int64]*leaseLength)
	}
	var revoke []clientv3.LeaseID
	if len(p.length) >= maxLeaseLengths {
		var victim int64
		for s, ll := range p.length {
			if victim == 0 || ll.asked.Before(p.length[victim].asked) {
				victim = s
			}
		}
		for _, l := range p.length[victim].current {
			revoke = append(revoke, p.retire(l)...)
		}
		delete(p.length, victim)
	}
	ll := &leaseLength{}
	p.length[asked] = ll
	return ll, revoke
}

// retireStale retires ll's leases whose window has passed.
func (p *leasePool) retireStale(ll *leaseLength, now time.Time) []clientv3.LeaseID {
	var revoke []clientv3.LeaseID
	kept := ll.current[:0]
	for _, l := range ll.current {
		if now.Sub(l.granted) < shareWindow(l.ttl) {
			kept = append(kept, l)
			continue
		}
		revoke = append(revoke, p.retire(l)...)
	}
	clear(ll.current[len(kept):])
	ll.current = kept
	return revoke
}

// retire stops handing l out, and returns its id when it may be revoked.
func (p *leasePool) retire(l *sharedLease) []clientv3.LeaseID {
	l.retired = true
	return p.release(l)
}

// release forgets l and returns its id when it may be revoked.
func (p *leasePool) release(l *sharedLease) []clientv3.LeaseID {
	if !l.idle() || p.leases[l.id] != l {
		return nil
	}
	delete(p.leases, l.id)
	return []clientv3.LeaseID{l.id}
}

// done ends an attempt's use of l. It returns l's id when l may now be
// revoked.
func (p *leasePool) done(l *sharedLease, use leaseUse) []clientv3.LeaseID {
	p.mu.Lock()
	defer p.mu.Unlock()
	l.pending--
	switch use {
	case leaseBound:
		l.bound++
	case leaseUnknown:
		l.unsure = true
	}
	return p.release(l)
}

// unbind records that a key bound to shared lease id (if it is one of this
// backend's) was deleted or moved to another lease. It returns id when the
// lease may now be revoked.
func (p *leasePool) unbind(id clientv3.LeaseID) []clientv3.LeaseID {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.leases[id]
	if l == nil {
		return nil
	}
	if l.bound > 0 {
		l.bound--
	}
	return p.release(l)
}

// wanted returns a lease length to grant a shared lease for ahead, if one
// is due.
func (p *leasePool) wanted(now time.Time) (int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for asked, ll := range p.length {
		if at, ok := p.restock(ll); ok && !now.Before(at) {
			return asked, true
		}
	}
	return 0, false
}

// restock is when ll's next lease is due, if it is: three quarters into
// the window of its youngest lease, when an attempt asked for the length
// since that lease was granted. A length asked for now and then gets no
// leases granted ahead only to be revoked unused: its attempts grant their
// own (which later attempts share while the window lasts).
func (p *leasePool) restock(ll *leaseLength) (time.Time, bool) {
	n := len(ll.current)
	if p.closed || n == 0 {
		return time.Time{}, false
	}
	young := ll.current[n-1]
	if ll.asked.Before(young.granted) {
		return time.Time{}, false
	}
	w := shareWindow(young.ttl)
	return young.granted.Add(w - w/4), true
}

// sweep retires the leases whose window passed, forgets the lengths nobody
// asks for and the leases surely run out. It returns the leases that may be
// revoked, and when it should run again (zero: when something changes).
func (p *leasePool) sweep(now time.Time) (revoke []clientv3.LeaseID, next time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	soonest := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	for asked, ll := range p.length {
		revoke = append(revoke, p.retireStale(ll, now)...)
		if len(ll.current) == 0 && now.Sub(ll.asked) >= shareWindow(asked) {
			delete(p.length, asked)
			continue
		}
		for _, l := range ll.current {
			soonest(l.granted.Add(shareWindow(l.ttl)))
		}
		if at, ok := p.restock(ll); ok && at.After(now) {
			soonest(at)
		}
	}
	for id, l := range p.leases {
		switch {
		case l.retired && l.gone(now):
			delete(p.leases, id)
		case l.retired:
			soonest(l.granted.Add(time.Duration(l.ttl)*time.Second + 5*time.Second))
		}
	}
	return revoke, next
}

// close stops handing leases out for good and returns those that may be
// revoked. Leases that may hold keys stay until they run out: closing a
// backend does not release its locks.
func (p *leasePool) close() []clientv3.LeaseID {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	var revoke []clientv3.LeaseID
	for _, ll := range p.length {
		for _, l := range ll.current {
			revoke = append(revoke, p.retire(l)...)
		}
	}
	p.length = nil
	return revoke
}

// handedOut returns how many shared leases for asked seconds the pool
// hands out.
func (p *leasePool) handedOut(asked int64) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ll := p.length[asked]; ll != nil {
		return len(ll.current)
	}
	return 0
}
