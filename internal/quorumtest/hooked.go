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
// may move a ManualClock to make the call take simulated time. Its other
// methods are the client's.
type Hooked struct {
	*memlocker.Client

	mu   sync.Mutex
	hook func(op string) error
}

// NewHooked returns a hooked client of s.
func NewHooked(s *memlocker.Store) *Hooked {
	return &Hooked{Client: s.Client()}
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
	return h.Client.TryLock(ctx, r)
}

// Unlock runs the hook, then the client's Unlock.
func (h *Hooked) Unlock(ctx context.Context, key, owner string) error {
	if err := h.run("unlock"); err != nil {
		return err
	}
	return h.Client.Unlock(ctx, key, owner)
}

// Expire runs the hook, then the client's Expire.
func (h *Hooked) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	if err := h.run("expire"); err != nil {
		return err
	}
	return h.Client.Expire(ctx, key, owner, ttl)
}

// Fence runs the hook, then the client's Fence.
func (h *Hooked) Fence(ctx context.Context, key, owner string, token uint64) error {
	if err := h.run("fence"); err != nil {
		return err
	}
	return h.Client.Fence(ctx, key, owner, token)
}

// Bare hides every optional capability of a backend: only the
// driver.Backend methods remain, as with a store that has none.
type Bare struct {
	driver.Backend
}
