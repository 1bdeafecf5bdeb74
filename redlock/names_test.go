package redlock_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
)

// TestClientsThatNameTheStoresDifferentlyAllGetTheLock: RedLocks over the
// same servers pick their line member by the members' endpoints, so
// clients that name the servers differently (aliases, proxies) wait in
// different lines. Each line's waiter is refused by the others' line
// members while they reserve the lock for their own first waiters, and
// must still get the lock: none of four contending clients, each first in
// line at another server, waits out a 2 s budget, and each gets at least a
// third of its share of the holds. (Four clients that agree on the names
// wait at most about 0.1 s, and these about 0.5 s; before stuck waiters
// heard the other members, one run in three gave up at 2 s.)
func TestClientsThatNameTheStoresDifferentlyAllGetTheLock(t *testing.T) {
	stores := quorumtest.StartRedis(t, 5)
	const clients = 4
	const budget = 2 * time.Second
	ctx := context.Background()
	mutexes := make([]*locker.Mutex, clients)
	for k := range mutexes {
		members := make([]driver.Backend, stores.Len())
		for j := range members {
			// Client k names server j "mN" with N = j-k mod 5: its least
			// endpoint, and so its line member, is server k.
			members[j] = aliasedClient(t, stores.Server(j).Addr(), fmt.Sprintf("m%d:6379", (j-k+stores.Len())%stores.Len()))
		}
		m, err := newMutex(t, newRL(t, members, combine.WithRestartGuard(0)), "k")
		require.NoError(t, err)
		mutexes[k] = m
	}
	holds := make([]int, clients)
	longest := make([]time.Duration, clients)
	var wg sync.WaitGroup
	stop := time.Now().Add(4 * time.Second)
	for k, m := range mutexes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				wctx, cancel := context.WithTimeout(ctx, budget)
				start := time.Now()
				l, err := m.Lock(wctx, locker.WithLease(time.Second))
				cancel()
				longest[k] = max(longest[k], time.Since(start))
				if !assert.NoError(t, err, "client %d waited %v", k, time.Since(start)) {
					return
				}
				holds[k]++
				time.Sleep(time.Duration(5+rand.IntN(20)) * time.Millisecond)
				assert.NoError(t, l.Unlock(ctx))
				time.Sleep(time.Duration(rand.IntN(10)) * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	t.Logf("holds per client %v, longest waits %v", holds, longest)
	total := 0
	for _, n := range holds {
		total += n
	}
	for k, n := range holds {
		assert.GreaterOrEqual(t, n*3*clients, total, "client %d got %d of %d holds, under a third of its share", k, n, total)
	}
}

// aliasedClient is a redislocker backend on the server at addr that names
// it alias: its endpoint is the alias's.
func aliasedClient(t *testing.T, addr, alias string) driver.Backend {
	t.Helper()
	var d net.Dialer
	c := redis.NewClient(&redis.Options{
		Addr: alias,
		Dialer: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		ContextTimeoutEnabled: true,
	})
	b, err := redislocker.New(c, redislocker.WithOwnedClient())
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}
