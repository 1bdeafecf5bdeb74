package multilock_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/multilock"
)

func TestNewRejectsBadConfiguration(t *testing.T) {
	s := memlocker.NewStore()
	c, other := s.Client(), memlocker.New()
	cases := []struct {
		name    string
		members []driver.Backend
		opts    []combine.Option
	}{
		{"no members", nil, nil},
		{"nil member", []driver.Backend{c, nil}, nil},
		{"the same client twice", []driver.Backend{c, c}, nil},
		{"two clients of one store", []driver.Backend{c, s.Client()}, nil},
		{"zero member timeout", []driver.Backend{c, other}, []combine.Option{combine.WithMemberTimeout(0)}},
		{"drift factor of one", []driver.Backend{c, other}, []combine.Option{combine.WithDriftFactor(1)}},
		{"nil clock", []driver.Backend{c, other}, []combine.Option{combine.WithClock(nil)}},
	}
	for _, tc := range cases {
		_, err := multilock.New(tc.members, tc.opts...)
		assert.ErrorIs(t, err, locker.ErrInvalid, tc.name)
	}
	_, err := multilock.New([]driver.Backend{c, other}, combine.WithRestartGuard(time.Minute))
	assert.ErrorIs(t, err, locker.ErrInvalid, "a MultiLock has no restart guard")
	assert.ErrorContains(t, err, "no restart guard")

	// Both members are needed: one held by another owner refuses the lock.
	ml, err := multilock.New([]driver.Backend{c, other})
	require.NoError(t, err)
	defer ml.Close()
	_, err = other.TryLock(context.Background(), driver.Request{Key: "k", Owner: "x", TTL: time.Minute})
	require.NoError(t, err)
	g, err := ml.TryLock(context.Background(), driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, g.Acquired, "every member is needed")
}

// TestAllOrNothing: every member must grant the lock; when one does not
// answer, the attempt fails with ErrUnavailable (nobody else holds it) and
// every member is released, including those whose call timed out after it
// ran.
func TestAllOrNothing(t *testing.T) {
	ctx := context.Background()
	faults := map[string]func(c *memlocker.Client){
		"failed":    func(c *memlocker.Client) { c.FailNext(1, nil) },
		"timed out": func(c *memlocker.Client) { c.TimeoutNext(1) },
	}
	for name, fault := range faults {
		for i := range 3 {
			t.Run(fmt.Sprintf("member %d %s", i, name), func(t *testing.T) {
				stores, cs, ml := memML(t, 3)
				fault(cs[i])
				g, err := ml.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
				require.ErrorIs(t, err, locker.ErrUnavailable)
				assert.False(t, g.Acquired)
				assert.Equal(t, quorumtest.Repeat("", 3), stores.Holders(t, "k"))
				g, err = ml.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
				require.NoError(t, err)
				assert.True(t, g.Acquired, "the next attempt succeeds")
				assert.Equal(t, quorumtest.Repeat("o", 3), stores.Holders(t, "k"))
			})
		}
	}
}

// TestRefusedMember: another owner on one member makes the attempt fail,
// and leaves that owner's hold alone.
func TestRefusedMember(t *testing.T) {
	ctx := context.Background()
	stores, _, ml := memML(t, 3)
	stores.Take(t, "k", "x", 10*time.Second, 1)
	g, err := ml.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, g.Acquired)
	assert.Positive(t, g.Remaining)
	assert.Equal(t, []string{"", "x", ""}, stores.Holders(t, "k"))
}

// TestUnreachableMembers: a member out of reach fails the attempt with
// ErrUnavailable, not ErrNotAcquired, also when every member is.
func TestUnreachableMembers(t *testing.T) {
	ctx := context.Background()
	stores, cs, ml := memML(t, 3)
	cs[0].Partition()
	g, err := ml.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.ErrorIs(t, err, locker.ErrUnavailable, "the reachable members were released: the owner holds nothing")
	assert.False(t, g.Acquired)
	assert.Equal(t, quorumtest.Repeat("", 3), stores.Holders(t, "k"))
	cs[1].Partition()
	cs[2].Partition()
	_, err = ml.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.ErrorIs(t, err, locker.ErrUnavailable)
	assert.NotErrorIs(t, err, locker.ErrNotAcquired)
}

// TestLosingOneMemberLosesTheLock: renewal and unlock need every member.
func TestLosingOneMemberLosesTheLock(t *testing.T) {
	ctx := context.Background()
	stores, _, ml := memML(t, 3)
	m, err := newMutex(t, ml, "k", locker.WithWatchdogLease(300*time.Millisecond))
	require.NoError(t, err)
	l, err := m.Lock(ctx)
	require.NoError(t, err)
	stores.Force(t, "k", 2)
	select {
	case <-l.Done():
		assert.ErrorIs(t, l.Err(), locker.ErrLost)
	case <-time.After(5 * time.Second):
		t.Fatal("the watchdog did not notice the lost member")
	}
	err = l.Unlock(ctx)
	assert.ErrorIs(t, err, locker.ErrNotHeld)
	assert.Equal(t, quorumtest.Repeat("", 3), stores.Holders(t, "k"), "the other members are released all the same")
}

// TestNoRestartGuard: a restarted member cannot let a second owner in, so
// a MultiLock needs no guard.
func TestNoRestartGuard(t *testing.T) {
	ctx := context.Background()
	stores, _, ml := memML(t, 3)
	g, err := ml.TryLock(ctx, driver.Request{Key: "k", Owner: "x", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	stores.Store(0).Restart()
	other := newML(t, quorumtest.Backends(stores.Clients()))
	g, err = other.TryLock(ctx, driver.Request{Key: "k", Owner: "y", TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, g.Acquired, "x still holds the other members")
	assert.ErrorIs(t, ml.Unlock(ctx, "k", "x"), locker.ErrNotHeld, "x lost the restarted member, so the MultiLock")
	assert.Equal(t, quorumtest.Repeat("", 3), stores.Holders(t, "k"))
}

// TestInspect: held when one owner holds every member.
func TestInspect(t *testing.T) {
	ctx := context.Background()
	stores, _, ml := memML(t, 3)
	stores.Take(t, "k", "o", 20*time.Second, 0, 1)
	st, err := ml.(driver.Inspector).Inspect(ctx, "k")
	require.NoError(t, err)
	assert.False(t, st.Held, "two of three members")
	stores.Take(t, "k", "o", 10*time.Second, 2)
	st, err = ml.(driver.Inspector).Inspect(ctx, "k")
	require.NoError(t, err)
	assert.True(t, st.Held)
	assert.LessOrEqual(t, st.Remaining, 10*time.Second, "the shortest lease")
	// The token is the fencing members' (the combinator's own Fence is
	// tested in internal/quorum, as only a combinator calls it).
	for i := range 3 {
		require.NoError(t, stores.Store(i).Client().Fence(ctx, "k", "o", 40))
	}
	st, err = ml.(driver.Inspector).Inspect(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, uint64(40), st.Token)
}

// TestSingleMemberKeepsItsToken: a MultiLock of one store that cannot fence
// hands out that store's own token, which rises by itself.
func TestSingleMemberKeepsItsToken(t *testing.T) {
	ctx := context.Background()
	ml, err := multilock.New([]driver.Backend{quorumtest.Bare{Backend: memlocker.New()}})
	require.NoError(t, err)
	defer ml.Close()
	var last uint64
	for range 3 {
		g, err := ml.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
		require.NoError(t, err)
		require.True(t, g.Acquired)
		assert.Greater(t, g.Token, last)
		last = g.Token
		require.NoError(t, ml.Unlock(ctx, "k", "o"))
	}
}
