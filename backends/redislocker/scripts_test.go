package redislocker_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
