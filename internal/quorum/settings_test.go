package quorum

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestMemberTimeoutDefaults(t *testing.T) {
	s := DefaultSettings(Majority)
	assert.Equal(t, 50*time.Millisecond, s.leaseTimeout(10*time.Second), "the top of Redis's 5-50 ms for a 10 s lease")
	assert.Equal(t, 150*time.Millisecond, s.leaseTimeout(30*time.Second))
	assert.Equal(t, 50*time.Millisecond, s.leaseTimeout(time.Second), "the floor")
	assert.Equal(t, DefaultCallTimeout, s.plainTimeout())
	assert.NoError(t, s.SetMemberTimeout(time.Second))
	assert.Equal(t, time.Second, s.leaseTimeout(10*time.Second))
	assert.Equal(t, time.Second, s.plainTimeout())
}

func TestDriftAndGuard(t *testing.T) {
	s := DefaultSettings(Majority)
	assert.Equal(t, 102*time.Millisecond, s.drift(10*time.Second))
	assert.Equal(t, DefaultRestartGuard, s.guardWindow(time.Second))
	assert.Equal(t, time.Minute, s.guardWindow(time.Minute), "the guard covers the lease")
	assert.NoError(t, s.SetRestartGuard(0))
	assert.Zero(t, s.guardWindow(time.Minute), "off")
	all := DefaultSettings(All)
	assert.Zero(t, all.guardWindow(time.Minute), "a MultiLock needs no guard")
}

func TestKthLargest(t *testing.T) {
	assert.Equal(t, 3, kthLargest([]int{1, 5, 3, 2}, 2))
	assert.Equal(t, 1, kthLargest([]int{1, 5, 3, 2}, 4))
	assert.Equal(t, 20*time.Second, kthLargest([]time.Duration{40 * time.Second, 20 * time.Second, 30 * time.Second}, 3))
}

func TestCallContext(t *testing.T) {
	// No deadline: the timeout.
	ctx, cancel := callContext(context.Background(), time.Hour)
	deadline, ok := ctx.Deadline()
	assert.True(t, ok)
	assert.InDelta(t, time.Hour.Seconds(), time.Until(deadline).Seconds(), 1)
	cancel()

	// A nearer deadline wins.
	parent, cancelParent := context.WithTimeout(context.Background(), time.Minute)
	ctx, cancel = callContext(parent, time.Hour)
	deadline, _ = ctx.Deadline()
	assert.Less(t, time.Until(deadline), time.Minute+time.Second)
	cancel()
	cancelParent()

	// A deadline that has passed leaves at least a millisecond.
	parent, cancelParent = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	before := time.Now()
	ctx, cancel = callContext(parent, time.Hour)
	deadline, _ = ctx.Deadline()
	assert.False(t, deadline.Before(before.Add(minCallTimeout)), "a last attempt gets its millisecond")
	<-ctx.Done()
	assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	cancel()
	cancelParent()

	// Cancelling the parent cancels the calls, before or during them.
	parent, cancelParent = context.WithCancel(context.Background())
	ctx, cancel = callContext(parent, time.Hour)
	cancelParent()
	select {
	case <-ctx.Done():
		assert.True(t, errors.Is(ctx.Err(), context.Canceled))
	case <-time.After(5 * time.Second):
		t.Fatal("cancelling the parent did not cancel the calls")
	}
	cancel()
	ctx, cancel = callContext(parent, time.Hour)
	assert.ErrorIs(t, ctx.Err(), context.Canceled, "an already cancelled parent")
	cancel()
}

func TestFanoutIsParallel(t *testing.T) {
	start := time.Now()
	fanout(context.Background(), time.Minute, 10, func(ctx context.Context, i int) {
		time.Sleep(50 * time.Millisecond)
	})
	assert.Less(t, time.Since(start), 500*time.Millisecond, "ten 50 ms calls one after another take 500 ms")
}
