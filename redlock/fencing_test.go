package redlock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
)

// advanceCounter moves key's token counter on store i up by n holds.
func advanceCounter(t *testing.T, stores *quorumtest.Mem, i int, key string, n int) {
	t.Helper()
	ctx := context.Background()
	c := stores.Store(i).Client()
	for range n {
		o := locker.NewOwner()
		_, err := c.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: time.Minute})
		require.NoError(t, err)
		require.NoError(t, c.Unlock(ctx, key, o))
	}
}

// TestTokenIsWrittenBack: the token is the highest the members granted, and
// the members below it are raised to it before it is handed out, so that a
// later holder reaching none of the members that granted the highest token
// still gets a higher one.
func TestTokenIsWrittenBack(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(5)
	advanceCounter(t, stores, 0, "k", 100)

	first := newRL(t, quorumtest.Backends(stores.Clients()))
	owner := locker.NewOwner()
	g, err := first.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
	require.NoError(t, err)
	require.Equal(t, uint64(101), g.Token, "the highest member token")
	for i := range 5 {
		assert.Equal(t, uint64(101), stores.State(t, i, "k").Token, "store %d carries the token", i)
	}
	again, err := first.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, 2, again.Holds)
	assert.Equal(t, g.Token, again.Token, "re-entry keeps the token")
	require.NoError(t, first.Unlock(ctx, "k", owner))
	require.NoError(t, first.Unlock(ctx, "k", owner))

	// The next holder cannot reach store 0, where 101 came from.
	cs := stores.Clients()
	cs[0].Partition()
	next := newRL(t, quorumtest.Backends(cs))
	g2, err := next.TryLock(ctx, driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g2.Acquired)
	assert.Greater(t, g2.Token, g.Token, "tokens must rise from holder to holder")
}

// TestTokensRiseAsQuorumsShift takes the lock again and again, each time
// with two different members out of reach.
func TestTokensRiseAsQuorumsShift(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(5)
	advanceCounter(t, stores, 3, "k", 7)
	var last uint64
	for i := range 15 {
		cs := stores.Clients()
		cs[i%5].Partition()
		cs[(i*3+1)%5].Partition()
		rl := newRL(t, quorumtest.Backends(cs))
		owner := locker.NewOwner()
		g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
		require.NoError(t, err)
		require.True(t, g.Acquired, "round %d", i)
		assert.Greater(t, g.Token, last, "round %d", i)
		last = g.Token
		require.NoError(t, rl.Unlock(ctx, "k", owner))
	}
}

// TestTokenNeedsAFencedMajority: when the write-back fails on too many
// members, the token is not handed out and the attempt fails.
func TestTokenNeedsAFencedMajority(t *testing.T) {
	ctx := context.Background()
	stores, hs, rl := hookedRL(t)
	advanceCounter(t, stores, 0, "k", 10)
	for _, h := range hs[1:4] {
		h.SetHook(func(op string) error {
			if op == "fence" {
				return errors.New("injected: fence lost")
			}
			return nil
		})
	}
	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Minute})
	require.ErrorIs(t, err, locker.ErrUnavailable)
	assert.False(t, g.Acquired, "only 2 of 5 members carry the token")
	assert.Equal(t, quorumtest.Repeat("", 5), stores.Holders(t, "k"))

	// With two members failing to take it, three carry it: enough.
	hs[3].SetHook(nil)
	owner := locker.NewOwner()
	g, err = rl.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, g.Acquired)
	assert.Equal(t, uint64(12), g.Token)
}

// TestNoFencingMembers: without Fencers a RedLock cannot make a monotonic
// token and hands out 0.
func TestNoFencingMembers(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(5)
	bare := make([]driver.Backend, 5)
	for i := range bare {
		bare[i] = quorumtest.Bare{Backend: stores.Store(i).Client()}
	}
	rl := newRL(t, bare)
	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	assert.Zero(t, g.Token)
	_, fences := rl.(driver.Fencer)
	assert.False(t, fences, "no Fence method to fail: a combinator is fenced by the engine that nests it (internal/quorum)")
}

// TestMutexTokensRise runs holders one after another through Mutexes on
// RedLocks whose members have drifted apart.
func TestMutexTokensRise(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(5)
	for i := range 5 {
		advanceCounter(t, stores, i, "k", i*3)
	}
	var last uint64
	for i := range 5 {
		m, err := newMutex(t, newRL(t, quorumtest.Backends(stores.Clients()), combine.WithRestartGuard(0)), "k")
		require.NoError(t, err)
		l, err := m.Lock(ctx, locker.WithLease(time.Minute))
		require.NoError(t, err)
		assert.Greater(t, l.Token(), last, "holder %d", i)
		last = l.Token()
		require.NoError(t, l.Unlock(ctx))
	}
}

// TestTooFewFencingMembers: with members that cannot fence, a quorum of
// all members may include too few fencing ones to make a token that
// reflects the earlier ones; such an attempt fails rather than grant a lock
// without a token.
func TestTooFewFencingMembers(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(5)
	cs := stores.Clients()
	members := quorumtest.Backends(cs)
	for i := 2; i < 5; i++ {
		members[i] = quorumtest.Bare{Backend: cs[i]}
	}
	rl := newRL(t, members)
	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	assert.NotZero(t, g.Token, "both fencing members took part")
	require.NoError(t, rl.Unlock(ctx, "k", "o"))

	cs[0].Partition()
	g, err = rl.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.ErrorIs(t, err, locker.ErrUnavailable)
	assert.False(t, g.Acquired, "one of two fencing members is no majority of them, though four of five members are a quorum")
	assert.Zero(t, g.Token)
	assert.Equal(t, quorumtest.Repeat("", 5), stores.Holders(t, "k"), "the failed attempt released every member")
}

// TestFencingMemberHeldByAnother: another owner on a fencing member, where
// the fencing members' majority is all of them, is another owner holding
// the lock ("not acquired"), not stores that could not decide, although a
// quorum of all members granted it.
func TestFencingMemberHeldByAnother(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(3)
	cs := stores.Clients()
	members := quorumtest.Backends(cs)
	members[2] = quorumtest.Bare{Backend: cs[2]} // no fencing
	rl := newRL(t, members)
	stores.Take(t, "k", "x", time.Minute, 0)

	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, g.Acquired)
	assert.Positive(t, g.Remaining)
	assert.Equal(t, []string{"x", "", ""}, stores.Holders(t, "k"))
	m, err := newMutex(t, rl, "k")
	require.NoError(t, err)
	_, err = m.TryLock(ctx)
	assert.ErrorIs(t, err, locker.ErrNotAcquired)
}
