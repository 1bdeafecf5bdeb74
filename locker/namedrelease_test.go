package locker_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
)

// releases is a mem client that records how each release named its hold:
// by token (UnlockHold), or by owner alone (Unlock, recorded as 0).
type releases struct {
	*memlocker.Client
	mu     *sync.Mutex
	tokens *[]uint64
}

func newReleases() releases {
	return releases{Client: memlocker.New(), mu: new(sync.Mutex), tokens: new([]uint64)}
}

func (r releases) record(token uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.tokens = append(*r.tokens, token)
}

func (r releases) Unlock(ctx context.Context, key, owner string) error {
	r.record(0)
	return r.Client.Unlock(ctx, key, owner)
}

func (r releases) UnlockHold(ctx context.Context, key, owner string, token uint64) error {
	r.record(token)
	return r.Client.UnlockHold(ctx, key, owner, token)
}

func (r releases) seen() []uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]uint64(nil), *r.tokens...)
}

// TestReleasesNameTheirHold: a Lease's release names its hold by token,
// and so does the release of a hold an attempt took but never heard of,
// once the store has said which it is: no release names the owner alone,
// which one reaching the store late could turn against the Mutex's next
// hold.
func TestReleasesNameTheirHold(t *testing.T) {
	ctx := context.Background()
	r := newReleases()
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

	assert.Equal(t, []uint64{l.Token(), l.Token() + 1}, r.seen(),
		"the Lease's release and the lost attempt's, each by its hold's token")
}
