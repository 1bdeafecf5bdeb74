package pglocker_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/pglocker"
	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/pgtest"
	"github.com/distlock/distlock/internal/tcpproxy"
)

// harness serves clients of one server, each through a proxy of its own
// (its pool and its listening connection alike), so the suite can cut or
// stall one client.
type harness struct {
	srv *pgtest.Server

	mu      sync.Mutex
	proxies map[driver.Backend]*tcpproxy.Proxy
}

func newHarness(srv *pgtest.Server) *harness {
	return &harness{srv: srv, proxies: make(map[driver.Backend]*tcpproxy.Proxy)}
}

func (h *harness) NewBackend(ctx context.Context) (driver.Backend, error) {
	p, err := tcpproxy.Start(h.srv.Addr())
	if err != nil {
		return nil, err
	}
	b, err := driver.Open(ctx, h.srv.URL(p.Addr()))
	if err != nil {
		_ = p.Close()
		return nil, err
	}
	h.mu.Lock()
	h.proxies[b] = p
	h.mu.Unlock()
	return b, nil
}

func (h *harness) Granularity() time.Duration { return time.Millisecond }

func (h *harness) proxy(b driver.Backend) (*tcpproxy.Proxy, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.proxies[b]
	if !ok {
		return nil, fmt.Errorf("not a backend of this harness: %T", b)
	}
	return p, nil
}

func (h *harness) Partition(b driver.Backend) error { return h.with(b, (*tcpproxy.Proxy).Cut) }

func (h *harness) Heal(b driver.Backend) error { return h.with(b, (*tcpproxy.Proxy).Heal) }

// Stall makes b's connections, open and new, forward nothing.
func (h *harness) Stall(b driver.Backend) error { return h.with(b, (*tcpproxy.Proxy).Stall) }

// Resume is Heal: a stalled connection goes on with what it held.
func (h *harness) Resume(b driver.Backend) error { return h.Heal(b) }

func (h *harness) with(b driver.Backend, f func(*tcpproxy.Proxy)) error {
	p, err := h.proxy(b)
	if err != nil {
		return err
	}
	f(p)
	return nil
}

var (
	_ conformance.Partitioner = (*harness)(nil)
	_ conformance.Staller     = (*harness)(nil)
	_ conformance.Unreachable = (*harness)(nil)
)

// NewUnreachableBackend opens a backend from a URL of addr, as a user
// would.
func (h *harness) NewUnreachableBackend(ctx context.Context, addr string) (driver.Backend, error) {
	return driver.Open(ctx, "postgres://postgres@"+addr+"/postgres?sslmode=disable")
}

func (h *harness) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for b, p := range h.proxies {
		_ = b.Close()
		_ = p.Close()
	}
}

// newPool returns a pool of url, closed with the test.
func newPool(t testing.TB, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// newBackend returns a backend over a pool of srv's superuser, both closed
// with the test.
func newBackend(t testing.TB, srv *pgtest.Server, opts ...pglocker.Option) *pglocker.Backend {
	t.Helper()
	b, err := pglocker.New(newPool(t, srv.URL("")), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() }) // before the pool's Close
	return b
}
