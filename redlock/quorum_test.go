package redlock_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
)

// isSentinel reports whether err matches one of locker's sentinels.
func isSentinel(err error) bool {
	for _, s := range []error{locker.ErrNotAcquired, locker.ErrNotHeld, locker.ErrLost, locker.ErrClosed, locker.ErrInvalid} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// TestFailingMembers fails the lock call of k of 5 members, without it
// running: with k <= 2 the quorum of 3 remains; above, the attempt fails,
// and every member that granted the lock is released.
func TestFailingMembers(t *testing.T) {
	ctx := context.Background()
	for k := range 6 {
		t.Run(fmt.Sprintf("%d failing", k), func(t *testing.T) {
			stores, cs, rl := memRL(t, 5)
			for _, c := range cs[:k] {
				c.FailNext(1, nil)
			}
			owner := locker.NewOwner()
			g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
			if k <= 2 {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, locker.ErrUnavailable, "the granting members were released, and the failed ones ran nothing")
			}
			require.Equal(t, k <= 2, g.Acquired)
			want := append(quorumtest.Repeat("", k), quorumtest.Repeat(owner, 5-k)...)
			if !g.Acquired {
				want = quorumtest.Repeat("", 5)
				assert.Zero(t, g.Token)
				assert.Zero(t, g.Holds)
			}
			assert.Equal(t, want, stores.Holders(t, "k"))
		})
	}
}

// TestPartitionedMembers cuts k of 5 members off: their state cannot be
// known, so when k >= 3 the attempt's outcome is unknown and TryLock says
// so with an error that is none of the sentinels; the reachable members are
// released all the same.
func TestPartitionedMembers(t *testing.T) {
	ctx := context.Background()
	for k := range 6 {
		t.Run(fmt.Sprintf("%d partitioned", k), func(t *testing.T) {
			stores, cs, rl := memRL(t, 5)
			for _, c := range cs[:k] {
				c.Partition()
			}
			owner := locker.NewOwner()
			g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
			if k <= 2 {
				require.NoError(t, err)
				require.True(t, g.Acquired)
				assert.Equal(t, append(quorumtest.Repeat("", k), quorumtest.Repeat(owner, 5-k)...), stores.Holders(t, "k"))
				return
			}
			require.Error(t, err)
			assert.False(t, isSentinel(err), "an unknown outcome must not look like a sentinel: %v", err)
			assert.ErrorContains(t, err, "partitioned")
			assert.False(t, g.Acquired)
			assert.Equal(t, quorumtest.Repeat("", 5), stores.Holders(t, "k"))
		})
	}
}

// TestTimedOutMembersAreReleased loses the replies of k members after
// their lock call ran: those members hold the lock without the RedLock
// knowing, so it releases them, on success and on failure alike.
func TestTimedOutMembersAreReleased(t *testing.T) {
	ctx := context.Background()
	for k := range 6 {
		t.Run(fmt.Sprintf("%d timed out", k), func(t *testing.T) {
			stores, cs, rl := memRL(t, 5)
			for _, c := range cs[:k] {
				c.TimeoutNext(1)
			}
			owner := locker.NewOwner()
			g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
			if k <= 2 {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, locker.ErrUnavailable, "every member was released")
			}
			require.Equal(t, k <= 2, g.Acquired)
			want := append(quorumtest.Repeat("", k), quorumtest.Repeat(owner, 5-k)...)
			if !g.Acquired {
				want = quorumtest.Repeat("", 5)
			}
			assert.Equal(t, want, stores.Holders(t, "k"), "members that timed out must be released")
			for _, c := range cs[:k] {
				assert.Equal(t, 1, c.Calls("unlock"), "each timed-out member is released once")
			}
		})
	}
}

// TestSlowMembers makes k of 5 members slower than the member timeout:
// their calls are cut at the timeout, long before the members would answer.
func TestSlowMembers(t *testing.T) {
	ctx := context.Background()
	const latency, timeout = 2 * time.Second, 50 * time.Millisecond
	for _, k := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d slow", k), func(t *testing.T) {
			stores, cs, rl := memRL(t, 5, combine.WithMemberTimeout(timeout))
			for _, c := range cs[:k] {
				c.SetLatency(latency)
			}
			owner := locker.NewOwner()
			start := time.Now()
			g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
			elapsed := time.Since(start)
			assert.Less(t, elapsed, latency, "the slow members' calls must be cut at the member timeout")
			if k == 2 {
				require.NoError(t, err)
				assert.True(t, g.Acquired)
				assert.Equal(t, append(quorumtest.Repeat("", k), quorumtest.Repeat(owner, 5-k)...), stores.Holders(t, "k"))
				return
			}
			require.Error(t, err, "3 members in an unknown state may hold the lock")
			assert.False(t, isSentinel(err), "%v", err)
			assert.Equal(t, quorumtest.Repeat("", 5), stores.Holders(t, "k"))
		})
	}
}

// TestRefusedMembersAreReleased lets another owner hold some members: with
// three taken the attempt fails, releasing the two it got and asking
// nothing of the three that refused; with two taken it succeeds on the
// other three.
func TestRefusedMembersAreReleased(t *testing.T) {
	ctx := context.Background()
	stores, cs, rl := memRL(t, 5)
	other, owner := locker.NewOwner(), locker.NewOwner()
	stores.Take(t, "three", other, 10*time.Second, 0, 1, 2)
	g, err := rl.TryLock(ctx, driver.Request{Key: "three", Owner: owner, TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, g.Acquired)
	assert.Positive(t, g.Remaining, "the holder's remaining lease is the hint")
	assert.LessOrEqual(t, g.Remaining, 10*time.Second)
	assert.Equal(t, []string{other, other, other, "", ""}, stores.Holders(t, "three"))
	for i, c := range cs {
		want := 1 // a member that granted the lock is released
		if i < 3 {
			want = 0 // a refusal holds nothing of the owner's: nothing to release
		}
		assert.Equal(t, want, c.Calls("unlock"), "member %d: unlocks of the failed attempt", i)
	}

	stores.Take(t, "two", other, 10*time.Second, 0, 1)
	g, err = rl.TryLock(ctx, driver.Request{Key: "two", Owner: owner, TTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, g.Acquired)
	assert.Equal(t, []string{other, other, owner, owner, owner}, stores.Holders(t, "two"))
	require.NoError(t, rl.Unlock(ctx, "two", owner))
	assert.Equal(t, []string{other, other, "", "", ""}, stores.Holders(t, "two"))
}

// TestAttemptIsParallel gives every member 100 ms of latency: one after
// another, an attempt would take at least 500 ms.
func TestAttemptIsParallel(t *testing.T) {
	ctx := context.Background()
	const latency = 100 * time.Millisecond
	_, cs, rl := memRL(t, 5, combine.WithMemberTimeout(time.Second))
	for _, c := range cs {
		c.SetLatency(latency)
	}
	owner := locker.NewOwner()
	start := time.Now()
	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
	lockTook := time.Since(start)
	require.NoError(t, err)
	require.True(t, g.Acquired)
	start = time.Now()
	require.NoError(t, rl.Unlock(ctx, "k", owner))
	unlockTook := time.Since(start)

	sequential := time.Duration(len(cs)) * latency
	assert.GreaterOrEqual(t, lockTook, latency)
	assert.Less(t, lockTook, sequential, "members must be asked at once")
	assert.Less(t, unlockTook, sequential, "members must be released at once")
}

// TestClosed fails every call after Close with ErrClosed, and closes the
// members.
func TestClosed(t *testing.T) {
	ctx := context.Background()
	_, cs, rl := memRL(t, 3)
	require.NoError(t, rl.Close())
	_, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Second})
	assert.ErrorIs(t, err, locker.ErrClosed)
	assert.ErrorIs(t, rl.Unlock(ctx, "k", "o"), locker.ErrClosed)
	assert.ErrorIs(t, rl.Expire(ctx, "k", "o", time.Second), locker.ErrClosed)
	for _, c := range cs {
		_, err := c.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Second})
		assert.ErrorIs(t, err, locker.ErrClosed, "Close closes the members")
	}
	assert.NoError(t, rl.Close(), "closing twice")
}

// TestMembersClosedElsewhere: when so many members were closed that no
// quorum is left, TryLock says ErrClosed rather than "not acquired".
func TestMembersClosedElsewhere(t *testing.T) {
	ctx := context.Background()
	_, cs, rl := memRL(t, 5)
	for _, c := range cs[:3] {
		require.NoError(t, c.Close())
	}
	_, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Second})
	assert.ErrorIs(t, err, locker.ErrClosed)
}

// TestBadInput is refused before any member is asked.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	_, cs, rl := memRL(t, 3)
	_, err := rl.TryLock(ctx, driver.Request{Key: "", Owner: "o", TTL: time.Second})
	assert.ErrorIs(t, err, locker.ErrInvalid)
	_, err = rl.TryLock(ctx, driver.Request{Key: "k", Owner: "", TTL: time.Second})
	assert.ErrorIs(t, err, locker.ErrInvalid)
	_, err = rl.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: 0})
	assert.ErrorIs(t, err, locker.ErrInvalid)
	assert.ErrorIs(t, rl.Expire(ctx, "k", "o", -time.Second), locker.ErrInvalid)
	assert.ErrorIs(t, rl.Unlock(ctx, "k", ""), locker.ErrInvalid)
	_, err = rl.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Second, Patience: -time.Second})
	assert.ErrorIs(t, err, locker.ErrInvalid)
	for _, c := range cs {
		assert.Zero(t, slices.Max([]int{c.Calls("trylock"), c.Calls("unlock"), c.Calls("expire")}))
	}
}
