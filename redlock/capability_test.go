package redlock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
)

// TestWatch hears any member's release, keeps working while one member is
// watchable, and hears nothing after stop.
func TestWatch(t *testing.T) {
	ctx := context.Background()
	stores, cs, rl := memRL(t, 5)
	released := make(chan struct{}, 16)
	stop, err := rl.(driver.Notifier).Watch(ctx, "k", func() {
		select {
		case released <- struct{}{}:
		default:
		}
	})
	require.NoError(t, err)
	stores.Take(t, "k", "x", time.Minute, 3)
	require.NoError(t, stores.Store(3).Client().Unlock(ctx, "k", "x"))
	select {
	case <-released:
	case <-time.After(5 * time.Second):
		t.Fatal("a member's release was not heard")
	}
	stop()
	drain(released)
	stores.Take(t, "k", "x", time.Minute, 1)
	require.NoError(t, stores.Store(1).Client().Unlock(ctx, "k", "x"))
	assert.Empty(t, released, "called after stop")

	for _, c := range cs[:4] {
		c.Partition()
	}
	stop, err = rl.(driver.Notifier).Watch(ctx, "k", func() {})
	require.NoError(t, err, "one watched member is enough: an Unlock releases every member")
	stop()
	cs[4].Partition()
	_, err = rl.(driver.Notifier).Watch(ctx, "k", func() {})
	assert.Error(t, err, "no watched member is not")
}

func drain(c chan struct{}) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// TestInspect combines the members' states.
func TestInspect(t *testing.T) {
	ctx := context.Background()
	stores, cs, rl := memRL(t, 5)
	st, err := rl.(driver.Inspector).Inspect(ctx, "k")
	require.NoError(t, err)
	assert.False(t, st.Held)

	stores.Take(t, "k", "o", 20*time.Second, 0)
	stores.Take(t, "k", "o", 30*time.Second, 1)
	stores.Take(t, "k", "o", 40*time.Second, 2, 2)
	stores.Take(t, "k", "x", 50*time.Second, 3)
	st, err = rl.(driver.Inspector).Inspect(ctx, "k")
	require.NoError(t, err)
	assert.True(t, st.Held, "one owner holds three members")
	assert.Equal(t, "o", st.Owner)
	assert.Equal(t, 1, st.Holds, "the holds three members have in common")
	assert.LessOrEqual(t, st.Remaining, 20*time.Second, "the lease three members have in common")
	assert.Greater(t, st.Remaining, 10*time.Second)

	cs[4].Partition()
	st, err = rl.(driver.Inspector).Inspect(ctx, "k")
	require.NoError(t, err, "four answers are enough to tell")
	assert.Equal(t, "o", st.Owner)
	stores.Force(t, "k", 0)
	_, err = rl.(driver.Inspector).Inspect(ctx, "k")
	require.Error(t, err, "two holds and one silent member cannot tell")
	assert.False(t, isSentinel(err), "%v", err)
}

// TestForceUnlock deletes the lock on every member.
func TestForceUnlock(t *testing.T) {
	ctx := context.Background()
	stores, cs, rl := memRL(t, 5)
	held, err := rl.(driver.ForceUnlocker).ForceUnlock(ctx, "k")
	require.NoError(t, err)
	assert.False(t, held)
	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	cs[0].Partition()
	held, err = rl.(driver.ForceUnlocker).ForceUnlock(ctx, "k")
	require.NoError(t, err, "one member out of reach cannot hold a quorum")
	assert.True(t, held)
	assert.Equal(t, []string{"o", "", "", "", ""}, stores.Holders(t, "k"))
	cs[1].Partition()
	cs[2].Partition()
	_, err = rl.(driver.ForceUnlocker).ForceUnlock(ctx, "k")
	assert.Error(t, err, "three members out of reach may still hold it")
}

// TestUnsupportedCapabilities: a member without inspection or force
// unlock leaves the combinator without them, which its type shows, and a
// Mutex on it reports ErrUnsupported without a call; a member without
// notification is just not watched, and a Mutex waits through the others.
func TestUnsupportedCapabilities(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(3)
	cs := stores.Clients()
	members := quorumtest.Backends(cs)
	members[1] = quorumtest.Bare{Backend: cs[1]}
	rl := newRL(t, members)

	stop, err := rl.(driver.Notifier).Watch(ctx, "k", func() {})
	require.NoError(t, err, "the members that notify are watched")
	stop()
	_, inspects := rl.(driver.Inspector)
	_, forces := rl.(driver.ForceUnlocker)
	assert.False(t, inspects, "member 2 cannot inspect")
	assert.False(t, forces, "member 2 cannot force-unlock")
	m, err := newMutex(t, rl, "k")
	require.NoError(t, err)
	_, err = m.Inspect(ctx)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = m.ForceUnlock(ctx)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	assert.Zero(t, cs[0].Calls("inspect")+cs[0].Calls("forceunlock"))

	bare := newRL(t, []driver.Backend{quorumtest.Bare{Backend: stores.Store(0).Client()}, quorumtest.Bare{Backend: stores.Store(1).Client()}})
	_, notifies := bare.(driver.Notifier)
	assert.False(t, notifies, "no member notifies")

	holder, err := newMutex(t, rl, "k")
	require.NoError(t, err)
	waiter, err := newMutex(t, rl, "k")
	require.NoError(t, err)
	held, err := holder.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	got := make(chan error, 1)
	go func() {
		l, err := waiter.Lock(ctx, locker.WithLease(time.Minute))
		if err == nil {
			err = l.Unlock(ctx)
		}
		got <- err
	}()
	time.Sleep(50 * time.Millisecond)
	require.NoError(t, held.Unlock(ctx))
	select {
	case err := <-got:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not get the lock after its release")
	}

	full := newRL(t, quorumtest.Backends(quorumtest.NewMem(3).Clients()))
	_, notifies = full.(driver.Notifier)
	_, inspects = full.(driver.Inspector)
	_, forces = full.(driver.ForceUnlocker)
	assert.True(t, notifies && inspects && forces, "every member has every capability")
}
