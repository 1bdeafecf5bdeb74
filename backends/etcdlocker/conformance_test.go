package etcdlocker_test

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	_ "github.com/distlock/distlock/backends/etcdlocker"
	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/internal/tcpproxy"
	"github.com/distlock/distlock/locker"
)

// harness makes clients of one embedded etcd server, each through a TCP
// proxy of its own so that it can be cut off.
type harness struct {
	target string // the server's host:port

	mu      sync.Mutex
	proxies map[locker.Backend]*tcpproxy.Proxy
}

func newHarness(t *testing.T) *harness {
	c := etcdtest.Start(t)
	u, err := url.Parse(c.Endpoints()[0])
	if err != nil {
		t.Fatal(err)
	}
	return &harness{target: u.Host, proxies: make(map[locker.Backend]*tcpproxy.Proxy)}
}

func (h *harness) NewBackend(ctx context.Context) (locker.Backend, error) {
	p, err := tcpproxy.Start(h.target)
	if err != nil {
		return nil, err
	}
	// A client opened from a URL is the backend's own: Close closes it.
	b, err := locker.Open(ctx, "etcd://"+p.Addr()+"/?prefix=conformance/&dial_timeout=2s")
	if err != nil {
		p.Close()
		return nil, err
	}
	h.mu.Lock()
	h.proxies[b] = p
	h.mu.Unlock()
	return b, nil
}

// Granularity is etcd's: leases count in whole seconds, and the test
// server's minimum lease (etcdtest.MinLeaseTTL) is one second too, so every
// lease is rounded up to a multiple of a second and no further.
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

func TestConformance(t *testing.T) {
	if etcdtest.MinLeaseTTL > time.Second {
		t.Fatalf("the harness's granularity assumes a 1 s minimum lease, the server's is %v", etcdtest.MinLeaseTTL)
	}
	conformance.Run(t, func(context.Context, *testing.T) (conformance.Harness, error) {
		return newHarness(t), nil
	})
}
