package quorum

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/distlock/distlock/driver"
)

func TestMemberTimeoutDefaults(t *testing.T) {
	s := DefaultSettings(Majority)
	fresh := new(rtt)
	assert.Equal(t, time.Second, s.leaseTimeout(10*time.Second, fresh), "a tenth of the lease before any round trip")
	assert.Equal(t, 3*time.Second, s.leaseTimeout(30*time.Second, fresh))
	assert.Equal(t, 50*time.Millisecond, s.leaseTimeout(100*time.Millisecond, fresh), "the floor")
	assert.Equal(t, DefaultCallTimeout, s.plainTimeout(fresh))

	near := &rtt{smoothed: time.Millisecond}
	assert.Equal(t, 54*time.Millisecond, s.leaseTimeout(10*time.Second, near), "4 round trips and the floor")
	far := &rtt{smoothed: 100 * time.Millisecond}
	assert.Equal(t, 450*time.Millisecond, s.leaseTimeout(10*time.Second, far))
	assert.Equal(t, 100*time.Millisecond, s.leaseTimeout(time.Second, far), "at most a tenth of the lease")
	assert.Equal(t, DefaultCallTimeout, s.plainTimeout(far))
	assert.Equal(t, 2050*time.Millisecond, s.plainTimeout(&rtt{smoothed: 500 * time.Millisecond}))

	assert.NoError(t, s.SetMemberTimeout(time.Second))
	assert.Equal(t, time.Second, s.leaseTimeout(10*time.Second, near))
	assert.Equal(t, time.Second, s.plainTimeout(far))
}

// TestRTTObserve: answers are smoothed samples, a timeout raises the
// estimate to it, and other failures say nothing.
func TestRTTObserve(t *testing.T) {
	bg := context.Background()
	var r rtt
	_, ok := r.estimate()
	assert.False(t, ok)
	r.observe(bg, bg, 80*time.Millisecond, time.Second, nil)
	d, ok := r.estimate()
	assert.True(t, ok)
	assert.Equal(t, 80*time.Millisecond, d, "the first sample")
	r.observe(bg, bg, 160*time.Millisecond, time.Second, fmt.Errorf("x: %w", driver.ErrNotHeld))
	d, _ = r.estimate()
	assert.Equal(t, 90*time.Millisecond, d, "an eighth of the way to the new sample")
	r.observe(bg, bg, time.Millisecond, time.Second, errors.New("connection refused"))
	d, _ = r.estimate()
	assert.Equal(t, 90*time.Millisecond, d, "a failure is no sample")
	timedOut, cancel := context.WithTimeout(bg, 0)
	defer cancel()
	r.observe(timedOut, bg, 400*time.Millisecond, 400*time.Millisecond, context.DeadlineExceeded)
	d, _ = r.estimate()
	assert.Equal(t, 200*time.Millisecond, d, "a timeout raises the estimate to half of it: the next timeout doubles")
}

// TestFanoutAbandons: a call that ignores its context is abandoned after
// the deadline, and what it returns late goes to late.
func TestFanoutAbandons(t *testing.T) {
	ts := []target{{rtt: new(rtt)}, {rtt: new(rtt)}}
	release := make(chan struct{})
	lateCalls := make(chan int, 1)
	start := time.Now()
	rs, errs := fanout(context.Background(), ts, func(*rtt) time.Duration { return 50 * time.Millisecond },
		func(ctx context.Context, i int) (int, error) {
			if i == 1 {
				<-release // ignores ctx
			}
			return i + 10, nil
		}, func(i, r int, err error) { lateCalls <- r })
	assert.Less(t, time.Since(start), time.Second)
	assert.Equal(t, 10, rs[0])
	assert.NoError(t, errs[0])
	assert.ErrorIs(t, errs[1], errAbandoned)
	close(release)
	assert.Equal(t, 11, <-lateCalls)
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
	ts := make([]target, 10)
	for i := range ts {
		ts[i].rtt = new(rtt)
	}
	fanout(context.Background(), ts, func(*rtt) time.Duration { return time.Minute }, func(ctx context.Context, i int) (struct{}, error) {
		time.Sleep(50 * time.Millisecond)
		return struct{}{}, nil
	}, nil)
	assert.Less(t, time.Since(start), 500*time.Millisecond, "ten 50 ms calls one after another take 500 ms")
}
