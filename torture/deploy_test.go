package torture

import (
	"context"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/backends/etcdlocker"
	"github.com/distlock/distlock/backends/memcachelocker"
	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/internal/memcachedtest"
	"github.com/distlock/distlock/internal/pgtest"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/tcpproxy"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/redlock"
)

// Leases. Short, so that faults cost holders their leases within a run;
// one second where a member counts leases in whole seconds.
const (
	redisLease  = 600 * time.Millisecond
	coarseLease = time.Second
	// restartGuard covers the longest lease taken on the Redis members
	// (a RedLock's guard is never shorter than the attempt's lease anyway).
	restartGuard = time.Second
)

// config is a lock configuration: how to start its servers, and how to
// make one client's backend over them.
type config struct {
	name   string
	deploy func(t *testing.T) *deployment
}

// deployment is a configuration's running servers, and the proxies
// between each client and each server.
type deployment struct {
	lease time.Duration
	redis []*redistest.Server
	mc    *memcachedtest.Server
	etcd  *etcdtest.Cluster
	pg    *pgtest.Server
	mem   *memlocker.Store
	// memClock is the mem store's clock, moved on in real time until a
	// fault makes it jump.
	memClock *memlocker.ManualClock
	// feeds are the proxies a replica follows its primary through, by
	// primary; primary is the index in redis of the primary now. Both
	// are for a replicated deployment only.
	feeds   []*tcpproxy.Proxy
	primary atomic.Int32
	// guard is a RedLock's restart guard; 0 when it has none.
	guard time.Duration
	// newBackend makes client i's backend, its connections through
	// proxies of its own.
	newBackend func(t *testing.T, l *links, i int) driver.Backend
}

// store returns client i's Store over a backend of its own, as the
// client's process would make it; the Store, and with it the backend, is
// closed when the test ends.
func (d *deployment) store(t *testing.T, l *links, i int) *locker.Store {
	t.Helper()
	s := locker.NewStore(d.newBackend(t, l, i))
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// links are the proxies between the clients of one scenario and the
// servers, so that a fault can cut one client off.
type links struct {
	mu      sync.Mutex
	proxies map[int][]*tcpproxy.Proxy // by client
}

// proxy starts a proxy from client i to target, closed when the test ends.
func (l *links) proxy(t *testing.T, i int, target string) *tcpproxy.Proxy {
	t.Helper()
	p, err := tcpproxy.Start(target)
	if err != nil {
		t.Fatalf("proxy to %s: %v", target, err)
	}
	t.Cleanup(func() { _ = p.Close() })
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.proxies == nil {
		l.proxies = make(map[int][]*tcpproxy.Proxy)
	}
	l.proxies[i] = append(l.proxies[i], p)
	return p
}

// of returns client i's proxies.
func (l *links) of(i int) []*tcpproxy.Proxy {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*tcpproxy.Proxy(nil), l.proxies[i]...)
}

// redisBackend is client i's backend on one Redis server, through a proxy.
func (d *deployment) redisBackend(t *testing.T, l *links, i int, s *redistest.Server) *redislocker.Backend {
	t.Helper()
	p := l.proxy(t, i, s.Addr())
	dialer := net.Dialer{Timeout: 300 * time.Millisecond}
	c := redis.NewClient(&redis.Options{
		Addr: s.Addr(),
		Dialer: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, p.Addr())
		},
		ContextTimeoutEnabled: true,
		DialTimeout:           300 * time.Millisecond,
		MaxRetries:            -1,
	})
	b, err := redislocker.New(c, redislocker.WithOwnedClient(), redislocker.WithPrefix("torture"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// etcdBackend is client i's backend on the etcd cluster, through a proxy
// to each member.
func (d *deployment) etcdBackend(t *testing.T, l *links, i int) *etcdlocker.Backend {
	t.Helper()
	var eps []string
	for _, ep := range d.etcd.Endpoints() {
		p := l.proxy(t, i, strings.TrimPrefix(ep, "http://"))
		eps = append(eps, "http://"+p.Addr())
	}
	cfg := etcdtest.ClientConfig(eps...)
	cfg.DialTimeout = time.Second
	cli, err := clientv3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cli.Close() }) // after the backend's Close
	b, err := etcdlocker.New(cli)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// memcacheBackend is client i's backend on the memcached server, through a
// proxy.
func (d *deployment) memcacheBackend(t *testing.T, l *links, i int) *memcachelocker.Backend {
	t.Helper()
	p := l.proxy(t, i, d.mc.Addr())
	mc := memcache.New(p.Addr())
	mc.Timeout = 300 * time.Millisecond
	t.Cleanup(func() { _ = mc.Close() }) // after the backend's Close
	b, err := memcachelocker.New(mc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// startMem starts the mem store with a ManualClock that a goroutine moves
// on in real time until the test ends; faults make it jump.
func (d *deployment) startMem(t *testing.T) {
	d.memClock = memlocker.NewManualClock(time.Now())
	d.mem = memlocker.NewStore(memlocker.WithClock(d.memClock))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		last := time.Now()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-tick.C:
				// The store's clock trails real time by at most a
				// tick, so its leases end no earlier than the
				// holders' own deadlines.
				d.memClock.Advance(now.Sub(last))
				last = now
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

func newRedLock(t *testing.T, members []driver.Backend, opts ...combine.Option) driver.Backend {
	t.Helper()
	rl, err := redlock.New(members, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return rl
}

// The configurations.
var (
	singleRedis = &config{name: "redis", deploy: func(t *testing.T) *deployment {
		d := &deployment{lease: redisLease, redis: []*redistest.Server{redistest.Start(t)}}
		d.newBackend = func(t *testing.T, l *links, i int) driver.Backend { return d.redisBackend(t, l, i, d.redis[0]) }
		return d
	}}

	persistentRedis = &config{name: "redis-aof", deploy: func(t *testing.T) *deployment {
		d := &deployment{lease: redisLease, redis: []*redistest.Server{redistest.Start(t, redistest.WithAppendOnly())}}
		d.newBackend = func(t *testing.T, l *links, i int) driver.Backend { return d.redisBackend(t, l, i, d.redis[0]) }
		return d
	}}

	redLock = redLockOf("redlock", restartGuard)

	unguardedRedLock = redLockOf("redlock-noguard", 0)

	mixed = &config{name: "mixed", deploy: func(t *testing.T) *deployment {
		d := &deployment{lease: coarseLease, guard: restartGuard}
		d.redis = []*redistest.Server{redistest.Start(t), redistest.Start(t)}
		d.mc = memcachedtest.Start(t)
		d.etcd = etcdtest.Start(t)
		d.startMem(t)
		d.newBackend = func(t *testing.T, l *links, i int) driver.Backend {
			return newRedLock(t, []driver.Backend{
				d.redisBackend(t, l, i, d.redis[0]),
				d.redisBackend(t, l, i, d.redis[1]),
				d.etcdBackend(t, l, i),
				d.memcacheBackend(t, l, i),
				d.mem.Client(),
			}, combine.WithRestartGuard(restartGuard))
		}
		return d
	}}

	etcdCluster = &config{name: "etcd", deploy: func(t *testing.T) *deployment {
		d := &deployment{lease: coarseLease, etcd: etcdtest.StartCluster(t, 3)}
		d.newBackend = func(t *testing.T, l *links, i int) driver.Backend { return d.etcdBackend(t, l, i) }
		return d
	}}

	memStore = &config{name: "mem", deploy: func(t *testing.T) *deployment {
		d := &deployment{lease: redisLease}
		d.startMem(t)
		d.newBackend = func(*testing.T, *links, int) driver.Backend { return d.mem.Client() }
		return d
	}}
)

// redLockOf is a RedLock over five Redis servers without persistence,
// with the given restart guard (0: none).
func redLockOf(name string, guard time.Duration) *config {
	return &config{name: name, deploy: func(t *testing.T) *deployment {
		d := &deployment{lease: redisLease, guard: guard}
		for range 5 {
			d.redis = append(d.redis, redistest.Start(t))
		}
		d.newBackend = func(t *testing.T, l *links, i int) driver.Backend {
			return newRedLock(t, d.redisMembers(t, l, i), combine.WithRestartGuard(guard))
		}
		return d
	}}
}

// redisMembers are client i's backends on each Redis server, for a
// combinator over them.
func (d *deployment) redisMembers(t *testing.T, l *links, i int) []driver.Backend {
	t.Helper()
	members := make([]driver.Backend, len(d.redis))
	for j, s := range d.redis {
		members[j] = d.redisBackend(t, l, i, s)
	}
	return members
}
