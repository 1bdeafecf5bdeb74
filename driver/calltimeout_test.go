package driver_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

func TestTheCallTimeoutEndsTheCallAsADeadlineWould(t *testing.T) {
	var g driver.Guard
	ctx, call, err := g.Start(context.Background(), 20*time.Millisecond)
	require.NoError(t, err)
	defer call.End()
	_, ok := ctx.Deadline()
	assert.False(t, ok, "the call timeout is not a deadline a client would send to the server")
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the call timeout did not end the call's context")
	}
	assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	assert.ErrorContains(t, context.Cause(ctx), "call timeout")
}

func TestTheCallTimeoutKeepsTheCallersDeadlineAndCancellation(t *testing.T) {
	var g driver.Guard
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

func TestACallThatEndedIsNotTimedOutLater(t *testing.T) {
	var g driver.Guard
	ctx, call, err := g.Start(context.Background(), 20*time.Millisecond)
	require.NoError(t, err)
	call.End()
	time.Sleep(60 * time.Millisecond) // past the call timeout
	assert.ErrorIs(t, ctx.Err(), context.Canceled, "the call ended before its timeout")
	assert.NotErrorIs(t, ctx.Err(), context.DeadlineExceeded)
}
