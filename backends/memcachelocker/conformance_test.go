package memcachelocker_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	_ "github.com/distlock/distlock/backends/memcachelocker"
	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/internal/memcachedtest"
	"github.com/distlock/distlock/internal/tcpproxy"
	"github.com/distlock/distlock/locker"
)

// harness makes clients of one memcached server, each through a TCP proxy
// of its own so that it can be cut off.
type harness struct {
	server *memcachedtest.Server

	mu      sync.Mutex
	proxies map[locker.Backend]*tcpproxy.Proxy
}

func (h *harness) NewBackend(ctx context.Context) (locker.Backend, error) {
	p, err := tcpproxy.Start(h.server.Addr())
	if err != nil {
		return nil, err
	}
	// A client opened from a URL is the backend's own: Close closes it.
	b, err := locker.Open(ctx, "memcache://"+p.Addr()+"/?prefix=conformance:")
	if err != nil {
		p.Close()
		return nil, err
	}
	h.mu.Lock()
	h.proxies[b] = p
	h.mu.Unlock()
	return b, nil
}

// Granularity is memcached's: expiry counts in whole seconds.
func (h *harness) Granularity() time.Duration { return time.Second }

func (h *harness) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.proxies {
		p.Close()
	}
}

func (h *harness) proxy(b locker.Backend) (*tcpproxy.Proxy, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.proxies[b]
	if !ok {
		return nil, fmt.Errorf("not a client of this harness: %T", b)
	}
	return p, nil
}

// Partition cuts the client's connections and refuses new ones.
func (h *harness) Partition(b locker.Backend) error {
	p, err := h.proxy(b)
	if err == nil {
		p.Cut()
	}
	return err
}

func (h *harness) Heal(b locker.Backend) error {
	p, err := h.proxy(b)
	if err == nil {
		p.Heal()
	}
	return err
}

var _ conformance.Partitioner = (*harness)(nil)

// The suite skips ReleaseNotification: memcached cannot notify, and waiting
// Mutexes poll.
func TestConformance(t *testing.T) {
	conformance.Run(t, func(context.Context, *testing.T) (conformance.Harness, error) {
		return &harness{server: memcachedtest.Start(t), proxies: make(map[locker.Backend]*tcpproxy.Proxy)}, nil
	})
}
