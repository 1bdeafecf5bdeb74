package redislocker_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/tcpproxy"
)

// proxyDialer routes one client's connections through TCP proxies, one per
// server address, so a test can cut that client off every server (a
// Cluster client dials the addresses the cluster reports).
type proxyDialer struct {
	mu      sync.Mutex
	proxies map[string]*tcpproxy.Proxy
	mode    tcpproxy.Mode // of new proxies
	closed  bool
}

func newProxyDialer() *proxyDialer {
	return &proxyDialer{proxies: make(map[string]*tcpproxy.Proxy)}
}

func (d *proxyDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil, fmt.Errorf("dialer closed")
	}
	p := d.proxies[addr]
	if p == nil {
		var err error
		if p, err = tcpproxy.Start(addr); err != nil {
			d.mu.Unlock()
			return nil, err
		}
		switch d.mode {
		case tcpproxy.Cut:
			p.Cut()
		case tcpproxy.Stalled:
			p.Stall()
		}
		d.proxies[addr] = p
	}
	d.mu.Unlock()
	var nd net.Dialer
	return nd.DialContext(ctx, network, p.Addr())
}

// each applies f to every proxy, under the lock.
func (d *proxyDialer) each(f func(*tcpproxy.Proxy)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, p := range d.proxies {
		f(p)
	}
}

func (d *proxyDialer) partition() { d.set(tcpproxy.Cut, (*tcpproxy.Proxy).Cut) }

func (d *proxyDialer) stall() { d.set(tcpproxy.Stalled, (*tcpproxy.Proxy).Stall) }

func (d *proxyDialer) heal() { d.set(tcpproxy.Open, (*tcpproxy.Proxy).Heal) }

// set puts every proxy, and those made later, in mode m.
func (d *proxyDialer) set(m tcpproxy.Mode, f func(*tcpproxy.Proxy)) {
	d.mu.Lock()
	d.mode = m
	d.mu.Unlock()
	d.each(f)
}

func (d *proxyDialer) close() {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.each(func(p *tcpproxy.Proxy) { _ = p.Close() })
}

// harness serves clients of one Redis deployment, each behind proxies of
// its own.
type harness struct {
	newClient func(dial func(context.Context, string, string) (net.Conn, error)) redis.UniversalClient

	mu      sync.Mutex
	dialers map[driver.Backend]*proxyDialer
}

func newHarness(newClient func(dial func(context.Context, string, string) (net.Conn, error)) redis.UniversalClient) *harness {
	return &harness{newClient: newClient, dialers: make(map[driver.Backend]*proxyDialer)}
}

func (h *harness) NewBackend(context.Context) (driver.Backend, error) {
	d := newProxyDialer()
	b, err := redislocker.New(h.newClient(d.dial), redislocker.WithOwnedClient())
	if err != nil {
		d.close()
		return nil, err
	}
	h.mu.Lock()
	h.dialers[b] = d
	h.mu.Unlock()
	return b, nil
}

func (h *harness) Granularity() time.Duration { return time.Millisecond }

func (h *harness) dialer(b driver.Backend) (*proxyDialer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	d, ok := h.dialers[b]
	if !ok {
		return nil, fmt.Errorf("not a backend of this harness: %T", b)
	}
	return d, nil
}

func (h *harness) Partition(b driver.Backend) error {
	d, err := h.dialer(b)
	if err != nil {
		return err
	}
	d.partition()
	return nil
}

func (h *harness) Heal(b driver.Backend) error {
	d, err := h.dialer(b)
	if err != nil {
		return err
	}
	d.heal()
	return nil
}

// Stall makes b's connections, open and new, forward nothing.
func (h *harness) Stall(b driver.Backend) error {
	d, err := h.dialer(b)
	if err != nil {
		return err
	}
	d.stall()
	return nil
}

// Resume is Heal: a stalled connection goes on with what it held.
func (h *harness) Resume(b driver.Backend) error { return h.Heal(b) }

var _ conformance.Staller = (*harness)(nil)

// NewUnreachableBackend opens a backend from a URL of addr, as a user
// would.
func (h *harness) NewUnreachableBackend(ctx context.Context, addr string) (driver.Backend, error) {
	return driver.Open(ctx, "redis://"+addr)
}

var _ conformance.Unreachable = (*harness)(nil)

func (h *harness) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for b, d := range h.dialers {
		_ = b.Close()
		d.close()
	}
}

// conformanceReadTimeout is the ReadTimeout of the conformance clients.
// go-redis ends a read that waits on the server by the context's deadline
// or the ReadTimeout, never when the context is cancelled: below the
// suite's margin, it lets the suite check that a cancelled call returns
// in time, which is the bound the package doc gives.
const conformanceReadTimeout = 500 * time.Millisecond

// standaloneClient returns a client factory for one server.
func standaloneClient(addr string) func(func(context.Context, string, string) (net.Conn, error)) redis.UniversalClient {
	return func(dial func(context.Context, string, string) (net.Conn, error)) redis.UniversalClient {
		return redis.NewClient(&redis.Options{Addr: addr, Dialer: dial, ContextTimeoutEnabled: true, ReadTimeout: conformanceReadTimeout})
	}
}

// clusterClient returns a client factory for a cluster.
func clusterClient(addrs []string) func(func(context.Context, string, string) (net.Conn, error)) redis.UniversalClient {
	return func(dial func(context.Context, string, string) (net.Conn, error)) redis.UniversalClient {
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, Dialer: dial, ContextTimeoutEnabled: true, ReadTimeout: conformanceReadTimeout})
	}
}

// newBackend returns a backend on a direct client of addr, closed with the
// test.
func newBackend(t testing.TB, addr string, opts ...redislocker.Option) *redislocker.Backend {
	t.Helper()
	client := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
	b, err := redislocker.New(client, append(opts, redislocker.WithOwnedClient())...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// newClusterBackend returns a backend on a Cluster client, closed with the
// test.
func newClusterBackend(t testing.TB, addrs []string, opts ...redislocker.Option) *redislocker.Backend {
	t.Helper()
	client := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, ContextTimeoutEnabled: true})
	b, err := redislocker.New(client, append(opts, redislocker.WithOwnedClient())...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// proxiedBackend returns a backend whose client reaches srv through a
// proxy the test controls.
func proxiedBackend(t testing.TB, srv *redistest.Server, opts ...redislocker.Option) (*redislocker.Backend, *tcpproxy.Proxy) {
	t.Helper()
	p, err := tcpproxy.Start(srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return newBackend(t, p.Addr(), opts...), p
}
