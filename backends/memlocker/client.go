package memlocker

import (
	"context"
	"sync"
	"time"

	"github.com/distlock/distlock/driver"
)

// Client is one connection to a Store: a driver.Backend with every optional
// capability, and faults that tests inject into it alone.
type Client struct {
	store *Store
	// guard turns calls away after Close and lets Close wait for the calls
	// in flight; its Halted ends the latencies those calls may be sleeping.
	guard driver.Guard

	mu       sync.Mutex
	faults   faults
	calls    map[string]int
	watchers map[*driver.Callback]watched
}

var (
	_ driver.Backend       = (*Client)(nil)
	_ driver.Notifier      = (*Client)(nil)
	_ driver.Queuer        = (*Client)(nil)
	_ driver.Inspector     = (*Client)(nil)
	_ driver.ForceUnlocker = (*Client)(nil)
	_ driver.BatchExpirer  = (*Client)(nil)
	_ driver.Fencer        = (*Client)(nil)
	_ driver.HoldUnlocker  = (*Client)(nil)
	_ driver.Granular      = (*Client)(nil)
	_ driver.Endpointer    = (*Client)(nil)
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
// same: a free key with waiters is granted to the first of them instead.
// r.Floor sets no token: tokens count up from 1 on every key, so that
// tests can predict them; a waiter's entry keeps it all the same, for its
// turn to tell back and for UnlockTo (see driver.Passer).
func (c *Client) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	if err := driver.CheckRequest(r); err != nil {
		return driver.Grant{}, err
	}
	op := "trylock"
	if r.Patience > 0 {
		op = "trylockqueued" // counted apart (see Calls)
	}
	var g driver.Grant
	var n notice
	err := c.call(ctx, op, func() { g, n = c.store.tryLock(r) })
	n.send()
	if err != nil {
		return driver.Grant{}, err
	}
	return g, nil
}

// Unlock implements driver.Backend.
func (c *Client) Unlock(ctx context.Context, key, owner string) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	return c.unlock(ctx, key, owner, 0, driver.Successor{})
}

// UnlockHold implements driver.HoldUnlocker: Unlock of owner's hold whose
// fencing token is token. It counts as an Unlock call (see Calls).
func (c *Client) UnlockHold(ctx context.Context, key, owner string, token uint64) error {
	if err := driver.CheckToken(key, owner, token); err != nil {
		return err
	}
	return c.unlock(ctx, key, owner, token, driver.Successor{})
}

// unlock drops owner's hold on key whose token is token (0: any); the
// last one is passed to next if it names a waiter (see UnlockTo).
func (c *Client) unlock(ctx context.Context, key, owner string, token uint64, next driver.Successor) error {
	var result error
	var n notice
	err := c.call(ctx, "unlock", func() { n, result = c.store.unlock(key, owner, token, next) })
	n.send()
	if err != nil {
		return err
	}
	return result
}

// Expire implements driver.Backend.
func (c *Client) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	if err := driver.CheckLease(key, owner, ttl); err != nil {
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
			if errs[i] = driver.CheckLease(r.Key, r.Owner, r.TTL); errs[i] == nil {
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

// Close implements driver.Backend: later calls fail with driver.ErrClosed,
// calls sleeping out an injected latency end at once (without running), and
// once the calls in flight have returned the client's watchers are
// stopped. Locks it holds stay until they expire.
func (c *Client) Close() error {
	return c.guard.Close(nil, func() error {
		c.mu.Lock()
		ws := c.watchers
		c.watchers = nil
		c.mu.Unlock()
		for w, what := range ws {
			c.store.removeWatcher(what, w)
		}
		return nil
	})
}

// Calls returns how many calls of op ("trylock", "unlock", "expire",
// "expirebatch", "inspect", "forceunlock", "watch", "fence",
// "trylockqueued", "dequeue", "watchturn") the client has received, failed
// ones included, its views' calls among them (see Share). UnlockHold and
// UnlockTo count as "unlock", Leave as "dequeue", WatchTurns as
// "watchturn".
func (c *Client) Calls(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[op]
}
