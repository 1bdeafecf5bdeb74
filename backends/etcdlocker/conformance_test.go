package etcdlocker_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	_ "github.com/distlock/distlock/backends/etcdlocker"
	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/internal/tcpproxy"
)

// harness makes clients of one embedded etcd server, each through a TCP
// proxy of its own so that it can be cut off.
type harness struct {
	clients *tcpproxy.Clients
}

func newHarness(t *testing.T) *harness {
	c := etcdtest.Start(t)
	u, err := url.Parse(c.Endpoints()[0])
	if err != nil {
		t.Fatal(err)
	}
	return &harness{clients: tcpproxy.NewClients(u.Host)}
}

func (h *harness) NewBackend(ctx context.Context) (driver.Backend, error) {
	b, err := h.clients.Connect(func(addr string) (any, error) {
		// A client opened from a URL is the backend's own: Close closes it.
		return driver.Open(ctx, "etcd://"+addr+"/?prefix=conformance/&dial_timeout=2s")
	})
	if err != nil {
		return nil, err
	}
	return b.(driver.Backend), nil
}

// Granularity is etcd's: leases count in whole seconds, and the test
// server's minimum lease (etcdtest.MinLeaseTTL) is one second too, so every
// lease is rounded up to a multiple of a second and no further.
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
	return driver.Open(ctx, "etcd://"+addr+"/?dial_timeout=1s")
}

var (
	_ conformance.Partitioner = (*harness)(nil)
	_ conformance.Staller     = (*harness)(nil)
	_ conformance.Unreachable = (*harness)(nil)
)

func TestConformance(t *testing.T) {
	if etcdtest.MinLeaseTTL > time.Second {
		t.Fatalf("the harness's granularity assumes a 1 s minimum lease, the server's is %v", etcdtest.MinLeaseTTL)
	}
	conformance.Run(t, func(context.Context, *testing.T) (conformance.Harness, error) {
		return newHarness(t), nil
	})
}
