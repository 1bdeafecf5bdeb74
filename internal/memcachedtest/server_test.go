package memcachedtest_test

import (
	"testing"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/internal/memcachedtest"
)

func TestStartAndUse(t *testing.T) {
	s := memcachedtest.Start(t)
	assert.Regexp(t, `^127\.0\.0\.1:\d+$`, s.Addr(), "loopback only")
	assert.True(t, s.Running())
	c := s.Client(t)
	require.NoError(t, c.Set(&memcache.Item{Key: "k", Value: []byte("v")}))
	it, err := c.Get("k")
	require.NoError(t, err)
	assert.Equal(t, "v", string(it.Value))
}

func TestRestartLosesItems(t *testing.T) {
	s := memcachedtest.Start(t)
	addr := s.Addr()
	require.NoError(t, s.Client(t).Set(&memcache.Item{Key: "k", Value: []byte("v")}))
	s.Kill()
	assert.False(t, s.Running())
	assert.Error(t, memcachedtest.Ping(addr), "a killed server does not answer")
	require.NoError(t, s.Restart())
	assert.Equal(t, addr, s.Addr(), "a restarted server keeps its port")
	_, err := s.Client(t).Get("k")
	assert.ErrorIs(t, err, memcache.ErrCacheMiss, "a restarted server is empty")
}

func TestPauseResume(t *testing.T) {
	s := memcachedtest.Start(t)
	c := s.Client(t)
	c.Timeout = 300 * time.Millisecond
	require.NoError(t, c.Set(&memcache.Item{Key: "k", Value: []byte("v")}))
	require.NoError(t, s.Pause())
	_, err := c.Get("k")
	assert.Error(t, err, "a paused server does not answer")
	require.NoError(t, s.Resume())
	require.Eventually(t, func() bool {
		it, err := c.Get("k")
		return err == nil && string(it.Value) == "v"
	}, 5*time.Second, 20*time.Millisecond, "a resumed server answers with its items")
}

// Stop is final, and a paused server is still stopped.
func TestStopPaused(t *testing.T) {
	s := memcachedtest.Start(t)
	require.NoError(t, s.Pause())
	s.Stop()
	assert.False(t, s.Running())
	assert.Error(t, s.Restart(), "a stopped server does not restart")
}
