package quorum

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
