package quorumtest

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
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/tcpproxy"
)

// Redis is a set of independent redis-server processes on 127.0.0.1,
// started by the test. Each client it makes reaches its server through a
// TCP proxy of its own, so that one client can be cut off.
type Redis struct {
	t       testing.TB
	servers []*redistest.Server

	mu      sync.Mutex
	proxies map[driver.Backend]*tcpproxy.Proxy
}

var _ Stores = (*Redis)(nil)

// StartRedis starts n servers with opts (no persistence unless
// redistest.WithAppendOnly) and stops them, with every proxy, when the test
// ends. A missing redis-server skips the test, or fails it when CI is set.
func StartRedis(t testing.TB, n int, opts ...redistest.Option) *Redis {
	t.Helper()
	r := &Redis{t: t, proxies: make(map[driver.Backend]*tcpproxy.Proxy)}
	for range n {
		r.servers = append(r.servers, redistest.Start(t, opts...))
	}
	t.Cleanup(r.closeProxies)
	return r
}

// Server returns server i, for faults: Kill, Restart, Stop.
func (r *Redis) Server(i int) *redistest.Server { return r.servers[i] }

// Len implements Stores.
func (r *Redis) Len() int { return len(r.servers) }

// Granularity implements Stores: Redis leases are exact to the
// millisecond.
func (r *Redis) Granularity() time.Duration { return time.Millisecond }

// Client implements Stores: a new backend on server i, through a new
// proxy. The backend is told the server's address and dials the proxy in
// its place, so that its Endpoint is the server's, as every client's of
// that server is: combinators order their members by endpoint, to agree
// on their gate and their line member (see package quorum).
func (r *Redis) Client(_ context.Context, i int) (driver.Backend, error) {
	p, err := tcpproxy.Start(r.servers[i].Addr())
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	c := redis.NewClient(&redis.Options{
		Addr: r.servers[i].Addr(),
		Dialer: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, p.Addr())
		},
		ContextTimeoutEnabled: true,
	})
	b, err := redislocker.New(c, redislocker.WithOwnedClient())
	if err != nil {
		_ = c.Close()
		_ = p.Close()
		return nil, err
	}
	r.mu.Lock()
	r.proxies[b] = p
	r.mu.Unlock()
	return b, nil
}

// Clients returns a new client of every server, closed when the test ends.
func (r *Redis) Clients(t testing.TB) []driver.Backend {
	t.Helper()
	bs := make([]driver.Backend, len(r.servers))
	for i := range bs {
		b, err := r.Client(context.Background(), i)
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		bs[i] = b
	}
	return bs
}

func (r *Redis) proxy(b driver.Backend) (*tcpproxy.Proxy, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.proxies[b]
	if !ok {
		return nil, fmt.Errorf("not a client of these servers: %T", b)
	}
	return p, nil
}

// Partition implements Stores: it cuts the client's proxy.
func (r *Redis) Partition(b driver.Backend) error {
	p, err := r.proxy(b)
	if err != nil {
		return err
	}
	p.Cut()
	return nil
}

// Heal implements Stores.
func (r *Redis) Heal(b driver.Backend) error {
	p, err := r.proxy(b)
	if err != nil {
		return err
	}
	p.Heal()
	return nil
}

// Stall implements Stores: the client's proxy stops passing bytes on.
func (r *Redis) Stall(b driver.Backend) error {
	p, err := r.proxy(b)
	if err != nil {
		return err
	}
	p.Stall()
	return nil
}

// HoldRequests holds back what the client sends on its open connections,
// until Heal delivers it: requests its client gave up on run late.
func (r *Redis) HoldRequests(b driver.Backend) error {
	p, err := r.proxy(b)
	if err != nil {
		return err
	}
	p.StallOpenRequests()
	return nil
}

// Resume implements Stores.
func (r *Redis) Resume(b driver.Backend) error { return r.Heal(b) }

// Unreachable implements Stores: a client of a server at addr, opened by
// URL as a program would, with no proxy.
func (r *Redis) Unreachable(ctx context.Context, _ int, addr string) (driver.Backend, error) {
	return driver.Open(ctx, "redis://"+addr)
}

func (r *Redis) closeProxies() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for b, p := range r.proxies {
		_ = b.Close()
		_ = p.Close()
	}
}

// State returns key's state on server i, read through a new client.
func (r *Redis) State(t testing.TB, i int, key string) driver.State {
	t.Helper()
	ctx := context.Background()
	c, err := r.Client(ctx, i)
	require.NoError(t, err)
	st, err := c.(driver.Inspector).Inspect(ctx, key)
	require.NoError(t, err)
	return st
}

// DirectClients returns a new client of every server that connects
// without a proxy (it cannot be partitioned), closed when the test ends:
// for benchmarks.
func (r *Redis) DirectClients(t testing.TB) []driver.Backend {
	t.Helper()
	bs := make([]driver.Backend, len(r.servers))
	for i, s := range r.servers {
		b, err := driver.Open(context.Background(), "redis://"+s.Addr())
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		bs[i] = b
	}
	return bs
}
