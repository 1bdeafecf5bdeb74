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

// TestALostSharedAttemptIsGivenBack: a read, write or semaphore hold taken
// by an attempt whose reply was lost is given back, named by the token the
// store reports for the owner's hold in the view's mode (the lock's Owner
// and Token are the writer's only).
func TestALostSharedAttemptIsGivenBack(t *testing.T) {
	ctx := context.Background()
	r := storetest.NewReleases(memlocker.New())
	s := locker.NewStore(r)
	defer s.Close()
	rw, err := s.RWMutex("rw")
	require.NoError(t, err)
	sem, err := s.Semaphore("sem", 2)
	require.NoError(t, err)
	// A write first, so that a read hold's token, the last write's, is
	// not 0.
	w, err := rw.TryLock(ctx)
	require.NoError(t, err)
	require.NoError(t, w.Unlock(ctx))
	for _, tc := range []struct {
		name    string
		attempt func() (*locker.Lease, error)
		inspect func(context.Context) (locker.State, error)
	}{
		{"read", func() (*locker.Lease, error) { return rw.TryRLock(ctx) }, rw.Inspect},
		{"write", func() (*locker.Lease, error) { return rw.TryLock(ctx) }, rw.Inspect},
		{"permits", func() (*locker.Lease, error) { return sem.TryAcquire(ctx, 1) }, sem.Inspect},
	} {
		before := len(r.Seen())

		r.TimeoutNext(1) // the attempt takes the hold, and its reply is lost
		_, err = tc.attempt()
		require.ErrorIs(t, err, memlocker.ErrTimeout, tc.name)
		st, err := tc.inspect(ctx)
		require.NoError(t, err)
		assert.False(t, st.Held, "%s: the lost attempt's hold was given back: %+v", tc.name, st)
		if seen := r.Seen()[before:]; assert.Len(t, seen, 1, tc.name) {
			assert.NotZero(t, seen[0], "%s: the release names the hold", tc.name)
		}
	}
}
