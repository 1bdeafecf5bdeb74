package quorum

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

// TestUnlockReleasesAFailedMemberLater: an Unlock that a quorum did is a
// success, but a member whose Unlock got no answer still holds the lock;
// it is released in the background rather than left to its lease, so the
// next holder does not get a bare quorum.
func TestUnlockReleasesAFailedMemberLater(t *testing.T) {
	ctx := context.Background()
	members, b := majorityOf3(t, 1)

	members[2].FailNext(1, nil) // the Unlock never reaches it
	require.NoError(t, b.Unlock(ctx, "k", "o"), "two of three members released it")
	core(b).bg.wg.Wait()
	for i, m := range members {
		st, err := m.Inspect(ctx, "k")
		require.NoError(t, err)
		assert.False(t, st.Held, "member %d still holds the released lock", i)
	}
}

// TestUnlockThatReachesNoMemberIsUnavailable: an Unlock sent to no member
// changed nothing, and says so with ErrUnavailable, so that its caller
// makes it again; the combinator does not make it again itself, since
// both would drop a hold.
func TestUnlockThatReachesNoMemberIsUnavailable(t *testing.T) {
	ctx := context.Background()
	members, b := majorityOf3(t, 2)
	for _, m := range members {
		m.FailNext(1, driver.ErrUnavailable)
	}
	err := b.Unlock(ctx, "k", "o")
	require.ErrorIs(t, err, driver.ErrUnavailable)
	assert.False(t, driver.IsUnknown(err))
	core(b).bg.wg.Wait()
	assert.Equal(t, []int{2, 2, 2}, holdsOn(t, members), "nothing was sent, nothing changed")

	require.NoError(t, b.Unlock(ctx, "k", "o"), "the caller's retry")
	assert.Equal(t, []int{1, 1, 1}, holdsOn(t, members))
}
