package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestFencingRunsWithoutAServer(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out, "mem://fencing-test", 200*time.Millisecond))
	t.Log(out.String())
	want := `A holds the lock with token 1 for 200ms
A writes with token 1: accepted
A pauses (a long garbage collection, a stopped VM, a swap storm)...
B took the lock after A's lease ran out, with token 2
B writes with token 2: accepted
A wakes up and, without looking at its lease, writes again:
A writes with token 1: REFUSED: stale fencing token 1 (the resource has seen 2)
had A looked, lease.Done() was closed: lock lost: the lease ran out
the resource holds ["A: part 1" "B: the whole file"]
`
	assert.Equal(t, want, out.String())
}

func TestResourceAcceptsEqualAndHigherTokens(t *testing.T) {
	var r resource
	require.NoError(t, r.write(3, "a"))
	require.NoError(t, r.write(3, "b"), "the same hold writes twice")
	require.NoError(t, r.write(5, "c"))
	require.ErrorAs(t, r.write(4, "d"), new(errStale))
	assert.Equal(t, []string{"a", "b", "c"}, r.contents())
}
