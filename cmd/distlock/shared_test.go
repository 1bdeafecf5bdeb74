package main

import (
	"encoding/json"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/internal/memcachedtest"
	"github.com/distlock/distlock/internal/redistest"
)

// TestRunTakesSharedLocks runs readers, a writer and semaphore holders in
// separate processes on one Redis.
func TestRunTakesSharedLocks(t *testing.T) {
	srv := redistest.Start(t)
	env := []string{"DISTLOCK_BACKEND=redis://" + srv.Addr()}
	marker := filepath.Join(t.TempDir(), "ran")

	reader := start(t, env, "run", "--read", "report", "--", "sh", "-c", holderScript)
	reader.expectLine("token=")
	r := distlock(t, env, "run", "--read", "--wait", "0", "report", "--", "true")
	assert.Equal(t, exitOK, r.code, "readers share the lock")
	r = distlock(t, env, "run", "--write", "--wait", "0", "report", "--", "touch", marker)
	assert.Equal(t, exitNotAcquired, r.code, "a reader keeps the writer out")
	assert.NoFileExists(t, marker)
	r = distlock(t, env, "run", "--wait", "0", "report", "--", "true")
	assert.Equal(t, exitOK, r.code, "the mutex of the same name is another lock")
	r = distlock(t, env, "status", "--rw", "report")
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, ", read, label ")
	r = distlock(t, env, "status", "report")
	assert.Equal(t, exitFree, r.code, "the mutex is free")
	reader.signal(syscall.SIGTERM)
	assert.Equal(t, exitOK, reader.wait())
	r = distlock(t, env, "run", "--write", "--wait", "0", "report", "--", "touch", marker)
	assert.Equal(t, exitOK, r.code, "with the reader gone the writer runs")
	assert.FileExists(t, marker)

	first := start(t, env, "run", "--permits", "2", "encoders", "--", "sh", "-c", holderScript)
	first.expectLine("token=")
	second := start(t, env, "run", "--permits", "2", "encoders", "--", "sh", "-c", holderScript)
	second.expectLine("token=")
	r = distlock(t, env, "run", "--permits", "2", "--wait", "0", "encoders", "--", "true")
	assert.Equal(t, exitNotAcquired, r.code, "two permits, two holders")
	r = distlock(t, env, "run", "--permits", "3", "--wait", "0", "encoders", "--", "true")
	assert.Equal(t, exitUsage, r.code, "another number of permits while the semaphore is in use")
	r = distlock(t, env, "status", "--json", "--permits", "2", "encoders")
	assert.Equal(t, exitOK, r.code)
	var st statusReport
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &st))
	assert.Equal(t, 2, st.Limit)
	if assert.Len(t, st.Holders, 2) {
		a, b := st.Holders[0].Token, st.Holders[1].Token
		assert.Positive(t, a, "each holder's token")
		assert.Positive(t, b, "each holder's token")
		assert.NotEqual(t, a, b, "every acquisition of a semaphore has a token of its own")
	}
	r = distlock(t, env, "unlock", "--force", "--permits", "2", "encoders")
	assert.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "held by 2 holders")
	for _, h := range []*background{first, second} {
		h.expectLine("stopping")
		assert.Equal(t, exitLost, h.wait(), "breaking the semaphore stops its holders")
	}
}

func TestRunRefusesSharedLocksOnMemcached(t *testing.T) {
	env := []string{"DISTLOCK_BACKEND=memcache://" + memcachedtest.Start(t).Addr()}
	for _, flag := range [][]string{{"--read"}, {"--write"}, {"--permits", "2"}} {
		args := append(append([]string{"run"}, flag...), "job", "--", "true")
		r := distlock(t, env, args...)
		assert.Equal(t, exitUsage, r.code)
		assert.Contains(t, r.stderr, "no shared locks")
	}
}
