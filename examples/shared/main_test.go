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

func TestSharedRunsWithoutAServer(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(context.Background(), &out, "mem://shared"))
	got := out.String()
	t.Log(got)
	assert.Contains(t, got, "writer publishes version 1, alone")
	assert.Contains(t, got, "writer publishes version 2, alone")
	assert.Contains(t, got, "3 readers read version 2 beside the writer's read hold")
	assert.NotContains(t, got, "reader 0:", "every reader reads the version its hold carries")
	assert.NotContains(t, got, "reader 1:")
	assert.NotContains(t, got, "reader 2:")
	assert.Regexp(t, `8 jobs ran, at most [1-3] at once, through 3 permits`, got)
}
