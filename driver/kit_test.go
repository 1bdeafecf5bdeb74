package driver_test

import (
	"context"
	"errors"
	"sync"
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
	ctx, call, err := g.Start(context.Background(), time.Minute)
	require.NoError(t, err)
	require.NoError(t, g.Enter())

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
	case <-ctx.Done(): // Close ends the contexts of Start before it waits
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the context of a call in flight")
	}
	assert.ErrorIs(t, ctx.Err(), context.Canceled)
	assert.ErrorIs(t, g.Enter(), driver.ErrClosed, "no call starts once Close has begun")
	_, _, err = g.Start(context.Background(), time.Minute)
	assert.ErrorIs(t, err, driver.ErrClosed)
	for _, end := range []func(){call.End, g.Exit} {
		select {
		case <-closed:
			t.Fatal("Close returned with a call in flight")
		case <-time.After(20 * time.Millisecond):
		}
		end()
	}
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

// Calls that wait on their context until it ends, as a call to a store that
// does not answer does, started while Close begins: every call Start lets
// in is ended by Close, or Close would wait for it forever.
func TestGuardCloseEndsEveryCallStartLetIn(t *testing.T) {
	for range 20 {
		var g driver.Guard
		var wg sync.WaitGroup
		for i := range 100 {
			wg.Go(func() {
				time.Sleep(time.Duration(i) * 20 * time.Microsecond)
				ctx, call, err := g.Start(context.Background(), time.Duration(i%3)*time.Hour)
				if err != nil {
					assert.ErrorIs(t, err, driver.ErrClosed)
					return
				}
				<-ctx.Done()
				call.End()
			})
		}
		time.Sleep(time.Millisecond)
		closed := make(chan error, 1)
		go func() { closed <- g.Close(nil, nil) }()
		select {
		case err := <-closed:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Fatal("Close waits for a call it did not end")
		}
		wg.Wait()
	}
}
