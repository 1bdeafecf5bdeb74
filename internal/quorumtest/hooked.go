package quorumtest

import (
	"context"
	"sync"
	"time"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

// Hooked is a mem client whose TryLock, Unlock, Expire and Fence calls
// first run a hook, for faults memlocker's own cannot aim at one operation:
// a hook that returns an error fails the call before it runs, and a hook
// may move a ManualClock to make the call take simulated time. It passes
// through the client's Watch, Inspect, ForceUnlock, Granularity, Endpoint
// and Calls, and nothing else: it is no driver.BatchExpirer (a batch would
// bypass the expire hook; the kit renews through Expire instead) and no
// driver.Queuer. It holds the client in a named field, not embedded, so
// that no capability it does not mean to pass is promoted.
type Hooked struct {
	c *memlocker.Client

	mu   sync.Mutex
	hook func(op string) error
}

var (
	_ driver.Backend       = (*Hooked)(nil)
	_ driver.Fencer        = (*Hooked)(nil)
	_ driver.Notifier      = (*Hooked)(nil)
	_ driver.Inspector     = (*Hooked)(nil)
	_ driver.ForceUnlocker = (*Hooked)(nil)
	_ driver.Granular      = (*Hooked)(nil)
	_ driver.Endpointer    = (*Hooked)(nil)
)

// NewHooked returns a hooked client of s.
func NewHooked(s *memlocker.Store) *Hooked {
	return &Hooked{c: s.Client()}
}

// SetHook installs hook (nil removes it). It receives the operation:
// "trylock", "unlock", "expire" or "fence".
func (h *Hooked) SetHook(hook func(op string) error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hook = hook
}

func (h *Hooked) run(op string) error {
	h.mu.Lock()
	hook := h.hook
	h.mu.Unlock()
	if hook == nil {
		return nil
	}
	return hook(op)
}

// TryLock runs the hook, then the client's TryLock.
func (h *Hooked) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	if err := h.run("trylock"); err != nil {
		return driver.Grant{}, err
	}
	return h.c.TryLock(ctx, r)
}

// Unlock runs the hook, then the client's Unlock.
func (h *Hooked) Unlock(ctx context.Context, key, owner string) error {
	if err := h.run("unlock"); err != nil {
		return err
	}
	return h.c.Unlock(ctx, key, owner)
}

// Expire runs the hook, then the client's Expire.
func (h *Hooked) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	if err := h.run("expire"); err != nil {
		return err
	}
	return h.c.Expire(ctx, key, owner, ttl)
}

// Fence runs the hook, then the client's Fence.
func (h *Hooked) Fence(ctx context.Context, key, owner string, token uint64) error {
	if err := h.run("fence"); err != nil {
		return err
	}
	return h.c.Fence(ctx, key, owner, token)
}

// Watch is the client's.
func (h *Hooked) Watch(ctx context.Context, key string, fn func()) (func(), error) {
	return h.c.Watch(ctx, key, fn)
}

// Inspect is the client's.
func (h *Hooked) Inspect(ctx context.Context, key string) (driver.State, error) {
	return h.c.Inspect(ctx, key)
}

// ForceUnlock is the client's.
func (h *Hooked) ForceUnlock(ctx context.Context, key string) (bool, error) {
	return h.c.ForceUnlock(ctx, key)
}

// Granularity is the client's.
func (h *Hooked) Granularity() time.Duration { return h.c.Granularity() }

// Endpoint is the client's: a hooked client is a client of its store.
func (h *Hooked) Endpoint() string { return h.c.Endpoint() }

// Close closes the client.
func (h *Hooked) Close() error { return h.c.Close() }

// Bare hides every optional capability of a backend: it embeds the
// driver.Backend interface, whose four methods are all that is promoted,
// as with a store that has no capability.
type Bare struct {
	driver.Backend
}

// Calls is the client's count of op calls that reached the store (see
// memlocker.Client.Calls).
func (h *Hooked) Calls(op string) int { return h.c.Calls(op) }
