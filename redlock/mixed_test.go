package redlock_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/distlock/distlock/backends/etcdlocker"     // etcd://
	_ "github.com/distlock/distlock/backends/memcachelocker" // memcache://
	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/internal/memcachedtest"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
)

// TestMixedStores runs a RedLock over one store of each kind: in-memory,
// Redis, etcd and memcached, the last two counting leases in whole
// seconds. Holders follow one another with rising tokens, the watchdog
// renews across all four, and every store holds the lock for the holder.
// The servers have just started, so the restart guard is off.
func TestMixedStores(t *testing.T) {
	ctx := context.Background()
	open := func(url string) driver.Backend {
		b, err := driver.Open(ctx, url)
		require.NoError(t, err, url)
		return b
	}
	etcd := etcdtest.Start(t)
	members := []driver.Backend{
		memlocker.New(),
		open("redis://" + redistest.Start(t).Addr()),
		open("etcd://" + strings.TrimPrefix(etcd.Endpoints()[0], "http://")),
		open("memcache://" + memcachedtest.Start(t).Addr()),
	}
	rl := newRL(t, members, combine.WithRestartGuard(0), combine.WithMemberTimeout(time.Second))
	assert.Equal(t, time.Second, driver.Granularity(rl), "the coarsest member's")

	var last uint64
	for i := range 3 {
		m, err := newMutex(t, rl, "mixed", locker.WithWatchdogLease(1500*time.Millisecond))
		require.NoError(t, err)
		l, err := m.Lock(ctx)
		require.NoError(t, err, "holder %d", i)
		assert.Greater(t, l.Token(), last, "holder %d", i)
		last = l.Token()
		if i == 0 {
			time.Sleep(2500 * time.Millisecond) // past the first lease: the watchdog renews it
			select {
			case <-l.Done():
				t.Fatalf("the watchdog let the lease go: %v", l.Err())
			default:
			}
		}
		for j, b := range members {
			in, ok := b.(driver.Inspector)
			if !ok {
				continue
			}
			st, err := in.Inspect(ctx, "mixed")
			require.NoError(t, err, "member %d", j)
			assert.Equal(t, m.Owner(), st.Owner, "member %d holds the lock for the holder", j)
		}
		require.NoError(t, l.Unlock(ctx))
	}
}
