package redlock_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/distlock/distlock/backends/etcdlocker" // etcd://
	_ "github.com/distlock/distlock/backends/pglocker"   // postgres://
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/internal/pgtest"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/tcpproxy"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/redlock"
)

// proxiedStores are member stores of any kind, each client of which opens
// a URL of its store through a TCP proxy of its own, as a program would.
type proxiedStores struct {
	targets     []string                   // store addresses
	urls        []func(addr string) string // a URL of store i at addr
	granularity time.Duration

	mu      sync.Mutex
	proxies map[driver.Backend]*tcpproxy.Proxy
}

var _ quorumtest.Stores = (*proxiedStores)(nil)

// pgMembers starts two PostgreSQL servers and a Redis, and an etcd when
// withEtcd, and returns them as member stores; everything stops when the
// test ends.
func pgMembers(t *testing.T, withEtcd bool) *proxiedStores {
	t.Helper()
	pg := func(srv *pgtest.Server) func(string) string { return srv.URL }
	pg1, pg2 := pgtest.Start(t), pgtest.Start(t)
	redis := redistest.Start(t)
	s := &proxiedStores{
		targets: []string{pg1.Addr(), pg2.Addr(), redis.Addr()},
		urls: []func(string) string{pg(pg1), pg(pg2),
			func(a string) string { return "redis://" + a }},
		granularity: time.Millisecond,
		proxies:     make(map[driver.Backend]*tcpproxy.Proxy),
	}
	if withEtcd {
		s.targets = append(s.targets, strings.TrimPrefix(etcdtest.Start(t).Endpoints()[0], "http://"))
		s.urls = append(s.urls, func(a string) string { return "etcd://" + a })
		s.granularity = time.Second // etcd's
	}
	t.Cleanup(s.close)
	return s
}

// warm makes each call of the suite once on b, as a running program's
// client has. A program opens its stores once and locks many times, but
// the suite opens a new client for each case, and a new PostgreSQL client
// is cold: the server starts a process for its connection (15–30 ms on a
// 2-core VM) and plans each statement on its first use (6–25 ms more),
// which together outlast the 50 ms a RedLock gives a member's call under
// the suite's 200 ms leases (combine.WithMemberTimeout).
func warm(ctx context.Context, b driver.Backend) error {
	key, owner := "warm:"+locker.NewOwner(), locker.NewOwner()
	_, err := b.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: time.Minute})
	if err == nil {
		err = b.Expire(ctx, key, owner, time.Minute)
	}
	if err == nil {
		err = b.Unlock(ctx, key, owner)
	}
	return err
}

func (s *proxiedStores) Len() int { return len(s.targets) }

func (s *proxiedStores) Granularity() time.Duration { return s.granularity }

func (s *proxiedStores) Client(ctx context.Context, i int) (driver.Backend, error) {
	p, err := tcpproxy.Start(s.targets[i])
	if err != nil {
		return nil, err
	}
	b, err := driver.Open(ctx, s.urls[i](p.Addr()))
	if err != nil {
		_ = p.Close()
		return nil, err
	}
	if err := warm(ctx, b); err != nil {
		_ = b.Close()
		_ = p.Close()
		return nil, err
	}
	s.mu.Lock()
	s.proxies[b] = p
	s.mu.Unlock()
	return b, nil
}

func (s *proxiedStores) Partition(b driver.Backend) error { return s.with(b, (*tcpproxy.Proxy).Cut) }

func (s *proxiedStores) Heal(b driver.Backend) error { return s.with(b, (*tcpproxy.Proxy).Heal) }

func (s *proxiedStores) Stall(b driver.Backend) error { return s.with(b, (*tcpproxy.Proxy).Stall) }

func (s *proxiedStores) Resume(b driver.Backend) error { return s.with(b, (*tcpproxy.Proxy).Heal) }

func (s *proxiedStores) Unreachable(ctx context.Context, i int, addr string) (driver.Backend, error) {
	return driver.Open(ctx, s.urls[i](addr))
}

func (s *proxiedStores) with(b driver.Backend, f func(*tcpproxy.Proxy)) error {
	s.mu.Lock()
	p, ok := s.proxies[b]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("not a client of these stores: %T", b)
	}
	f(p)
	return nil
}

func (s *proxiedStores) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for b, p := range s.proxies {
		_ = b.Close()
		_ = p.Close()
	}
}

// TestConformancePostgresRedis runs the backend contract on a RedLock of
// two PostgreSQL servers and a Redis. Redis is the one member that fences,
// so every grant holds it. (Without etcd, whose whole seconds would make
// the suite's leases a thousand times longer.)
func TestConformancePostgresRedis(t *testing.T) {
	stores := pgMembers(t, false)
	conformance.Run(t, func(context.Context, *testing.T) (conformance.Harness, error) {
		return quorumtest.NewHarness(stores, func(members []driver.Backend) (driver.Backend, error) {
			return redlock.New(members, combine.WithRestartGuard(0))
		}), nil
	})
}

// TestPostgresMembers locks through a Store over a RedLock of PostgreSQL,
// Redis and etcd members: holders follow one another with rising tokens,
// every member holds the lock for the holder, and the same server twice
// (one database by two names, or two databases) is refused as two members.
func TestPostgresMembers(t *testing.T) {
	ctx := context.Background()
	stores := pgMembers(t, true)
	members := make([]driver.Backend, stores.Len())
	for i := range members {
		b, err := stores.Client(ctx, i)
		require.NoError(t, err)
		members[i] = b
	}
	rl := newRL(t, members, combine.WithRestartGuard(0))
	store := locker.NewStore(rl)
	t.Cleanup(func() { _ = store.Close() })

	var last uint64
	for i := range 3 {
		m, err := store.Mutex("pg-mixed")
		require.NoError(t, err)
		l, err := m.Lock(ctx)
		require.NoError(t, err, "holder %d", i)
		assert.Greater(t, l.Token(), last, "holder %d", i)
		last = l.Token()
		for j, b := range members {
			st, err := b.(driver.Inspector).Inspect(ctx, "pg-mixed")
			require.NoError(t, err, "member %d", j)
			assert.Equal(t, m.Owner(), st.Owner, "member %d holds the lock for the holder", j)
		}
		require.NoError(t, l.Unlock(ctx))
	}

	direct := stores.urls[0](stores.targets[0])
	once, err := driver.Open(ctx, direct)
	require.NoError(t, err)
	defer once.Close()
	again, err := driver.Open(ctx, strings.Replace(direct, "127.0.0.1", "localhost", 1))
	require.NoError(t, err)
	defer again.Close()
	_, err = redlock.New([]driver.Backend{once, again, members[2]})
	assert.ErrorIs(t, err, driver.ErrInvalid, "two clients of one database are one member")
	other, err := driver.Open(ctx, strings.Replace(direct, "/postgres?", "/template1?", 1))
	require.NoError(t, err)
	defer other.Close()
	_, err = redlock.New([]driver.Backend{once, other, members[2]})
	assert.ErrorIs(t, err, driver.ErrInvalid, "two databases of one server fail together: one member")
}
