package locker_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
)

// scheduling is how long after its deadline a lease's timer may take to
// close Done on a busy machine (under -race, with other tests running).
// The leases below are long enough that a Done closed only when a failed
// renewal returns comes later than this: a tenth of the lease late.
const scheduling = 50 * time.Millisecond

// requireDoneByDeadline checks, once the lease's Deadline plus a small
// scheduling margin has passed, that Done is closed. A renewal that was in
// flight when the test cut the store off may still move the deadline, so
// the check follows it.
func requireDoneByDeadline(t *testing.T, l *locker.Lease) {
	t.Helper()
	for {
		dl := l.Deadline()
		time.Sleep(time.Until(dl.Add(scheduling)))
		select {
		case <-l.Done():
			require.ErrorIs(t, l.Err(), locker.ErrLost)
			return
		default:
		}
		if l.Deadline().Equal(dl) {
			t.Fatalf("Done still open %v after the lease's deadline", time.Since(dl))
		}
	}
}

func TestWatchdogLeaseEndsByDeadlineWhileRenewalsHang(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	m := newMutex(t, c, "k", locker.WithWatchdogLease(time.Second))
	l, err := m.Lock(ctx)
	require.NoError(t, err)

	c.SetLatency(time.Hour) // every renewal hangs until its timeout
	requireDoneByDeadline(t, l)
	assert.ErrorContains(t, l.Err(), "before a renewal reached the store")
	c.SetLatency(0)
	require.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)
}

func TestWatchdogLeaseEndsByDeadlineWhilePartitioned(t *testing.T) {
	ctx := context.Background()
	s := memlocker.NewStore()
	c := s.Client()
	m := newMutex(t, c, "k", locker.WithWatchdogLease(3*time.Second))
	l, err := m.Lock(ctx)
	require.NoError(t, err)

	c.Partition()
	requireDoneByDeadline(t, l)

	other, err := newMutex(t, s.Client(), "k").Lock(ctx, locker.WithWait(2*time.Second))
	require.NoError(t, err, "the store's lease ends with the holder's deadline")
	require.NoError(t, other.Unlock(ctx))
	c.Heal()
	require.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)
}

func TestWatchdogLeaseEndsAtDeadlineOnTheFakeClock(t *testing.T) {
	ctx := context.Background()
	clock := memlocker.NewManualClock(time.Unix(1e9, 0))
	c := memlocker.New(memlocker.WithClock(clock))
	const lease = 300 * time.Millisecond
	m := newMutex(t, c, "k", locker.WithWatchdogLease(lease))
	l, err := m.Lock(ctx)
	require.NoError(t, err)
	require.Equal(t, clock.Now().Add(lease), l.Deadline())

	c.SetLatency(time.Hour) // the renewal hangs until its timeout
	clock.Advance(lease / 3)
	require.Eventually(t, func() bool { return c.Calls("expirebatch") == 1 }, 5*time.Second, time.Millisecond,
		"the renewal a third of the lease in")
	clock.Advance(lease - lease/3 - time.Millisecond)
	select {
	case <-l.Done():
		t.Fatal("Done closed before the deadline")
	default:
	}
	clock.Advance(time.Millisecond)
	select {
	case <-l.Done():
	default:
		t.Fatal("Done still open at the deadline while the renewal hangs")
	}
	require.ErrorIs(t, l.Err(), locker.ErrLost)
	c.SetLatency(0)
	require.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)
}

// lateReplies is a memlocker client whose batched renewals run on the
// store, after which the hook runs before the reply is returned: a reply
// held up on its way back.
type lateReplies struct {
	*memlocker.Client
	hook func()
}

func (b *lateReplies) ExpireBatch(ctx context.Context, rs []driver.Renewal) []error {
	errs := b.Client.ExpireBatch(ctx, rs)
	b.hook()
	return errs
}

func TestRenewalReplyAfterTheDeadlineDoesNotReviveTheLease(t *testing.T) {
	ctx := context.Background()
	clock := memlocker.NewManualClock(time.Unix(1e9, 0))
	const lease = 30 * time.Second
	b := &lateReplies{Client: memlocker.New(memlocker.WithClock(clock))}
	// The renewal succeeds on the store, but its reply comes back after
	// the lease's deadline.
	b.hook = func() { clock.Advance(lease) }
	m := newMutex(t, b, "k", locker.WithWatchdogLease(lease))
	l, err := m.Lock(ctx)
	require.NoError(t, err)

	clock.Advance(lease / 3)
	select {
	case <-l.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done still open after a renewal whose reply came past the deadline")
	}
	require.ErrorIs(t, l.Err(), locker.ErrLost)
	assert.ErrorContains(t, l.Err(), "before a renewal reached the store")
	assert.Greater(t, clock.Now(), l.Deadline(), "the late renewal must not move the deadline")

	b.hook = func() {}
	clock.Advance(lease)
	time.Sleep(20 * time.Millisecond) // a renewal that went out would be counted by now
	assert.Equal(t, 1, b.Calls("expirebatch"), "a lease that ran out is renewed no more")
	require.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)
}

func TestWatchdogLeaseEndsByDeadlineWhileRedisIsPaused(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true, MaxRetries: -1})
	defer client.Close()
	b, err := redislocker.New(client)
	require.NoError(t, err)
	defer b.Close()
	m := newMutex(t, b, "k", locker.WithWatchdogLease(time.Second))
	l, err := m.Lock(ctx)
	require.NoError(t, err)

	srv.Stop()
	requireDoneByDeadline(t, l)
	srv.Cont()
	uctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_ = l.Unlock(uctx) // the store's lease may or may not have run out yet
}
