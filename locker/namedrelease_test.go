package locker_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// TestReleasesNameTheirHold: a Lease's release names its hold by token,
// and so does the release of a hold an attempt took but never heard of,
// once the store has said which it is: no release names the owner alone,
// which one reaching the store late could turn against the Mutex's next
// hold.
func TestReleasesNameTheirHold(t *testing.T) {
	ctx := context.Background()
	r := storetest.NewReleases(memlocker.New())
	m := newMutex(t, r, "k")

	l, err := m.TryLock(ctx)
	require.NoError(t, err)
	require.NoError(t, l.Unlock(ctx))

	r.TimeoutNext(1) // the attempt takes the lock, and its reply is lost
	_, err = m.TryLock(ctx)
	require.ErrorIs(t, err, memlocker.ErrTimeout)
	held, err := m.IsLocked(ctx)
	require.NoError(t, err)
	assert.False(t, held, "the lost attempt's hold was given back")

	assert.Equal(t, []uint64{l.Token(), l.Token() + 1}, r.Seen(),
		"the Lease's release and the lost attempt's, each by its hold's token")
}

// TestALostSharedAttemptIsGivenBack: a read or semaphore hold taken by an
// attempt whose reply was lost is given back, although the lock's State,
// which names the writer only, does not say that the owner holds it.
func TestALostSharedAttemptIsGivenBack(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	s := locker.NewStore(c)
	defer s.Close()
	rw, err := s.RWMutex("rw")
	require.NoError(t, err)
	sem, err := s.Semaphore("sem", 2)
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		attempt func() error
		inspect func(context.Context) (locker.State, error)
	}{
		{"read", func() error { _, err := rw.TryRLock(ctx); return err }, rw.Inspect},
		{"permits", func() error { _, err := sem.TryAcquire(ctx, 1); return err }, sem.Inspect},
	} {
		c.TimeoutNext(1) // the attempt takes the hold, and its reply is lost
		require.ErrorIs(t, tc.attempt(), memlocker.ErrTimeout, tc.name)
		st, err := tc.inspect(ctx)
		require.NoError(t, err)
		assert.False(t, st.Held, "%s: the lost attempt's hold was given back: %+v", tc.name, st)
	}
}
