package redislocker_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
)

// roundTrips counts what a client sends: single commands and pipelines.
type roundTrips struct {
	mu        sync.Mutex
	single    int
	pipelines int
	pipedCmds int
}

func (r *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		r.mu.Lock()
		r.single++
		r.mu.Unlock()
		return next(ctx, cmd)
	}
}

func (r *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		r.mu.Lock()
		r.pipelines++
		r.pipedCmds += len(cmds)
		r.mu.Unlock()
		return next(ctx, cmds)
	}
}

func (r *roundTrips) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.single, r.pipelines, r.pipedCmds = 0, 0, 0
}

func (r *roundTrips) counts() (single, pipelines, pipedCmds int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.single, r.pipelines, r.pipedCmds
}

// holdMany takes n locks with a short lease and returns their renewals.
func holdMany(t *testing.T, b driver.Backend, n int, lease, renewTo time.Duration) []driver.Renewal {
	t.Helper()
	ctx := context.Background()
	owner := locker.NewOwner()
	renewals := make([]driver.Renewal, n)
	for i := range renewals {
		key := fmt.Sprint("batch/", i)
		g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: lease})
		require.NoError(t, err)
		require.True(t, g.Acquired)
		renewals[i] = driver.Renewal{Key: key, Owner: owner, TTL: renewTo}
	}
	return renewals
}

func TestBatchRenewalIsOneRoundTrip(t *testing.T) {
	srv := redistest.Start(t)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	counter := &roundTrips{}
	client.AddHook(counter)
	b, err := redislocker.New(client, redislocker.WithOwnedClient())
	require.NoError(t, err)
	defer b.Close()
	ctx := context.Background()

	renewals := holdMany(t, b, 1000, 10*time.Second, time.Hour)
	// The first batch loads the script and opens a pipeline connection.
	require.Equal(t, []error{nil}, b.ExpireBatch(ctx, renewals[:1]))
	_, sha0 := evalCalls(t, srv)
	counter.reset()
	errs := b.ExpireBatch(ctx, renewals)
	single, pipelines, piped := counter.counts()
	_, sha1 := evalCalls(t, srv)

	require.Len(t, errs, 1000)
	for i, err := range errs {
		require.NoError(t, err, "renewal %d", i)
	}
	assert.Zero(t, single, "no command outside the pipeline")
	assert.Equal(t, 1, pipelines, "1,000 renewals in one round trip")
	assert.Equal(t, 4, piped, "1,000 renewals in four batch scripts of at most 256")
	assert.Equal(t, 4, sha1-sha0, "the server ran four scripts")

	for _, i := range []int{0, 499, 999} {
		st, err := b.Inspect(ctx, fmt.Sprint("batch/", i))
		require.NoError(t, err)
		assert.Greater(t, st.Remaining, time.Minute, "lock %d was renewed", i)
	}
}

func TestBatchRenewalOnCluster(t *testing.T) {
	cluster := redistest.StartCluster(t, 3)
	client := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cluster.Addrs(), ContextTimeoutEnabled: true})
	counter := &roundTrips{}
	client.AddHook(counter)
	b, err := redislocker.New(client, redislocker.WithOwnedClient())
	require.NoError(t, err)
	defer b.Close()
	ctx := context.Background()

	renewals := holdMany(t, b, 1000, 10*time.Second, time.Hour)
	stranger := locker.NewOwner()
	renewals = append(renewals, driver.Renewal{Key: "batch/0", Owner: stranger, TTL: time.Hour})
	// A first batch loads the script on every node and opens the pipeline
	// connections.
	for i, err := range b.ExpireBatch(ctx, renewals[:1000]) {
		require.NoError(t, err, "warm-up renewal %d", i)
	}
	counter.reset()
	errs := b.ExpireBatch(ctx, renewals)
	single, pipelines, _ := counter.counts()
	for i, err := range errs[:1000] {
		require.NoError(t, err, "renewal %d", i)
	}
	assert.ErrorIs(t, errs[1000], locker.ErrNotHeld, "a stranger's renewal in the same batch")
	assert.Zero(t, single, "no command outside the pipeline")
	assert.Equal(t, 1, pipelines, "one pipeline, which go-redis splits by node")
}

func TestBatchRenewalInput(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	ctx := context.Background()
	o := locker.NewOwner()
	_, err := b.TryLock(ctx, driver.Request{Key: "good", Owner: o, TTL: time.Minute})
	require.NoError(t, err)
	errs := b.ExpireBatch(ctx, []driver.Renewal{
		{Key: "", Owner: o, TTL: time.Minute},
		{Key: "good", Owner: o, TTL: time.Minute},
		{Key: "good", Owner: "", TTL: time.Minute},
		{Key: "good", Owner: o, TTL: 0},
	})
	assert.ErrorIs(t, errs[0], locker.ErrInvalid)
	assert.NoError(t, errs[1], "a bad renewal does not spoil the good ones")
	assert.ErrorIs(t, errs[2], locker.ErrInvalid)
	assert.ErrorIs(t, errs[3], locker.ErrInvalid)
	require.NoError(t, b.Close())
	errs = b.ExpireBatch(ctx, []driver.Renewal{{Key: "good", Owner: o, TTL: time.Minute}})
	assert.ErrorIs(t, errs[0], locker.ErrClosed)
}
