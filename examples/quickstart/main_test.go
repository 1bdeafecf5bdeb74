package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestQuickstartRunsWithoutAServer(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out))
	got := out.String()
	t.Log(got)
	contention, expiry, ok := strings.Cut(got, "== a lease that runs out ==")
	require.True(t, ok, "the second part ran")
	assert.Equal(t, 6, strings.Count(contention, ": accepted"), "each of three workers writes twice, under the lock, in token order")
	assert.NotContains(t, contention, "REJECTED", "workers holding the lock in turn are never refused")
	assert.Contains(t, expiry, "slow worker's Done fired: lock lost: the lease ran out")
	assert.Contains(t, expiry, "slow worker writes with token 1: REJECTED (stale token)")
	assert.Contains(t, expiry, "fast worker writes with token 2: accepted")
}
