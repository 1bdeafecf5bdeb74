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

// TestNextAttemptSettlesTheBackgroundRelease: the release a failed attempt
// left running must not drop a hold the owner's next attempt counts on that
// member, or the next holder would count a member it does not hold.
func TestNextAttemptSettlesTheBackgroundRelease(t *testing.T) {
	slow := memlocker.New()
	members := []driver.Backend{memlocker.New(), memlocker.New(), slow}
	b, err := New(Majority, members, DefaultSettings(Majority))
	require.NoError(t, err)
	defer b.Close()

	slow.SetLatency(400 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	// Two fast members grant, the slow one does not answer in time: a
	// quorum of two of three, so make one fast member refuse.
	other := "other"
	_, err = members[0].TryLock(context.Background(), driver.Request{Key: "k", Owner: other, TTL: time.Minute})
	require.NoError(t, err)
	_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.Error(t, err, "one grant of three is no quorum")
	require.NoError(t, members[0].Unlock(context.Background(), "k", other))

	// The slow member's release is still on its way when the owner tries
	// again: the attempt first has it tried once more, and asks the member
	// only once that try has ended it, so the old release cannot free the
	// member the new hold counts.
	g, err := b.TryLock(context.Background(), driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	slow.SetLatency(0)
	core(b).bg.wg.Wait()
	for i, m := range members {
		st, err := m.(driver.Inspector).Inspect(context.Background(), "k")
		require.NoError(t, err)
		assert.True(t, st.Held, "member %d: the old release dropped the new hold", i)
	}
	require.NoError(t, b.Expire(context.Background(), "k", "o", time.Minute), "the renewal counts the two members that hold it")
	require.NoError(t, b.Unlock(context.Background(), "k", "o"))
}
