package memlocker_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

func TestOpenSharesAStorePerName(t *testing.T) {
	ctx := context.Background()
	open := func(url string) driver.Backend {
		t.Helper()
		b, err := driver.Open(ctx, url)
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, b.Close()) })
		return b
	}
	a1, a2, b := open("mem://open-test-a"), open("mem://open-test-a/"), open("mem://open-test-b")
	require.IsType(t, &memlocker.Client{}, a1)
	assert.Same(t, a1.(*memlocker.Client).Store(), a2.(*memlocker.Client).Store())
	assert.NotSame(t, a1.(*memlocker.Client).Store(), b.(*memlocker.Client).Store())

	m1, err := locker.NewStore(a1).Mutex("job")
	require.NoError(t, err)
	m2, err := locker.NewStore(a2).Mutex("job")
	require.NoError(t, err)
	m3, err := locker.NewStore(b).Mutex("job")
	require.NoError(t, err)

	held, err := m1.TryLock(ctx)
	require.NoError(t, err)
	_, err = m2.TryLock(ctx)
	require.ErrorIs(t, err, locker.ErrNotAcquired, "two Mutexes opened from the same URL must contend")
	other, err := m3.TryLock(ctx)
	require.NoError(t, err, "a store of another name is independent")
	require.NoError(t, other.Unlock(ctx))
	require.NoError(t, held.Unlock(ctx))

	// Closing one client leaves the store to the others.
	require.NoError(t, a1.Close())
	again, err := m2.TryLock(ctx)
	require.NoError(t, err)
	require.NoError(t, again.Unlock(ctx))
}

func TestOpenRejectsWhatItDoesNotKnow(t *testing.T) {
	for _, url := range []string{
		"mem://x?granularity=1s",
		"mem://x?",
		"mem://user:hunter2@x",
		"mem://x:6379",
		"mem://x/path",
		"mem:x",
		"mem://x#frag",
	} {
		t.Run(url, func(t *testing.T) {
			b, err := locker.Open(context.Background(), url)
			require.ErrorIs(t, err, locker.ErrInvalid)
			assert.Nil(t, b)
			assert.NotContains(t, err.Error(), "hunter2")
		})
	}
	_, err := locker.Open(context.Background(), "mem://x?lease=1s")
	require.ErrorContains(t, err, `"lease"`, "the error names the unknown parameter")
}

func TestOpenRegistersMem(t *testing.T) {
	assert.Contains(t, driver.Schemes(), memlocker.Scheme)
}
