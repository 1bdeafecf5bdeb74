package memlocker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/distlock/distlock/driver"
)

// Client is one connection to a Store: a driver.Backend with every optional
// capability, and faults that tests inject into it alone.
type Client struct {
	store *Store

	mu       sync.Mutex
	faults   faults
	closed   bool
	calls    map[string]int
	watchers map[*driver.Callback]watched
}

var (
	_ driver.Backend       = (*Client)(nil)
	_ driver.Notifier      = (*Client)(nil)
	_ driver.Inspector     = (*Client)(nil)
	_ driver.ForceUnlocker = (*Client)(nil)
	_ driver.BatchExpirer  = (*Client)(nil)
	_ driver.Granular      = (*Client)(nil)
	_ driver.Queuer        = (*Client)(nil)
	_ driver.Clocked       = (*Client)(nil)
)

// Client returns a new client of the store.
func (s *Store) Client() *Client {
	return &Client{
		store:    s,
		calls:    make(map[string]int),
		watchers: make(map[*driver.Callback]watched),
	}
}

// Store returns the store the client talks to.
func (c *Client) Store() *Store { return c.store }

// TryLock implements driver.Backend. A positive r.Patience joins the key's
// wait queue (see driver.Queuer); without it the queue is respected all the
// same: a free key with waiters is reserved for the first of them instead.
// r.Floor is ignored: tokens count up from 1 on every key, so that tests
// can predict them.
func (c *Client) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	if err := driver.CheckRequest(r); err != nil {
		return driver.Grant{}, err
	}
	var g driver.Grant
	var n []*driver.Callback
	op := "trylock"
	if r.Patience > 0 {
		op = "trylockqueued" // counted apart (see Calls)
	}
	err := c.call(ctx, op, func() { g, n = c.store.tryLock(r.Key, r.Owner, r.TTL, r.Patience) })
	notify(n)
	if err != nil {
		return driver.Grant{}, err
	}
	return g, nil
}

// Unlock implements driver.Backend.
func (c *Client) Unlock(ctx context.Context, key, owner string) error {
	if err := validate(key, owner, time.Second); err != nil {
		return err
	}
	var result error
	var n []*driver.Callback
	err := c.call(ctx, "unlock", func() { n, result = c.store.unlock(key, owner) })
	notify(n)
	if err != nil {
		return err
	}
	return result
}

// Expire implements driver.Backend.
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

// ExpireBatch implements driver.BatchExpirer: the renewals share one call,
// and so one fault.
func (c *Client) ExpireBatch(ctx context.Context, renewals []driver.Renewal) []error {
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

// Inspect implements driver.Inspector.
func (c *Client) Inspect(ctx context.Context, key string) (driver.State, error) {
	if key == "" {
		return driver.State{}, fmt.Errorf("%w: empty key", driver.ErrInvalid)
	}
	var st driver.State
	err := c.call(ctx, "inspect", func() { st = c.store.inspect(key) })
	return st, err
}

// ForceUnlock implements driver.ForceUnlocker.
func (c *Client) ForceUnlock(ctx context.Context, key string) (bool, error) {
	if key == "" {
		return false, fmt.Errorf("%w: empty key", driver.ErrInvalid)
	}
	var held bool
	var n []*driver.Callback
	err := c.call(ctx, "forceunlock", func() { held, n = c.store.forceUnlock(key) })
	notify(n)
	return held, err
}

// Watch implements driver.Notifier. While the client is partitioned its
// watchers hear nothing; when it heals they are all called, as after a
// reconnection.
func (c *Client) Watch(ctx context.Context, key string, fn func()) (func(), error) {
	if key == "" {
		return nil, fmt.Errorf("%w: empty key", driver.ErrInvalid)
	}
	return c.watch(ctx, "watch", watched{key: key}, fn)
}

// watch registers fn as a watcher of what with the store.
func (c *Client) watch(ctx context.Context, op string, what watched, fn func()) (func(), error) {
	if fn == nil {
		return nil, fmt.Errorf("%w: nil callback", driver.ErrInvalid)
	}
	w := driver.NewCallback(func() {
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
		err = driver.ErrClosed
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

// Clock implements driver.Clocked: the store's clock (WithClock), or nil
// for the system clock. A Mutex on the client runs on it.
func (c *Client) Clock() driver.Clock { return c.store.clock }

// Granularity implements driver.Granular.
func (c *Client) Granularity() time.Duration {
	if g := c.store.granularity; g > 0 {
		return g
	}
	return time.Millisecond
}

// Close implements driver.Backend: later calls fail with driver.ErrClosed and
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
		return fmt.Errorf("%w: empty key", driver.ErrInvalid)
	case owner == "":
		return fmt.Errorf("%w: empty owner", driver.ErrInvalid)
	case ttl <= 0:
		return fmt.Errorf("%w: non-positive lease %v", driver.ErrInvalid, ttl)
	}
	return nil
}
