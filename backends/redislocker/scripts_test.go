package redislocker_test

import (
	"context"
	"strconv"
	"strings"
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

// evalCalls returns how often the server ran EVAL and EVALSHA successfully.
func evalCalls(t *testing.T, srv *redistest.Server) (eval, evalsha int) {
	t.Helper()
	info, err := srv.Info("commandstats")
	require.NoError(t, err)
	return statCalls(info["cmdstat_eval"]), statCalls(info["cmdstat_evalsha"]) - statField(info["cmdstat_evalsha"], "failed_calls")
}

func statCalls(stat string) int { return statField(stat, "calls") }

// statField reads one field of an INFO commandstats entry
// ("calls=3,usec=...,failed_calls=1").
func statField(stat, name string) int {
	for f := range strings.SplitSeq(stat, ",") {
		if k, v, ok := strings.Cut(f, "="); ok && k == name {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// TestScriptsSurviveScriptFlush runs every operation after SCRIPT FLUSH:
// each works, falls back to EVAL once, and runs by digest again after.
func TestScriptsSurviveScriptFlush(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	ctx := context.Background()
	key, owner := "flushed", locker.NewOwner()

	ops := func() {
		t.Helper()
		g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: time.Minute})
		require.NoError(t, err)
		require.True(t, g.Acquired)
		require.NoError(t, b.Expire(ctx, key, owner, time.Minute))
		require.Equal(t, []error{nil}, b.ExpireBatch(ctx, []driver.Renewal{{Key: key, Owner: owner, TTL: time.Minute}}))
		st, err := b.Inspect(ctx, key)
		require.NoError(t, err)
		require.Equal(t, owner, st.Owner)
		require.NoError(t, b.Unlock(ctx, key, owner))
		held, err := b.ForceUnlock(ctx, key)
		require.NoError(t, err)
		require.False(t, held)
	}
	ops() // loads every script
	_, err := srv.Do("SCRIPT", "FLUSH")
	require.NoError(t, err)
	eval0, sha0 := evalCalls(t, srv)

	ops()
	eval1, _ := evalCalls(t, srv)
	assert.Equal(t, 6, eval1-eval0, "each of the six scripts falls back to EVAL once")

	ops()
	eval2, sha2 := evalCalls(t, srv)
	assert.Equal(t, eval1, eval2, "after the fallback the scripts run by digest")
	assert.Equal(t, 6, sha2-sha0, "six successful EVALSHA in the last round")
}

// argCounter is a go-redis hook that records the most elements of any
// command the client sent.
type argCounter struct {
	mu   sync.Mutex
	most map[string]int // command name -> most elements
}

func (h *argCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *argCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.mu.Lock()
		h.most[cmd.Name()] = max(h.most[cmd.Name()], len(cmd.Args()))
		h.mu.Unlock()
		return next(ctx, cmd)
	}
}

func (h *argCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestScriptCallsWithinTenElements: every single-lock operation sends a
// command of at most ten elements, so that a client without the password
// gets the server's plain NOAUTH (see scripts.go). A queued, refused and
// reserved lock takes every script's slow path too.
func TestScriptCallsWithinTenElements(t *testing.T) {
	srv := redistest.Start(t)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	h := &argCounter{most: map[string]int{}}
	client.AddHook(h)
	b, err := redislocker.New(client, redislocker.WithOwnedClient())
	require.NoError(t, err)
	defer b.Close()
	ctx := context.Background()
	holder, waiter := locker.NewOwner(), locker.NewOwner()
	floor := uint64(time.Now().UnixMicro())

	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: holder, TTL: time.Minute, Floor: floor})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	g, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: waiter, TTL: time.Minute, Patience: time.Minute})
	require.NoError(t, err)
	require.False(t, g.Acquired)
	require.NoError(t, b.Expire(ctx, "k", holder, time.Minute))
	require.NoError(t, b.Fence(ctx, "k", holder, g.Token+1))
	_, err = b.Inspect(ctx, "k")
	require.NoError(t, err)
	require.NoError(t, b.Unlock(ctx, "k", holder)) // reserves the lock for the waiter
	require.NoError(t, b.Dequeue(ctx, "k", waiter))
	_, err = b.ForceUnlock(ctx, "k")
	require.NoError(t, err)

	require.NotZero(t, h.most["evalsha"])
	for name, n := range h.most {
		assert.LessOrEqual(t, n, 10, "%s sent with %d elements", name, n)
	}
}
