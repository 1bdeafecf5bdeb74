package memlocker

import (
	"sync"
	"time"

	"github.com/distlock/distlock/driver"
)

// Store is an in-memory lock server. Clients made by Client share its locks.
type Store struct {
	clock       Clock // nil: the system clock
	granularity time.Duration

	mu       sync.Mutex
	locks    map[string]*hold
	tokens   map[string]uint64 // last token issued per key; kept after release
	watchers map[watched]map[*driver.Callback]struct{}
	// queues are the keys' wait queues, first in line first.
	queues map[string][]waiter
	// left holds the marks of Leave: until when releases may not name an
	// owner to a key (see driver.Passer). leftSweep is the number of
	// marks at which markLeft next drops the lapsed ones.
	left      map[leftMark]time.Time
	leftSweep int
	// shared are the read-write locks and semaphores (see Client.Share),
	// each in a namespace apart from the mutexes.
	shared map[sharedKey]*sharedLock
	// restarted is when Restart last ran; zero if it never did.
	restarted time.Time
}

// hold is a held lock, or one a release granted to the first waiter in its
// queue.
type hold struct {
	owner string
	holds int
	// granted: the one hold is a grant a release made to a waiter, not
	// yet claimed by an attempt of its (see driver.Queuer).
	granted bool
	token   uint64
	expires time.Time
}

// StoreOption configures a Store.
type StoreOption func(*Store)

// WithClock makes the store expire leases by c instead of the system clock,
// and its clients report c (Client.Clock), so that Mutexes on them time
// their leases, renewals and waits by c too.
func WithClock(c Clock) StoreOption {
	return func(s *Store) { s.clock = c }
}

// WithGranularity makes the store round every lease up to a multiple of d,
// as stores that count leases in whole seconds do. The store then reports d
// as its granularity.
func WithGranularity(d time.Duration) StoreOption {
	return func(s *Store) { s.granularity = d }
}

// NewStore returns an empty store.
func NewStore(opts ...StoreOption) *Store {
	s := &Store{
		locks:    make(map[string]*hold),
		tokens:   make(map[string]uint64),
		watchers: make(map[watched]map[*driver.Callback]struct{}),
		queues:   make(map[string][]waiter),
		left:     make(map[leftMark]time.Time),
		shared:   make(map[sharedKey]*sharedLock),
	}
	for _, opt := range opts {
		opt(s)
	}
	return s
}

// New returns a client of a new store: the quickest way to a backend.
func New(opts ...StoreOption) *Client {
	return NewStore(opts...).Client()
}

// now returns the store's time.
func (s *Store) now() time.Time {
	if s.clock == nil {
		return time.Now()
	}
	return s.clock.Now()
}

// live returns key's hold if it has not expired, deleting it if it has.
// s.mu must be held.
func (s *Store) live(key string) *hold {
	h := s.locks[key]
	if h != nil && !s.now().Before(h.expires) {
		delete(s.locks, key)
		return nil
	}
	return h
}

// lease rounds ttl up to the store's granularity.
func (s *Store) lease(ttl time.Duration) time.Duration {
	if g := s.granularity; g > 0 {
		return (ttl + g - 1) / g * g
	}
	return ttl
}

// tryLock acquires, re-enters or claims the grant of r.Key for r.Owner. A
// free key goes to the first waiter in its queue: to the owner if it is
// first (or nobody waits), else it is granted to that waiter. When another
// owner has the key and r.Patience is positive, the owner joins the key's
// queue (or stays in it) until r.Patience from now, asking for r.TTL with
// r.Floor; an owner with a floor that joins an empty queue is told to the
// holder (driver.Turn.Behind). The notice is for after s.mu is released.
func (s *Store) tryLock(r driver.Request) (driver.Grant, notice) {
	key, owner, ttl, patience := r.Key, r.Owner, r.TTL, r.Patience
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var n notice
	h := s.live(key)
	if h == nil {
		if q := s.lapsedHead(key, now); len(q) == 0 || q[0].owner == owner {
			s.leaveQueue(key, owner)
			s.tokens[key]++
			h = &hold{owner: owner, token: s.tokens[key]}
			s.locks[key] = h
		} else {
			n = s.handOff(key, now)
			h = s.locks[key]
		}
	}
	if h.owner != owner {
		g := driver.Grant{Remaining: h.expires.Sub(now), Reserved: h.granted, Uptime: s.uptime()}
		if patience > 0 {
			w := waiter{owner: owner, deadline: now.Add(patience), ttl: ttl, floor: r.Floor}
			if len(s.lapsedHead(key, now)) == 0 {
				n.behind = s.behind(key, h, w, now)
			}
			s.enqueue(key, w)
			g.Token = h.token
		}
		return g, n
	}
	if !h.granted || patience <= 0 {
		h.holds++ // a waiter's attempt claims its grant without a hold more
	}
	h.granted = false
	h.expires = now.Add(s.lease(ttl))
	return driver.Grant{Acquired: true, Holds: h.holds, Token: h.token, Uptime: s.uptime()}, n
}

// unlock drops one of owner's holds on key whose token is token (0: any);
// the last one, claimed or not, frees key for next, if it names a waiter
// it may be granted to (see handTo), or else for the first waiter in line.
// The notice is for after s.mu is released.
func (s *Store) unlock(key, owner string, token uint64, next driver.Successor) (notice, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.live(key)
	if h == nil || h.owner != owner || token != 0 && h.token != token {
		return notice{}, driver.ErrNotHeld
	}
	if h.holds > 1 {
		h.holds--
		return notice{}, nil
	}
	delete(s.locks, key)
	return s.handTo(key, next, s.now()), nil
}

func (s *Store) expire(key, owner string, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.live(key)
	if h == nil || h.owner != owner {
		return driver.ErrNotHeld
	}
	h.expires = s.now().Add(s.lease(ttl))
	return nil
}

func (s *Store) inspect(key string) driver.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := driver.State{Token: s.tokens[key]}
	if h := s.live(key); h != nil {
		st.Held, st.Owner, st.Holds = true, h.owner, h.holds
		st.Remaining = h.expires.Sub(s.now())
		st.Token = h.token
	}
	return st
}

// forceUnlock frees key, its grant claimed or not, for the next waiter,
// and reports whether it was held. The notice is for after s.mu is
// released.
func (s *Store) forceUnlock(key string) (bool, notice) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live(key) == nil {
		return false, notice{}
	}
	delete(s.locks, key)
	return true, s.handOff(key, s.now())
}
