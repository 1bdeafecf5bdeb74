package driver_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

// timedOut waits for ctx to end, and fails unless the call timeout ended
// it.
func timedOut(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the call timeout did not end the call's context")
	}
	assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	assert.ErrorContains(t, context.Cause(ctx), "call timeout")
}

func TestTheCallTimeoutEndsTheCallAsADeadlineWould(t *testing.T) {
	var g driver.Guard
	defer g.Close(nil, nil)
	start := time.Now()
	ctx, call, err := g.Start(context.Background(), 20*time.Millisecond)
	require.NoError(t, err)
	defer call.End()
	_, ok := ctx.Deadline()
	assert.False(t, ok, "the call timeout is not a deadline a client would send to the server")
	timedOut(t, ctx)
	assert.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond)
}

func TestTheCallTimeoutKeepsTheCallersDeadlineAndCancellation(t *testing.T) {
	var g driver.Guard
	defer g.Close(nil, nil)
	want := time.Now().Add(time.Hour)
	parent, cancel := context.WithDeadline(context.Background(), want)
	ctx, call, err := g.Start(parent, 20*time.Millisecond)
	require.NoError(t, err)
	defer call.End()
	deadline, ok := ctx.Deadline()
	require.True(t, ok)
	assert.Equal(t, want, deadline)

	cancel()
	<-ctx.Done()
	time.Sleep(60 * time.Millisecond) // past the call timeout
	assert.ErrorIs(t, ctx.Err(), context.Canceled, "the caller ended the call, not the timeout")
	assert.ErrorIs(t, context.Cause(ctx), context.Canceled)
}

func TestACallerDeadlineBeforeTheCallTimeoutEndsTheCall(t *testing.T) {
	var g driver.Guard
	defer g.Close(nil, nil)
	parent, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	ctx, call, err := g.Start(parent, time.Hour)
	require.NoError(t, err)
	defer call.End()
	<-ctx.Done()
	assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	assert.NotContains(t, context.Cause(ctx).Error(), "call timeout", "the caller's deadline ended it")
}

func TestACallThatEndedIsNotTimedOutLater(t *testing.T) {
	var g driver.Guard
	defer g.Close(nil, nil)
	ctx, call, err := g.Start(context.Background(), 20*time.Millisecond)
	require.NoError(t, err)
	call.End()
	time.Sleep(60 * time.Millisecond) // past the call timeout
	assert.ErrorIs(t, ctx.Err(), context.Canceled, "the call ended before its timeout")
	assert.NotErrorIs(t, ctx.Err(), context.DeadlineExceeded)
}

// The calls of a Guard share one timer, armed for the earliest timeout and
// left armed when its call ends first: each call still ends at its own
// timeout, not before it and not much after it.
func TestEveryCallEndsAtItsOwnTimeout(t *testing.T) {
	var g driver.Guard
	defer g.Close(nil, nil)
	const timeout = 50 * time.Millisecond

	// The timer is armed for the first call, which ends at once; a later
	// call's timeout is after that, and the timer must be armed again.
	_, first, err := g.Start(context.Background(), timeout)
	require.NoError(t, err)
	time.Sleep(timeout / 2)
	start := time.Now()
	ctx, second, err := g.Start(context.Background(), timeout)
	require.NoError(t, err)
	defer second.End()
	first.End()
	timedOut(t, ctx)
	assert.GreaterOrEqual(t, time.Since(start), timeout, "the call ended before its timeout")

	// A call with a shorter timeout than the one the timer is armed for
	// ends at its own; the longer one is still in flight.
	long, longCall, err := g.Start(context.Background(), time.Hour)
	require.NoError(t, err)
	defer longCall.End()
	short, shortCall, err := g.Start(context.Background(), timeout)
	require.NoError(t, err)
	defer shortCall.End()
	timedOut(t, short)
	assert.NoError(t, long.Err(), "a call ended before its timeout")

	// Many calls in flight, ended in any order, each at its own timeout.
	var ctxs []context.Context
	for i := range 20 {
		ctx, call, err := g.Start(context.Background(), timeout+time.Duration(i)*time.Millisecond)
		require.NoError(t, err)
		if i%2 == 0 {
			call.End()
			continue
		}
		defer call.End()
		ctxs = append(ctxs, ctx)
	}
	for _, ctx := range ctxs {
		timedOut(t, ctx)
	}
	assert.NoError(t, long.Err())
}

// BenchmarkGuardStart is a call's cost in a Guard: its context, its call
// timeout and its binding to Close.
func BenchmarkGuardStart(b *testing.B) {
	var g driver.Guard
	defer g.Close(nil, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, call, err := g.Start(ctx, 5*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		call.End()
	}
}
