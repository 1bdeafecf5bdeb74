package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/internal/redistest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const wantOutput = `a RedLock of 5 stores needs 3 of them
A holds the lock with token 1
B's attempt: not acquired: true
after A's unlock B holds it with token 2 (higher: true)
2 of 5 stores refuse: A still gets the lock (3 agree)
3 of 5 stores refuse: A does not get the lock (only 2 agree)
`

func TestRedlockRunsWithoutAServer(t *testing.T) {
	var urls []string
	for _, n := range []string{"1", "2", "3", "4", "5"} {
		urls = append(urls, "mem://redlock-test-"+n)
	}
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out, urls))
	assert.Equal(t, wantOutput, out.String())
}

func TestRedlockOnFiveRedisServers(t *testing.T) {
	var urls []string
	for range 5 {
		urls = append(urls, "redis://"+redistest.Start(t).Addr())
	}
	var out strings.Builder
	// The servers have just started: without turning the guard off, none
	// would count for 30 s.
	require.NoError(t, run(context.Background(), &out, urls, combine.WithRestartGuard(0)))
	got := out.String()
	t.Log(got)
	// Redis tokens are seeded from the server clock: compare all but them.
	assert.Contains(t, got, "B's attempt: not acquired: true")
	assert.Contains(t, got, "(higher: true)")
	assert.Contains(t, got, "2 of 5 stores refuse: A still gets the lock (3 agree)")
	assert.Contains(t, got, "3 of 5 stores refuse: A does not get the lock (only 2 agree)")

	out.Reset()
	err := run(context.Background(), &out, urls)
	require.Error(t, err, "fresh servers are inside the default restart guard")
	assert.Contains(t, err.Error(), "restart-guard")
}
