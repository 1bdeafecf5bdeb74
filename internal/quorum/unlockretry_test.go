package quorum

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

// TestUnlockReleasesAFailedMemberLater: an Unlock that a quorum did is a
// success, but a member whose Unlock got no answer still holds the lock;
// it is released in the background rather than left to its lease, so the
// next holder does not get a bare quorum.
func TestUnlockReleasesAFailedMemberLater(t *testing.T) {
	ctx := context.Background()
	members := []*memlocker.Client{memlocker.New(), memlocker.New(), memlocker.New()}
	b, err := New(Majority, []driver.Backend{members[0], members[1], members[2]}, DefaultSettings(Majority))
	require.NoError(t, err)
	defer b.Close()
	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)

	members[2].FailNext(1, nil) // the Unlock never reaches it
	require.NoError(t, b.Unlock(ctx, "k", "o"), "two of three members released it")
	core(b).bg.wg.Wait()
	for i, m := range members {
		st, err := m.Inspect(ctx, "k")
		require.NoError(t, err)
		assert.False(t, st.Held, "member %d still holds the released lock", i)
	}
}
