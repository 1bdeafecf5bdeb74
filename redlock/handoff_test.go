package redlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
)

// TestMixedHandOff: a RedLock of two members that notify and one that
// cannot (as memcached) still wakes a waiter on the holder's Unlock,
// through the members that notify, instead of polling: the waiter has the
// lock soon after the release, although it has waited long enough for a
// poll to have backed off to half a second.
func TestMixedHandOff(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(3)
	cs := stores.Clients()
	members := quorumtest.Backends(cs)
	members[2] = quorumtest.Bare{Backend: cs[2]}
	rl := newRL(t, members)
	_, notifies := rl.(driver.Notifier)
	require.True(t, notifies, "two members notify")

	const bound = 150 * time.Millisecond // a notified hand-off takes about a millisecond
	for run := range 5 {
		holder, err := newMutex(t, rl, "k")
		require.NoError(t, err)
		waiter, err := newMutex(t, rl, "k")
		require.NoError(t, err)
		held, err := holder.Lock(ctx, locker.WithLease(time.Minute))
		require.NoError(t, err)
		got := make(chan time.Time, 1)
		done := make(chan struct{})
		go func() {
			defer close(done)
			l, err := waiter.Lock(ctx, locker.WithLease(time.Minute), locker.WithWait(10*time.Second))
			got <- time.Now()
			if assert.NoError(t, err, "run %d", run) {
				assert.NoError(t, l.Unlock(ctx))
			}
		}()
		time.Sleep(1500 * time.Millisecond) // a polling waiter would now poll every 250-500 ms
		released := time.Now()
		require.NoError(t, held.Unlock(ctx))
		handOff := (<-got).Sub(released)
		t.Logf("run %d: hand-off %v", run, handOff)
		assert.Less(t, handOff, bound, "run %d", run)
		<-done
	}
}
