package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/distlock/distlock/internal/noserver"
	"github.com/distlock/distlock/internal/redistest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestRedisExample(t *testing.T) {
	srv := redistest.Start(t)
	var out strings.Builder
	// Work three times the lease: only renewals keep the lock.
	require.NoError(t, run(context.Background(), &out, "redis://"+srv.Addr(), 1500*time.Millisecond, 4500*time.Millisecond))
	got := out.String()
	t.Log(got)
	assert.Contains(t, got, "renewed every 500ms")
	assert.GreaterOrEqual(t, strings.Count(got, "another client's attempt: refused"), 3)
	assert.NotContains(t, got, "ACQUIRED")
	assert.Contains(t, got, "(higher: true)")
}

func TestRedisExampleExplainsAnUnreachableServer(t *testing.T) {
	addr := noserver.Addr(t)

	var out strings.Builder
	err := run(context.Background(), &out, "redis://:hunter2@"+addr, time.Second, time.Second)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot reach Redis at redis://:xxxxx@"+addr)
	assert.Contains(t, err.Error(), "redis-server")
	assert.NotContains(t, err.Error(), "hunter2")
	assert.Empty(t, out.String())
}
