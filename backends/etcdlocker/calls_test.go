package etcdlocker_test

import (
	"context"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
)

// criticalKey marks the context of the calls whose etcd requests a
// callCounter counts as the caller's: requests made on any other context
// are the backend's background work.
type criticalKey struct{}

// critical marks ctx as the caller's.
func critical(ctx context.Context) context.Context {
	return context.WithValue(ctx, criticalKey{}, true)
}

// callCounter counts the gRPC requests (unary calls and streams) a client
// sends, by method, split into those made on a critical context and the
// rest.
type callCounter struct {
	mu         sync.Mutex
	onCritical map[string]int
	all        map[string]int
}

func newCallCounter() *callCounter {
	return &callCounter{onCritical: map[string]int{}, all: map[string]int{}}
}

func (c *callCounter) note(ctx context.Context, method string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all[method]++
	if ctx.Value(criticalKey{}) != nil {
		c.onCritical[method]++
	}
}

// client returns a client of cluster whose requests c counts.
func (c *callCounter) client(t *testing.T, cluster *etcdtest.Cluster) *clientv3.Client {
	t.Helper()
	cfg := etcdtest.ClientConfig(cluster.Endpoints()...)
	cfg.DialOptions = []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			c.note(ctx, method)
			return invoker(ctx, method, req, reply, cc, opts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			c.note(ctx, method)
			return streamer(ctx, desc, cc, method, opts...)
		}),
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

// reset forgets the counts so far.
func (c *callCounter) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.onCritical)
	clear(c.all)
}

// critical returns the requests counted on critical contexts, by method.
func (c *callCounter) critical() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.onCritical)
}

// total returns every request counted, by method.
func (c *callCounter) total() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.all)
}

// sum adds up the counts of m.
func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// The etcd methods a lock and unlock may call.
const (
	txnMethod    = "/etcdserverpb.KV/Txn"
	rangeMethod  = "/etcdserverpb.KV/Range"
	grantMethod  = "/etcdserverpb.Lease/LeaseGrant"
	revokeMethod = "/etcdserverpb.Lease/LeaseRevoke"
)

// An uncontended lock and unlock costs two transactions on the caller's
// path once the backend has a shared lease of the length asked for: the
// lease grants, and the revocations of leases no key uses, happen in the
// background. The first cycle, with no shared lease yet, grants one.
func TestUncontendedCycleCalls(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	clock := newManualClock() // the shared lease stays young
	counter := newCallCounter()
	b := newClientBackend(t, counter.client(t, c), clock.option())
	other := c.Client(t)
	const ttl = 10 * time.Second
	cycle := func(ctx context.Context) {
		t.Helper()
		g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: ttl})
		require.NoError(t, err)
		require.True(t, g.Acquired)
		assert.Equal(t, 1, g.Holds)
		resp, err := other.Get(ctx, "distlock/k")
		require.NoError(t, err)
		require.Len(t, resp.Kvs, 1, "TryLock must have written the key")
		require.NoError(t, b.Unlock(ctx, "k", "o"))
		resp, err = other.Get(ctx, "distlock/k")
		require.NoError(t, err)
		require.Empty(t, resp.Kvs, "Unlock must have deleted the key")
	}

	cycle(critical(ctx))
	assert.Equal(t, map[string]int{grantMethod: 1, txnMethod: 2}, counter.critical(),
		"the first cycle grants its lease, then one transaction each to lock and unlock")
	for range 3 {
		counter.reset()
		cycle(critical(ctx))
		assert.Equal(t, map[string]int{txnMethod: 2}, counter.critical(),
			"with a shared lease, locking and unlocking are one transaction each")
	}
}

// Over many cycles in real time, across several windows of the shared
// leases, every etcd call is accounted for: two transactions per cycle, no
// reads, and about one lease grant and one revocation per second, nearly
// all of them in the background. Close leaves no lease behind.
func TestCycleCallsInAll(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	counter := newCallCounter()
	b := newClientBackend(t, counter.client(t, c))
	start := time.Now()
	cycles := 0
	for time.Since(start) < 2500*time.Millisecond {
		g, err := b.TryLock(critical(ctx), driver.Request{Key: "k", Owner: "o", TTL: 10 * time.Second})
		require.NoError(t, err)
		require.True(t, g.Acquired)
		require.NoError(t, b.Unlock(critical(ctx), "k", "o"))
		cycles++
	}
	seconds := int(time.Since(start)/time.Second) + 1
	onPath := counter.critical()
	require.NoError(t, b.Close())
	total := counter.total()
	t.Logf("%d cycles in %v: %v on the callers' path, %v in all", cycles, time.Since(start), onPath, total)
	assert.Equal(t, 2*cycles, total[txnMethod], "one transaction to lock, one to unlock: %v", total)
	assert.Equal(t, 2*cycles, onPath[txnMethod])
	assert.Zero(t, total[rangeMethod], "Unlock must not read the key it wrote: %v", total)
	// A shared lease of 10 s is handed out for a second; the next one is
	// granted when three quarters of that have passed.
	assert.LessOrEqual(t, total[grantMethod], 2*seconds+1, "grants: %v", total)
	assert.LessOrEqual(t, onPath[grantMethod], seconds, "grants on the callers' path: %v", onPath)
	assert.Zero(t, onPath[revokeMethod], "revocations on the callers' path: %v", onPath)
	assert.Equal(t, total[grantMethod], total[revokeMethod], "every lease granted is revoked by Close: %v", total)
	assert.Equal(t, total[txnMethod]+total[grantMethod]+total[revokeMethod], sum(total), "no other calls: %v", total)
	assertNoLeases(ctx, t, c)
}

// assertNoLeases checks that the cluster has no lease left.
func assertNoLeases(ctx context.Context, t *testing.T, c *etcdtest.Cluster) {
	t.Helper()
	resp, err := c.Client(t).Leases(ctx)
	require.NoError(t, err)
	assert.Empty(t, resp.Leases, "leases left on the cluster")
}
