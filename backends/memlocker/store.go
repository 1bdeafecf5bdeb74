package memlocker

import (
	"sync"
	"time"

	"github.com/distlock/distlock/locker"
)

// Store is an in-memory lock server. Clients made by Client share its locks.
type Store struct {
	clock       Clock
	granularity time.Duration

	mu       sync.Mutex
	locks    map[string]*hold
	tokens   map[string]uint64 // last token issued per key; kept after release
	watchers map[string]map[*locker.Callback]struct{}
	// restarted is when Restart last ran; zero if it never did.
	restarted time.Time
}

// hold is a held lock.
type hold struct {
	owner   string
	holds   int
	token   uint64
	expires time.Time
}

// StoreOption configures a Store.
type StoreOption func(*Store)

// WithClock makes the store expire leases by c instead of the system clock.
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
		clock:    systemClock{},
		locks:    make(map[string]*hold),
		tokens:   make(map[string]uint64),
		watchers: make(map[string]map[*locker.Callback]struct{}),
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

// live returns key's hold if it has not expired, deleting it if it has.
// s.mu must be held.
func (s *Store) live(key string) *hold {
	h := s.locks[key]
	if h != nil && !s.clock.Now().Before(h.expires) {
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

func (s *Store) tryLock(key, owner string, ttl time.Duration) locker.Grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	h := s.live(key)
	switch {
	case h == nil:
		s.tokens[key]++
		h = &hold{owner: owner, token: s.tokens[key]}
		s.locks[key] = h
	case h.owner != owner:
		return locker.Grant{Remaining: h.expires.Sub(now), Uptime: s.uptime()}
	}
	h.holds++
	h.expires = now.Add(s.lease(ttl))
	return locker.Grant{Acquired: true, Holds: h.holds, Token: h.token, Uptime: s.uptime()}
}

func (s *Store) unlock(key, owner string) error {
	s.mu.Lock()
	h := s.live(key)
	if h == nil || h.owner != owner {
		s.mu.Unlock()
		return locker.ErrNotHeld
	}
	h.holds--
	if h.holds > 0 {
		s.mu.Unlock()
		return nil
	}
	delete(s.locks, key)
	ws := s.watchersOf(key)
	s.mu.Unlock()
	notify(ws)
	return nil
}

func (s *Store) expire(key, owner string, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.live(key)
	if h == nil || h.owner != owner {
		return locker.ErrNotHeld
	}
	h.expires = s.clock.Now().Add(s.lease(ttl))
	return nil
}

func (s *Store) inspect(key string) locker.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := locker.State{Token: s.tokens[key]}
	if h := s.live(key); h != nil {
		st.Held, st.Owner, st.Holds = true, h.owner, h.holds
		st.Remaining = h.expires.Sub(s.clock.Now())
		st.Token = h.token
	}
	return st
}

func (s *Store) forceUnlock(key string) bool {
	s.mu.Lock()
	h := s.live(key)
	if h == nil {
		s.mu.Unlock()
		return false
	}
	delete(s.locks, key)
	ws := s.watchersOf(key)
	s.mu.Unlock()
	notify(ws)
	return true
}
