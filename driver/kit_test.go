package driver_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

func TestChecksSayWhatIsWrong(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{driver.CheckKey(""), "invalid argument: empty key"},
		{driver.CheckOwner("k", ""), "invalid argument: empty owner"},
		{driver.CheckLease("k", "o", 0), "invalid argument: non-positive lease 0s"},
		{driver.CheckRequest(driver.Request{Key: "k", Owner: "o", TTL: time.Second, Patience: -1}), "invalid argument: negative patience -1ns"},
	}
	for _, c := range cases {
		require.ErrorIs(t, c.err, driver.ErrInvalid)
		assert.EqualError(t, c.err, c.want)
	}
	assert.NoError(t, driver.CheckRequest(driver.Request{Key: "k", Owner: "o", TTL: time.Second}))
}

func TestGuardWaitsForCallsInFlight(t *testing.T) {
	var g driver.Guard
	require.NoError(t, g.Enter())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer g.Bind(cancel)()

	var order []string
	closed := make(chan error, 1)
	go func() {
		closed <- g.Close(func() error {
			order = append(order, "cut")
			return nil
		}, func() error {
			order = append(order, "release")
			return errors.New("released")
		})
	}()
	select {
	case <-ctx.Done(): // Close ends bound contexts before it waits
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end a bound context")
	}
	assert.ErrorIs(t, g.Enter(), driver.ErrClosed, "no call starts once Close has begun")
	select {
	case <-closed:
		t.Fatal("Close returned with a call in flight")
	case <-time.After(20 * time.Millisecond):
	}
	g.Exit()
	require.EqualError(t, <-closed, "released")
	assert.Equal(t, []string{"cut", "release"}, order)
	assert.EqualError(t, g.Close(nil, nil), "released", "a second Close returns the first one's result")
	assert.True(t, g.Closed())
	<-g.Halted()
}

// expirer counts Expire calls; its batch, when it has one, answers with n
// results.
type expirer struct {
	driver.Backend
	expires atomic.Int32
}

func (e *expirer) Expire(context.Context, string, string, time.Duration) error {
	e.expires.Add(1)
	return driver.ErrNotHeld
}

type batcher struct {
	*expirer
	n int
}

func (b batcher) ExpireBatch(_ context.Context, rs []driver.Renewal) []error {
	return make([]error, b.n)
}

func TestExpireAll(t *testing.T) {
	ctx := context.Background()
	rs := make([]driver.Renewal, 40)
	e := &expirer{}
	errs := driver.ExpireAll(ctx, e, rs)
	require.Len(t, errs, len(rs))
	for _, err := range errs {
		assert.ErrorIs(t, err, driver.ErrNotHeld)
	}
	assert.EqualValues(t, len(rs), e.expires.Load(), "without a batch, one Expire per renewal")

	e = &expirer{}
	errs = driver.ExpireAll(ctx, batcher{e, len(rs)}, rs)
	require.Len(t, errs, len(rs))
	assert.Zero(t, e.expires.Load(), "a batch is one call")
	for _, err := range errs {
		assert.NoError(t, err)
	}

	errs = driver.ExpireAll(ctx, batcher{e, 3}, rs)
	require.Len(t, errs, len(rs), "a batch that answers wrongly fails every renewal")
	for _, err := range errs {
		assert.True(t, driver.IsUnknown(err), "%v", err)
	}
}

func TestGuardStartBindsTheCallToClose(t *testing.T) {
	var g driver.Guard
	ctx, call, err := g.Start(context.Background(), time.Minute)
	require.NoError(t, err)
	closed := make(chan error, 1)
	go func() { closed <- g.Close(nil, nil) }()
	<-ctx.Done() // Close ends the call's context before it waits
	call.End()
	require.NoError(t, <-closed)
	_, _, err = g.Start(context.Background(), 0)
	assert.ErrorIs(t, err, driver.ErrClosed)
}
