package locker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/locker"
)

func TestLeaseContextEndsWithTheHold(t *testing.T) {
	ctx := context.Background()
	m := newMutex(t, memlocker.New(), "k")

	l, err := m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	lctx, cancel := l.Context(ctx)
	defer cancel()
	require.NoError(t, lctx.Err())
	require.NoError(t, l.Unlock(ctx))
	<-lctx.Done()
	assert.ErrorIs(t, context.Cause(lctx), locker.ErrReleased)

	l, err = m.Lock(ctx, locker.WithLease(50*time.Millisecond))
	require.NoError(t, err)
	lctx, cancel = l.Context(ctx)
	defer cancel()
	select {
	case <-lctx.Done():
		assert.ErrorIs(t, context.Cause(lctx), locker.ErrLost)
	case <-time.After(5 * time.Second):
		t.Fatal("the lease's context did not end when the lease ran out")
	}
	// A context asked for after the end is born cancelled.
	late, cancel2 := l.Context(ctx)
	defer cancel2()
	assert.ErrorIs(t, context.Cause(late), locker.ErrLost)
	assert.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)

	// Cancelling the parent or the context itself does not touch the hold.
	l, err = m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	parent, cancelParent := context.WithCancel(ctx)
	lctx, cancel = l.Context(parent)
	cancelParent()
	<-lctx.Done()
	cancel()
	assert.NoError(t, l.Err())
	require.NoError(t, l.Unlock(ctx))
}

func TestDoRunsUnderTheLockAndUnlocks(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	m := newMutex(t, c, "k")
	boom := errors.New("boom")
	err := m.Do(ctx, func(ctx context.Context) error {
		held, err := m.IsLocked(ctx)
		require.NoError(t, err)
		assert.True(t, held)
		return boom
	}, locker.WithLease(time.Minute))
	assert.ErrorIs(t, err, boom, "fn's error is returned")
	held, err := m.IsLocked(ctx)
	require.NoError(t, err)
	assert.False(t, held, "Do unlocks")

	// A lock lost while fn runs cancels fn's context, and Do says so.
	err = m.Do(ctx, func(lctx context.Context) error {
		_, err := m.ForceUnlock(ctx)
		require.NoError(t, err)
		<-lctx.Done() // the lease expires locally when its renewal fails
		return context.Cause(lctx)
	}, locker.WithLease(100*time.Millisecond))
	assert.ErrorIs(t, err, locker.ErrLost)

	// A panic in fn still unlocks, and goes on.
	func() {
		defer func() { assert.Equal(t, "oops", recover()) }()
		_ = m.Do(ctx, func(context.Context) error { panic("oops") })
	}()
	held, err = m.IsLocked(ctx)
	require.NoError(t, err)
	assert.False(t, held, "Do unlocks when fn panics")

	require.ErrorIs(t, m.Do(ctx, nil), locker.ErrInvalid)
}
