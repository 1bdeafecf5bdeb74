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

func TestMultilockRunsWithoutAServer(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out, "mem://multilock-test"))
	t.Log(out.String())
	lines := strings.Split(out.String(), "\n")
	require.Len(t, lines, 6)
	assert.Equal(t, "before: alice 100, bob 100", lines[0])
	// 100 - 5×10 + 5×5 - 5×1 = 70: no transfer was lost.
	assert.Equal(t, "after:  alice 70, bob 130 (total 200)", lines[1])
	assert.Contains(t, lines[2], "a transfer holds multilock(")
	assert.Equal(t, "meanwhile alice's account alone: true", lines[3])
	assert.Equal(t, "meanwhile bob's account alone: true", lines[4])
}
