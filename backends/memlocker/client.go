package memlocker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/distlock/distlock/locker"
)

// Client is one connection to a Store: a locker.Backend with every optional
// capability, and faults that tests inject into it alone.
type Client struct {
	store *Store

	mu       sync.Mutex
	faults   faults
	closed   bool
	calls    map[string]int
	watchers map[*locker.Callback]watched
}

var (
	_ locker.Backend       = (*Client)(nil)
	_ locker.Notifier      = (*Client)(nil)
	_ locker.Inspector     = (*Client)(nil)
	_ locker.ForceUnlocker = (*Client)(nil)
	_ locker.BatchExpirer  = (*Client)(nil)
	_ locker.Granular      = (*Client)(nil)
	_ locker.Queuer        = (*Client)(nil)
	_ locker.Clocked       = (*Client)(nil)
)

// Client returns a new client of the store.
func (s *Store) Client() *Client {
	return &Client{
		store:    s,
		calls:    make(map[string]int),
		watchers: make(map[*locker.Callback]watched),
	}
}

// Store returns the store the client talks to.
func (c *Client) Store() *Store { return c.store }

// TryLock implements locker.Backend. It respects the key's wait queue
// without joining it: a free key with waiters is reserved for the first of
// them instead (see TryLockQueued).
func (c *Client) TryLock(ctx context.Context, key, owner string, ttl time.Duration) (locker.Grant, error) {
	if err := validate(key, owner, ttl); err != nil {
		return locker.Grant{}, err
	}
	var g locker.Grant
	var n []*locker.Callback
	err := c.call(ctx, "trylock", func() { g, n = c.store.tryLock(key, owner, ttl, 0) })
	notify(n)
	if err != nil {
		return locker.Grant{}, err
	}
	return g, nil
}

// Unlock implements locker.Backend.
func (c *Client) Unlock(ctx context.Context, key, owner string) error {
	if err := validate(key, owner, time.Second); err != nil {
		return err
	}
	var result error
	var n []*locker.Callback
	err := c.call(ctx, "unlock", func() { n, result = c.store.unlock(key, owner) })
	notify(n)
	if err != nil {
		return err
	}
	return result
}

// Expire implements locker.Backend.
func (c *Client) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	if err := validate(key, owner, ttl); err != nil {
		return err
	}
	var result error
	if err := c.call(ctx, "expire", func() { result = c.store.expire(key, owner, ttl) }); err != nil {
		return err
	}
	return result
}

// ExpireBatch implements locker.BatchExpirer: the renewals share one call,
// and so one fault.
func (c *Client) ExpireBatch(ctx context.Context, renewals []locker.Renewal) []error {
	errs := make([]error, len(renewals))
	err := c.call(ctx, "expirebatch", func() {
		for i, r := range renewals {
			if errs[i] = validate(r.Key, r.Owner, r.TTL); errs[i] == nil {
				errs[i] = c.store.expire(r.Key, r.Owner, r.TTL)
			}
		}
	})
	if err != nil {
		for i := range errs {
			errs[i] = err
		}
	}
	return errs
}

// Inspect implements locker.Inspector.
func (c *Client) Inspect(ctx context.Context, key string) (locker.State, error) {
	if key == "" {
		return locker.State{}, fmt.Errorf("%w: empty key", locker.ErrInvalid)
	}
	var st locker.State
	err := c.call(ctx, "inspect", func() { st = c.store.inspect(key) })
	return st, err
}

// ForceUnlock implements locker.ForceUnlocker.
func (c *Client) ForceUnlock(ctx context.Context, key string) (bool, error) {
	if key == "" {
		return false, fmt.Errorf("%w: empty key", locker.ErrInvalid)
	}
	var held bool
	var n []*locker.Callback
	err := c.call(ctx, "forceunlock", func() { held, n = c.store.forceUnlock(key) })
	notify(n)
	return held, err
}

// Watch implements locker.Notifier. While the client is partitioned its
// watchers hear nothing; when it heals they are all called, as after a
// reconnection.
func (c *Client) Watch(ctx context.Context, key string, fn func()) (func(), error) {
	if key == "" {
		return nil, fmt.Errorf("%w: empty key", locker.ErrInvalid)
	}
	return c.watch(ctx, "watch", watched{key: key}, fn)
}

// watch registers fn as a watcher of what with the store.
func (c *Client) watch(ctx context.Context, op string, what watched, fn func()) (func(), error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: nil callback", locker.ErrInvalid)
	}
	w := locker.NewCallback(func() {
		if !c.isPartitioned() {
			fn()
		}
	})
	var closed bool
	err := c.call(ctx, op, func() {
		c.mu.Lock()
		// Close may have run since call checked: a closed client keeps no
		// watchers. Registering under c.mu lets Close find the watcher.
		if closed = c.closed; !closed {
			c.watchers[w] = what
			c.store.addWatcher(what, w)
		}
		c.mu.Unlock()
	})
	if err == nil && closed {
		err = locker.ErrClosed
	}
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			delete(c.watchers, w)
			c.mu.Unlock()
			c.store.removeWatcher(what, w)
		})
	}, nil
}

// Clock implements locker.Clocked: the store's clock (WithClock), or nil
// for the system clock. A Mutex on the client runs on it.
func (c *Client) Clock() locker.Clock { return c.store.clock }

// Granularity implements locker.Granular.
func (c *Client) Granularity() time.Duration {
	if g := c.store.granularity; g > 0 {
		return g
	}
	return time.Millisecond
}

// Close implements locker.Backend: later calls fail with locker.ErrClosed and
// the client's watchers are stopped. Locks it holds stay until they expire.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	ws := c.watchers
	c.watchers = nil
	c.mu.Unlock()
	for w, what := range ws {
		c.store.removeWatcher(what, w)
	}
	return nil
}

// Calls returns how many calls of op ("trylock", "unlock", "expire",
// "expirebatch", "inspect", "forceunlock", "watch", "fence",
// "trylockqueued", "dequeue", "watchturn") the client has received, failed
// ones included.
func (c *Client) Calls(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[op]
}

func validate(key, owner string, ttl time.Duration) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: empty key", locker.ErrInvalid)
	case owner == "":
		return fmt.Errorf("%w: empty owner", locker.ErrInvalid)
	case ttl <= 0:
		return fmt.Errorf("%w: non-positive lease %v", locker.ErrInvalid, ttl)
	}
	return nil
}
