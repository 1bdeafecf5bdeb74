package quorum

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

// majorityOf3 returns a majority lock over three fresh members on which
// owner "o" holds "k" holds times.
func majorityOf3(t *testing.T, holds int) ([]*memlocker.Client, driver.Backend) {
	t.Helper()
	ctx := context.Background()
	members := []*memlocker.Client{memlocker.New(), memlocker.New(), memlocker.New()}
	b, err := New(Majority, []driver.Backend{members[0], members[1], members[2]}, DefaultSettings(Majority))
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	for range holds {
		g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
		require.NoError(t, err)
		require.True(t, g.Acquired)
	}
	return members, b
}

// holdsOn returns the holds of "k" on each member.
func holdsOn(t *testing.T, members []*memlocker.Client) []int {
	t.Helper()
	hs := make([]int, len(members))
	for i, m := range members {
		st, err := m.Inspect(context.Background(), "k")
		require.NoError(t, err)
		hs[i] = st.Holds
	}
	return hs
}

// TestUnlockOfANestedHoldIsNotRepeated: an Unlock whose replies were lost
// after it ran must not be sent again while the owner holds the lock a
// second time: the second Unlock would drop the hold that is still in use,
// and another owner could take the lock under it.
func TestUnlockOfANestedHoldIsNotRepeated(t *testing.T) {
	ctx := context.Background()
	members, b := majorityOf3(t, 2)
	for _, m := range members {
		m.TimeoutNext(1)
	}
	err := b.Unlock(ctx, "k", "o")
	require.Error(t, err)
	assert.True(t, driver.IsUnknown(err), "every reply was lost: %v", err)
	core(b).bg.wg.Wait()
	assert.Equal(t, []int{1, 1, 1}, holdsOn(t, members), "the Unlock ran once on each member")

	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "other", TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, g.Acquired, "the owner's remaining hold keeps the lock")
}

// TestUnlockOfALoneHoldIsRepeated: with one hold, sending an Unlock again
// after a lost reply can drop nothing else, so the member is released
// rather than left to its lease.
func TestUnlockOfALoneHoldIsRepeated(t *testing.T) {
	ctx := context.Background()
	members, b := majorityOf3(t, 1)

	members[2].FailNext(1, nil) // not run, and the client cannot tell
	require.NoError(t, b.Unlock(ctx, "k", "o"))
	core(b).bg.wg.Wait()
	assert.Equal(t, []int{0, 0, 0}, holdsOn(t, members))
}

// TestNestedAttemptLeavesUnknownMembersAlone: a second TryLock of the owner
// whose calls all end in an unknown state, none having run, must not
// release the members: their Unlocks would drop the first hold. No member
// reported a second hold, so only the engine's own count can tell.
func TestNestedAttemptLeavesUnknownMembersAlone(t *testing.T) {
	ctx := context.Background()
	members, b := majorityOf3(t, 1)

	for _, m := range members {
		m.FailNext(1, nil)
	}
	_, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.Error(t, err)
	core(b).bg.wg.Wait()
	assert.Equal(t, []int{1, 1, 1}, holdsOn(t, members), "the first hold is intact")
}

// TestFreshAttemptReleasesUnknownMembers: the same failure on an owner that
// holds nothing releases the members, since a hold there can only be the
// attempt's.
func TestFreshAttemptReleasesUnknownMembers(t *testing.T) {
	ctx := context.Background()
	members, b := majorityOf3(t, 0)
	for _, m := range members {
		m.TimeoutNext(1) // ran, reply lost
	}
	_, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.Error(t, err)
	core(b).bg.wg.Wait()
	assert.Equal(t, []int{0, 0, 0}, holdsOn(t, members), "the attempt's holds are given back")
}

// TestLedgerForgetsLapsedHolds: counts whose leases have run out are swept,
// so the ledger does not grow with locks that were never unlocked.
func TestLedgerForgetsLapsedHolds(t *testing.T) {
	l := newLedger()
	for i := range 3 * minSweep {
		k := pendingKey{key: string(rune('a' + i%26)), owner: string(rune(i))}
		tk, ok := l.lock(k)
		require.True(t, ok)
		l.end(k, tk, 1, 1, time.Nanosecond, 0)
	}
	assert.LessOrEqual(t, len(l.entries), minSweep+1)

	k := pendingKey{key: "held", owner: "o"}
	tk, _ := l.lock(k)
	l.end(k, tk, 1, 1, time.Hour, 0)
	assert.True(t, l.unlock(k).lone, "one hold: its Unlock is lone")
	assert.False(t, l.unlock(k).lone, "a call in flight: not lone")
}

// TestLedgerKnowsTheTokenOfEachHold: a release names the hold it drops by
// the member's token while the ledger knows it: from the grant, through a
// re-entry and a fence, and not after an attempt whose outcome is unknown
// on a member the owner did not hold.
func TestLedgerKnowsTheTokenOfEachHold(t *testing.T) {
	l := newLedger()
	k := pendingKey{key: "k", owner: "o"}
	take := func(delta, atLeast int, token uint64) {
		t.Helper()
		tk, ok := l.lock(k)
		require.True(t, ok)
		l.end(k, tk, delta, atLeast, time.Hour, token)
	}
	take(1, 1, 7)
	assert.EqualValues(t, 7, l.unlock(k).token, "the grant's token")
	l.end(k, ticket{}, 0, 0, 0, 0) // that Unlock did not run
	take(1, 0, 0)
	assert.EqualValues(t, 7, l.unlock(k).token, "an unknown re-entry keeps the hold's token")
	l.end(k, ticket{}, 0, 0, 0, 0)
	l.fenced(k, 9, nil)
	assert.EqualValues(t, 9, l.unlock(k).token, "raised by a fence")
	l.end(k, ticket{}, 0, 0, 0, 0)
	l.fenced(k, 11, errors.New("reply lost"))
	assert.Zero(t, l.unlock(k).token, "a fence that may have run")
	l.end(k, ticket{}, -2, 0, 0, 0) // both holds dropped

	take(1, 0, 0)
	assert.Zero(t, l.unlock(k).token, "an attempt whose outcome is unknown on a member not held")
}
