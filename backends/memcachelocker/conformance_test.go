package memcachelocker_test

import (
	"context"
	"testing"
	"time"

	_ "github.com/distlock/distlock/backends/memcachelocker"
	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/memcachedtest"
	"github.com/distlock/distlock/internal/tcpproxy"
)

// harness makes clients of one memcached server, each through a TCP proxy
// of its own so that it can be cut off.
type harness struct {
	clients *tcpproxy.Clients
}

func (h *harness) NewBackend(ctx context.Context) (driver.Backend, error) {
	b, err := h.clients.Connect(func(addr string) (any, error) {
		// A client opened from a URL is the backend's own: Close closes it.
		return driver.Open(ctx, "memcache://"+addr+"/?prefix=conformance:")
	})
	if err != nil {
		return nil, err
	}
	return b.(driver.Backend), nil
}

// Granularity is memcached's: expiry counts in whole seconds.
func (h *harness) Granularity() time.Duration { return time.Second }

func (h *harness) Close() { h.clients.Close() }

// Partition cuts the client's connections and refuses new ones.
func (h *harness) Partition(b driver.Backend) error { return h.clients.Cut(b) }

func (h *harness) Heal(b driver.Backend) error { return h.clients.Heal(b) }

// Stall holds the client's connections open and forwards nothing.
func (h *harness) Stall(b driver.Backend) error { return h.clients.Stall(b) }

// Resume lets the stalled connections go on.
func (h *harness) Resume(b driver.Backend) error { return h.clients.Heal(b) }

// NewUnreachableBackend opens a backend from a URL of addr, as a user
// would.
func (h *harness) NewUnreachableBackend(ctx context.Context, addr string) (driver.Backend, error) {
	return driver.Open(ctx, "memcache://"+addr)
}

var (
	_ conformance.Partitioner = (*harness)(nil)
	_ conformance.Staller     = (*harness)(nil)
	_ conformance.Unreachable = (*harness)(nil)
)

// The suite skips ReleaseNotification: memcached cannot notify, and waiting
// Mutexes poll.
func TestConformance(t *testing.T) {
	conformance.Run(t, func(context.Context, *testing.T) (conformance.Harness, error) {
		return &harness{clients: tcpproxy.NewClients(memcachedtest.Start(t).Addr())}, nil
	})
}
