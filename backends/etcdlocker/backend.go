package etcdlocker

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/driver"
)

// DefaultPrefix is the prefix of lock keys unless WithPrefix sets another.
const DefaultPrefix = "distlock/"

// DefaultCallTimeout bounds each call of the backend unless WithCallTimeout
// sets another. The etcd client waits for a reachable server as long as its
// context lasts, and a Backend must not wait: so every call ends by this
// timeout, or by the caller's deadline when that is earlier, with an error
// that leaves the lock's state unknown.
const DefaultCallTimeout = 5 * time.Second

// maxLeaseSeconds is the longest lease etcd grants.
const maxLeaseSeconds = 9_000_000_000

// casRounds bounds how often one call re-reads a key that changed between
// its read and its guarded write (only concurrent calls of the same owner
// on other clients, or the lock ending meanwhile, do that).
const casRounds = 8

// Backend is a driver.Backend over an etcd client. It is safe for
// concurrent use.
type Backend struct {
	cli         *clientv3.Client
	ownClient   bool
	prefix      string
	callTimeout time.Duration

	// minTTL is the shortest lease, in seconds, the server has been seen to
	// grant; shorter requests are raised to it.
	minTTL atomic.Int64

	// clock reads the local monotonic time; tests replace it.
	clock func() time.Time
	// pool holds the shared leases TryLock binds keys to, hints the keys as
	// this backend last wrote them for Unlock, and bg the goroutines that
	// grant and revoke leases off the callers' paths.
	pool  leasePool
	hints holdHints
	bg    background

	// guard turns calls away after Close and lets Close wait for the calls
	// in flight; their contexts are bound to it (see call), so that Close
	// does not wait out a server that does not answer.
	guard driver.Guard

	mu      sync.Mutex // guards watches
	watches map[watchTarget]*keyWatch
}

var (
	_ driver.Backend       = (*Backend)(nil)
	_ driver.Notifier      = (*Backend)(nil)
	_ driver.Inspector     = (*Backend)(nil)
	_ driver.ForceUnlocker = (*Backend)(nil)
	_ driver.BatchExpirer  = (*Backend)(nil)
	_ driver.Granular      = (*Backend)(nil)
	_ driver.HoldUnlocker  = (*Backend)(nil)
)

// Option configures a Backend.
type Option func(*Backend) error

// WithPrefix puts lock keys under prefix instead of DefaultPrefix. An empty
// prefix is allowed: lock names are then the keys themselves.
func WithPrefix(prefix string) Option {
	return func(b *Backend) error {
		b.prefix = prefix
		return nil
	}
}

// WithCallTimeout bounds each call of the backend by d instead of
// DefaultCallTimeout. It fails with driver.ErrInvalid when d is not
// positive.
func WithCallTimeout(d time.Duration) Option {
	return func(b *Backend) error {
		if d <= 0 {
			return fmt.Errorf("etcdlocker: %w: non-positive call timeout %v", driver.ErrInvalid, d)
		}
		b.callTimeout = d
		return nil
	}
}

// call starts a call: after the close guard lets it in, it bounds ctx by
// the call timeout and by Close, and waits for a connection (see connect).
// When call returns nil, the caller must end the call with End.
func (b *Backend) call(ctx context.Context) (context.Context, driver.Call, error) {
	ctx, call, err := b.guard.Start(ctx, b.callTimeout)
	if err != nil {
		return ctx, call, err
	}
	if err := b.connect(ctx); err != nil {
		call.End()
		return ctx, driver.Call{}, failed(err)
	}
	return ctx, call, nil
}

// New returns a Backend over cli. Close stops the backend's watches and
// background work but leaves cli open: the caller closes it, after Close. It fails with driver.ErrInvalid
// when cli is nil.
func New(cli *clientv3.Client, opts ...Option) (*Backend, error) {
	if cli == nil {
		return nil, fmt.Errorf("etcdlocker: %w: nil client", driver.ErrInvalid)
	}
	b := &Backend{cli: cli, prefix: DefaultPrefix, callTimeout: DefaultCallTimeout, clock: time.Now, watches: make(map[watchTarget]*keyWatch)}
	for _, opt := range opts {
		if err := opt(b); err != nil {
			return nil, err
		}
	}
	b.minTTL.Store(1)
	return b, nil
}

// Client returns the etcd client the backend uses.
func (b *Backend) Client() *clientv3.Client { return b.cli }

// Prefix returns the prefix of the backend's lock keys.
func (b *Backend) Prefix() string { return b.prefix }

// Granularity implements driver.Granular: etcd leases count in whole
// seconds.
func (b *Backend) Granularity() time.Duration { return time.Second }

// Close implements driver.Backend: it cancels the calls in flight (their
// outcome is unknown) and waits for them, stops the backend's watches and
// its background work, revokes the leases no lock uses any more (within
// the call timeout; leases it cannot revoke run out by themselves), and, if
// the backend was opened from a URL, closes its client. Later calls return
// driver.ErrClosed. Locks stay until their leases end.
func (b *Backend) Close() error {
	return b.guard.Close(nil, func() error {
		b.mu.Lock()
		ws := b.watches
		b.watches = nil
		b.mu.Unlock()
		for _, w := range ws {
			w.cancel()
		}
		for _, w := range ws {
			<-w.done
		}
		b.stopBackground()
		if b.ownClient {
			if err := b.cli.Close(); err != nil {
				return fmt.Errorf("etcdlocker: closing the client: %w", err)
			}
		}
		return nil
	})
}

// etcdKey is the key of lock name.
func (b *Backend) etcdKey(name string) string { return b.prefix + name }

// leaseSeconds is the lease, in whole seconds, that ttl asks for: rounded up,
// and at least the server's minimum.
func (b *Backend) leaseSeconds(ttl time.Duration) int64 {
	s := int64((ttl + time.Second - 1) / time.Second)
	return max(s, b.minTTL.Load())
}

// noteGranted records the server's minimum lease when it raised a request.
func (b *Backend) noteGranted(asked, granted int64) {
	if granted > asked {
		for {
			cur := b.minTTL.Load()
			if granted <= cur || b.minTTL.CompareAndSwap(cur, granted) {
				return
			}
		}
	}
}

// checkLease is driver.CheckLease, and refuses a lease longer than etcd
// grants.
func checkLease(key, owner string, ttl time.Duration) error {
	if err := driver.CheckLease(key, owner, ttl); err != nil {
		return err
	}
	return checkMaxLease(ttl)
}

// checkMaxLease refuses a lease longer than etcd grants. It comes after the
// kit's checks.
func checkMaxLease(ttl time.Duration) error {
	if ttl > time.Duration(maxLeaseSeconds)*time.Second {
		return fmt.Errorf("etcdlocker: %w: lease %v is longer than etcd's longest (%d s)", driver.ErrInvalid, ttl, maxLeaseSeconds)
	}
	return nil
}

// remaining converts a TimeToLive answer (whole seconds left, truncated) to
// an upper bound on the remaining lease, capped at the granted lease.
func remaining(ttl, granted int64) time.Duration {
	if ttl < 0 {
		return 0
	}
	s := ttl + 1
	if granted > 0 {
		s = min(s, granted)
	}
	return time.Duration(min(s, math.MaxInt64/int64(time.Second))) * time.Second
}
