package etcdlocker_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/locker"
)

// lockIn runs lock in a goroutine and returns the channel its result
// arrives on.
func lockIn(lock func() (*locker.Lease, error)) <-chan *locker.Lease {
	got := make(chan *locker.Lease, 1)
	go func() {
		l, err := lock()
		if err != nil {
			l = nil
		}
		got <- l
	}()
	return got
}

// gets waits for the lease a lockIn gives.
func gets(t *testing.T, got <-chan *locker.Lease, what string) *locker.Lease {
	t.Helper()
	select {
	case l := <-got:
		require.NotNil(t, l, "%s failed", what)
		return l
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not get the lock", what)
		return nil
	}
}

// Through a Store, on two backends: a writer waits for the readers and
// wakes when they leave, holding off new readers meanwhile; a downgrade
// keeps its token; a semaphore's waiter gets its permits when they are
// given back.
func TestStoreSharedLocks(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	s1, s2 := locker.NewStore(newBackend(t, c)), locker.NewStore(newBackend(t, c))
	t.Cleanup(func() { _ = s1.Close(); _ = s2.Close() })
	rw1, err := s1.RWMutex("doc")
	require.NoError(t, err)
	rw2, err := s2.RWMutex("doc")
	require.NoError(t, err)

	r1, err := rw1.RLock(ctx)
	require.NoError(t, err)
	r2, err := rw1.RLock(ctx)
	require.NoError(t, err, "readers of one process share")
	writer := lockIn(func() (*locker.Lease, error) { return rw2.Lock(ctx) })
	require.Eventually(t, func() bool {
		l, err := rw1.TryRLock(ctx)
		if err == nil {
			_ = l.Unlock(ctx)
		}
		return errors.Is(err, locker.ErrNotAcquired)
	}, 10*time.Second, 50*time.Millisecond, "a waiting writer holds off new readers")
	require.NoError(t, r1.Unlock(ctx))
	require.NoError(t, r2.Unlock(ctx))
	w := gets(t, writer, "the writer")
	assert.Positive(t, w.Token())
	r, err := rw2.Downgrade(ctx, w)
	require.NoError(t, err)
	assert.Equal(t, w.Token(), r.Token(), "the read hold carries the write's token")
	other, err := rw1.RLock(ctx)
	require.NoError(t, err, "the writer left: readers come in")
	require.NoError(t, other.Unlock(ctx))
	require.NoError(t, r.Unlock(ctx))

	sm1, err := s1.Semaphore("pool", 3)
	require.NoError(t, err)
	sm2, err := s2.Semaphore("pool", 3)
	require.NoError(t, err)
	big, err := sm1.Acquire(ctx, 2)
	require.NoError(t, err)
	_, err = sm2.TryAcquire(ctx, 2)
	assert.ErrorIs(t, err, locker.ErrNotAcquired)
	waiter := lockIn(func() (*locker.Lease, error) { return sm2.Acquire(ctx, 2) })
	st, err := sm1.Inspect(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, st.Limit)
	require.NoError(t, big.Unlock(ctx))
	l := gets(t, waiter, "the semaphore's waiter")
	assert.Greater(t, l.Token(), big.Token())
	require.NoError(t, l.Unlock(ctx))
}
