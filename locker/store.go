package locker

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/distlock/distlock/driver"
)

// Store is a lock store as a program holds it: made from a driver (NewStore)
// or opened from a URL (Open), it hands out Mutexes. It is the one place that
// knows what its driver can do, found once when the Store is made, and it
// owns what its Mutexes share: one watchdog that renews their leases in
// batches, one subscription per lock that all their waiters share, and the
// count of live holds of each shared owner (WithOwner).
//
// A Store is safe for concurrent use. Close it when done: Close ends its
// leases, waits and subscriptions, and closes the driver.
type Store struct {
	d driver.Backend
	// The driver's optional capabilities, nil when missing.
	notifier  driver.Notifier
	queuer    driver.Queuer
	dequeuer  driver.Dequeuer // the Queuer, or a view's wait list
	inspector driver.Inspector
	forcer    driver.ForceUnlocker
	sharer    driver.Sharer
	holder    driver.HoldUnlocker
	drifter   driver.Drifter
	// clock times leases, renewals and waits: the driver's (driver.Clocked)
	// or the system's.
	clock driver.Clock
	// floor is the shortest lease the driver honours: MinLease or its
	// granularity.
	floor time.Duration
	tel   *Telemetry // nil: no telemetry

	dog   scheduler
	hub   hub
	holds sharedHolds
	// cleanups counts the background cleanups in progress (see finish).
	cleanups sync.WaitGroup

	// closed is set by Close, under mu so that track sees it.
	closed atomic.Bool
	mu     sync.Mutex
	// expiries are the live leases by deadline, ended by Close; one
	// timer, set for expiryAt (zero when unset; expiryGen counts its
	// settings), ends them at their deadlines (see expiry.go).
	expiries   timeQueue[*Lease]
	expiryAt   time.Time
	expiryGen  uint64
	stopExpiry func() bool
	// views are the Stores over the driver's views (see viewOf), made when
	// first needed and closed by Close; a view's Store does not close its
	// driver, which is this Store's.
	views map[driver.Share]*Store
	// mode is a view's Store's view's mode; 0 on a Store over a driver.
	mode driver.Mode
	// done is closed by Close: it ends waits and background cleanups.
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// StoreOption configures a Store.
type StoreOption func(*Store)

// WithTelemetry reports the calls and leases of the Store's Mutexes through
// t. A nil t, or one made without providers or logger, reports nothing.
func WithTelemetry(t *Telemetry) StoreOption {
	return func(s *Store) {
		s.tel = nil
		if t.reports() {
			s.tel = t
		}
	}
}

// NewStore returns a Store over the driver d, which it owns from now on:
// Store.Close closes it. A nil d makes a Store whose every call fails with
// ErrInvalid.
func NewStore(d driver.Backend, opts ...StoreOption) *Store {
	s := &Store{
		d:     d,
		clock: systemClock{},
		floor: MinLease,
		done:  make(chan struct{}),
	}
	for _, opt := range opts {
		opt(s)
	}
	if d == nil {
		return s
	}
	s.notifier, _ = d.(driver.Notifier)
	s.queuer, _ = d.(driver.Queuer)
	if s.queuer != nil {
		s.dequeuer = s.queuer
	}
	s.inspector, _ = d.(driver.Inspector)
	s.forcer, _ = d.(driver.ForceUnlocker)
	s.sharer, _ = d.(driver.Sharer)
	s.holder, _ = d.(driver.HoldUnlocker)
	s.drifter, _ = d.(driver.Drifter)
	if c, ok := d.(driver.Clocked); ok && c.Clock() != nil {
		s.clock = c.Clock()
	}
	s.floor = max(MinLease, driver.Granularity(d))
	s.dog.init(s)
	return s
}

// Open returns a Store over the driver a URL describes, through the opener
// registered for its scheme (see driver.Open): import the backend packages
// whose schemes a program accepts, as with database/sql drivers. An unknown
// scheme is an error wrapping ErrInvalid that lists the known ones. Errors
// never contain the URL's password.
func Open(ctx context.Context, rawURL string, opts ...StoreOption) (*Store, error) {
	d, err := driver.Open(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	return NewStore(d, opts...), nil
}

// Mutex returns a Mutex for the lock named name. It fails with ErrInvalid
// when name is empty or longer than MaxNameLen, or an option is invalid,
// and with ErrClosed after Close.
func (s *Store) Mutex(name string, opts ...MutexOption) (*Mutex, error) {
	if err := s.checkNew(name); err != nil {
		return nil, opError("new", name, err)
	}
	m, err := newMutex(s, name, opts)
	return m, opError("new", name, err)
}

// checkNew checks what every lock of the Store needs: a usable Store and
// a valid name.
func (s *Store) checkNew(name string) error {
	if err := s.usable(); err != nil {
		return err
	}
	if name == "" {
		return invalid("empty lock name")
	}
	return checkName(name)
}

// usable fails on a Store without a driver or a closed one.
func (s *Store) usable() error {
	if s.d == nil {
		return invalid("a Store made from a nil driver")
	}
	if s.closed.Load() {
		return ErrClosed
	}
	return nil
}

// Close ends the Store: the leases of its Mutexes end (their Done channels
// close and Err wraps ErrLost and ErrClosed; their holds on the store run
// out with their leases), waits end with ErrClosed, release subscriptions
// stop, and the driver is closed. Close returns the driver's error; calling
// it again returns the same.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed.Store(true)
		leases := s.stopExpiries()
		views := s.views
		s.views = nil
		s.mu.Unlock()
		for _, v := range views {
			_ = v.Close()
		}
		close(s.done)
		lost := fmt.Errorf("%w: %w", ErrLost, ErrClosed)
		for _, l := range leases {
			l.end(lost)
		}
		s.cleanups.Wait()
		s.hub.close()
		if s.d != nil && s.mode == 0 {
			s.closeErr = s.d.Close()
		}
	})
	return s.closeErr
}

// checkLease checks that a lease of d, named what, can be honoured by the
// store.
func (s *Store) checkLease(d time.Duration, what string) error {
	if d <= 0 {
		return invalid(fmt.Sprintf("non-positive %s %v", what, d))
	}
	if d < s.floor {
		return invalid(fmt.Sprintf("%s %v is shorter than %v, the least this store can honour", what, d, s.floor))
	}
	return nil
}

// viewOf returns the Store over the driver's view sh (see driver.Sharer),
// made the first time it is asked for. It shares this Store's telemetry and
// clock, and Close closes it. It fails with an error wrapping
// errors.ErrUnsupported when the driver has no shared locks of that kind,
// and with ErrClosed after Close.
func (s *Store) viewOf(sh driver.Share) (*Store, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if s.sharer == nil {
		return nil, unsupported("shared locks")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if v, ok := s.views[sh]; ok {
		return v, nil
	}
	d, err := s.sharer.Share(sh)
	if err != nil {
		return nil, err
	}
	v := NewStore(d)
	v.tel, v.mode = s.tel, sh.Mode
	// A view's wait list is left with Dequeue. Only on a view: every
	// combinator has the method, which does nothing for its mutexes. Nor
	// on a read view: readers keep no wait list (see driver.Sharer).
	if sh.Mode != driver.Read {
		v.dequeuer, _ = d.(driver.Dequeuer)
	}
	if s.views == nil {
		s.views = make(map[driver.Share]*Store)
	}
	s.views[sh] = v
	return v, nil
}
