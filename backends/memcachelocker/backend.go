package memcachelocker

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/bradfitz/gomemcache/memcache"

	"github.com/distlock/distlock/driver"
)

// DefaultPrefix is the prefix of the backend's item keys unless WithPrefix
// sets another.
const DefaultPrefix = "distlock:"

// MaxLease is the longest lease the backend takes: memcached reads an
// expiry of more than 30 days as an absolute Unix time.
const MaxLease = 30*24*time.Hour - 2*time.Second

// maxPrefixLen keeps item keys within memcached's 250 bytes: the prefix is
// followed by "l:" or "t:" and 64 hex digits.
const maxPrefixLen = 250 - 2 - 2*sha256.Size

// tombstoneTTL is how long a released lock's tombstone stays, in seconds.
// A tombstone is free for the next owner; while it stays it remembers the
// last token, a floor for the counter should the counter be lost.
const tombstoneTTL = 60

// casRounds bounds how often one call re-reads an item that changed between
// its read and its cas.
const casRounds = 8

// errContended reports an item that kept changing under the call.
var errContended = errors.New("the lock item kept changing under the call")

// Backend is a driver.Backend over a memcached client. It is safe for
// concurrent use.
type Backend struct {
	mc        *memcache.Client
	ownClient bool
	prefix    string
	guard     driver.Guard
}

var (
	_ driver.Backend       = (*Backend)(nil)
	_ driver.Inspector     = (*Backend)(nil)
	_ driver.ForceUnlocker = (*Backend)(nil)
	_ driver.Granular      = (*Backend)(nil)
	_ driver.HoldUnlocker  = (*Backend)(nil)
)

// Option configures a Backend.
type Option func(*Backend) error

// WithPrefix puts the backend's items under prefix instead of
// DefaultPrefix. The prefix must be a valid start of a memcached key: at
// most 184 bytes, no spaces or control characters.
func WithPrefix(prefix string) Option {
	return func(b *Backend) error {
		if err := validPrefix(prefix); err != nil {
			return err
		}
		b.prefix = prefix
		return nil
	}
}

func validPrefix(prefix string) error {
	if len(prefix) > maxPrefixLen {
		return fmt.Errorf("memcachelocker: %w: prefix longer than %d bytes", driver.ErrInvalid, maxPrefixLen)
	}
	for i := 0; i < len(prefix); i++ {
		if c := prefix[i]; c <= ' ' || c == 0x7f {
			return fmt.Errorf("memcachelocker: %w: prefix %q has a space or control character", driver.ErrInvalid, prefix)
		}
	}
	return nil
}

// New returns a Backend over mc. Close leaves mc open: the caller closes it.
// It fails with driver.ErrInvalid when mc is nil or an option is invalid.
func New(mc *memcache.Client, opts ...Option) (*Backend, error) {
	if mc == nil {
		return nil, fmt.Errorf("memcachelocker: %w: nil client", driver.ErrInvalid)
	}
	b := &Backend{mc: mc, prefix: DefaultPrefix}
	for _, opt := range opts {
		if err := opt(b); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// Client returns the memcached client the backend uses.
func (b *Backend) Client() *memcache.Client { return b.mc }

// Prefix returns the prefix of the backend's item keys.
func (b *Backend) Prefix() string { return b.prefix }

// Granularity implements driver.Granular: memcached counts expiry in whole
// seconds.
func (b *Backend) Granularity() time.Duration { return time.Second }

// Close implements driver.Backend. Later calls return driver.ErrClosed. It
// waits for the calls in flight, which stop at their next memcached
// command: gomemcache's commands take no context, so each lasts at most the
// client's Timeout (500 ms by default), and that bounds Close's wait on a
// dead server. A backend opened from a URL then closes its client; one made
// with New does not.
func (b *Backend) Close() error {
	return b.guard.Close(nil, func() error {
		if !b.ownClient {
			return nil
		}
		if err := b.mc.Close(); err != nil {
			return fmt.Errorf("memcachelocker: closing the client: %w", err)
		}
		return nil
	})
}

// itemKeys returns the keys of lock name's item and of its token counter.
func (b *Backend) itemKeys(name string) (lock, counter string) {
	sum := sha256.Sum256([]byte(name))
	h := hex.EncodeToString(sum[:])
	return b.prefix + "l:" + h, b.prefix + "t:" + h
}

// LockKey returns the memcached key of lock name's item. Tests use it to
// evict a lock by hand.
func (b *Backend) LockKey(name string) string {
	lock, _ := b.itemKeys(name)
	return lock
}

// CounterKey returns the memcached key of lock name's token counter.
func (b *Backend) CounterKey(name string) string {
	_, counter := b.itemKeys(name)
	return counter
}

// expiration is the item expiry, in seconds, that keeps a lease of d: d
// rounded up, plus a second for memcached's coarse clock.
func expiration(d time.Duration) int32 {
	return int32((d+time.Second-1)/time.Second) + 1
}

// expirationUntil is the item expiry that keeps a hold until its recorded
// end, at least one second.
func expirationUntil(v lockItem, now time.Time) int32 {
	return max(expiration(v.remaining(now)), 1)
}

// checkMaxLease refuses a lease that memcached would read as an absolute
// time. It comes after the kit's checks.
func checkMaxLease(ttl time.Duration) error {
	if ttl > MaxLease {
		return fmt.Errorf("memcachelocker: %w: lease %v is longer than memcached's relative expiry allows (%v)", driver.ErrInvalid, ttl, MaxLease)
	}
	return nil
}

// live returns driver.ErrClosed once Close has begun, and the context's
// error once it has ended. A call checks it before each step that comes
// before its first write, so that a call in flight stops at its next
// memcached command when Close waits for it, having changed nothing.
func (b *Backend) live(ctx context.Context) error {
	if b.guard.Closed() {
		return driver.ErrClosed
	}
	return ctx.Err()
}

// newNonce returns a random acquisition identifier.
func newNonce() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// isCASMiss reports a cas that found the item changed or gone: the read
// is stale and the call reads again.
func isCASMiss(err error) bool {
	return errors.Is(err, memcache.ErrCASConflict) || errors.Is(err, memcache.ErrCacheMiss) || errors.Is(err, memcache.ErrNotStored)
}
