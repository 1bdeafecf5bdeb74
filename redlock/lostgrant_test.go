package redlock_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
)

// losesGrant is a mem client (every capability of it, its queue among
// them) whose next Expire, once armed, finds the lock gone, as after a
// restart of a store that keeps nothing: the lock is forced free first.
type losesGrant struct {
	*memlocker.Client
	armed atomic.Bool
}

func (l *losesGrant) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	if l.armed.CompareAndSwap(true, false) {
		if _, err := l.ForceUnlock(ctx, key); err != nil {
			return err
		}
	}
	return l.Client.Expire(ctx, key, owner, ttl)
}

// TestAWaiterWhoseGrantWasLostAsksTheLineMemberAgain: a waiter renews the
// grant a turn brought it on the line member (see renewTurn); when the
// line member lost that grant meanwhile, the same attempt asks it for the
// lock, rather than counting it as a refusal and waiting for the safety
// net while nobody holds the lock there. Here the quorum needs the line
// member: one of the other two members is held by another owner.
func TestAWaiterWhoseGrantWasLostAsksTheLineMemberAgain(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(3)
	line := 0
	for i, c := range stores.Clients() {
		if c.Endpoint() < stores.Clients()[line].Endpoint() {
			line = i // the least endpoint (see the line member's rule)
		}
	}
	lossy := make([]*losesGrant, stores.Len())
	open := queueMutexes(t, func() []driver.Backend {
		members := make([]driver.Backend, stores.Len())
		for i, c := range stores.Clients() {
			if lossy[i] == nil {
				lossy[i] = &losesGrant{Client: c}
			}
			members[i] = lossy[i]
		}
		return members
	})
	holder, waiter := open(), open()
	stale := (line + 1) % stores.Len()
	g, err := stores.Clients()[stale].TryLock(ctx, driver.Request{Key: "k", Owner: "stale-" + locker.NewOwner(), TTL: time.Hour})
	require.NoError(t, err)
	require.True(t, g.Acquired)

	held, err := holder.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	type lock struct {
		at    time.Time
		lease *locker.Lease
		err   error
	}
	took := make(chan lock, 1)
	go func() {
		l, err := waiter.Lock(ctx, locker.WithLease(time.Minute), locker.WithWait(10*time.Second))
		took <- lock{time.Now(), l, err}
	}()
	time.Sleep(100 * time.Millisecond) // the waiter is in line
	lossy[line].armed.Store(true)
	released := time.Now()
	require.NoError(t, held.Unlock(ctx))
	select {
	case l := <-took:
		require.NoError(t, l.err, "the waiter")
		d := l.at.Sub(released)
		assert.Less(t, d, 250*time.Millisecond, "the waiter took the lock %v after the release", d)
		require.NoError(t, l.lease.Unlock(ctx))
	case <-time.After(15 * time.Second):
		require.FailNow(t, "the waiter did not return")
	}
	assert.False(t, lossy[line].armed.Load(), "the waiter renewed its grant on the line member")
}
