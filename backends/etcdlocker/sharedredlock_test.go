package etcdlocker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/etcdlocker"
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/multilock"
	"github.com/distlock/distlock/redlock"
)

// A RedLock of three etcd clusters keeps read-write locks: its writers
// follow one another with rising tokens (the members are fenced to the
// highest), and its readers carry the last write's. A MultiLock of them
// keeps semaphores, with a token per acquisition.
func TestCombinedSharedLocks(t *testing.T) {
	ctx := testContext(t, time.Minute)
	var members, others []driver.Backend
	for range 3 {
		c := etcdtest.Start(t)
		members = append(members, newBackend(t, c))
		others = append(others, newBackend(t, c))
	}
	// One member's counter runs ahead: the others are raised to it.
	ahead := view(t, members[0].(*etcdlocker.Backend), writeShare)
	for range 5 {
		require.True(t, mustTry(ctx, t, ahead, request("doc", "early")).Acquired)
		require.NoError(t, ahead.Unlock(ctx, "doc", "early"))
	}
	rl, err := redlock.New(members, combine.WithRestartGuard(0))
	require.NoError(t, err)
	store := locker.NewStore(rl)
	t.Cleanup(func() { _ = store.Close() })

	rw, err := store.RWMutex("doc")
	require.NoError(t, err)
	var last uint64
	for i := range 3 {
		w, err := rw.Lock(ctx)
		require.NoError(t, err)
		assert.Greater(t, w.Token(), last, "write %d", i)
		last = w.Token()
		_, err = rw.TryRLock(ctx)
		assert.ErrorIs(t, err, locker.ErrNotAcquired, "a writer excludes readers")
		require.NoError(t, w.Unlock(ctx))
		for j, m := range members {
			st, err := view(t, m.(*etcdlocker.Backend), readShare).(driver.Inspector).Inspect(ctx, "doc")
			require.NoError(t, err)
			assert.Equal(t, last, st.Token, "write %d: member %d's counter", i, j)
		}
		r, err := rw.RLock(ctx)
		require.NoError(t, err)
		assert.Equal(t, last, r.Token(), "read %d carries the last write's token", i)
		require.NoError(t, r.Unlock(ctx))
	}

	ml, err := multilock.New(others)
	require.NoError(t, err)
	all := locker.NewStore(ml)
	t.Cleanup(func() { _ = all.Close() })
	sm, err := all.Semaphore("pool", 2)
	require.NoError(t, err)
	a, err := sm.Acquire(ctx, 1)
	require.NoError(t, err)
	b, err := sm.Acquire(ctx, 1)
	require.NoError(t, err)
	assert.Greater(t, b.Token(), a.Token())
	_, err = sm.TryAcquire(ctx, 1)
	assert.ErrorIs(t, err, locker.ErrNotAcquired, "both permits are held")
	require.NoError(t, a.Unlock(ctx))
	require.NoError(t, b.Unlock(ctx))
}
