package lockconfig_test

import (
	"context"
	"errors"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/lockconfig"
	"github.com/distlock/distlock/locker"
)

// tracked is a scheme whose backends record whether they were closed, and
// whose opens fail for URLs with ?fail. Opens of one host share a store.
var tracked = struct {
	sync.Mutex
	open   map[string]int // host → its backends not closed
	stores map[string]*memlocker.Store
}{open: make(map[string]int), stores: make(map[string]*memlocker.Store)}

type trackedBackend struct {
	*memlocker.Client
	host string
	once sync.Once
}

func (b *trackedBackend) Close() error {
	b.once.Do(func() {
		tracked.Lock()
		tracked.open[b.host]--
		tracked.Unlock()
	})
	return b.Client.Close()
}

func init() {
	driver.Register("lockconfig-test", func(_ context.Context, u *url.URL) (driver.Backend, error) {
		if u.Query().Has("fail") {
			return nil, errors.New("refused")
		}
		tracked.Lock()
		defer tracked.Unlock()
		tracked.open[u.Host]++
		if tracked.stores[u.Host] == nil {
			tracked.stores[u.Host] = memlocker.NewStore()
		}
		c := tracked.stores[u.Host].Client()
		if l := u.Query().Get("latency"); l != "" {
			d, err := time.ParseDuration(l)
			if err != nil {
				return nil, err
			}
			c.SetLatency(d)
		}
		return &trackedBackend{Client: c, host: u.Host}, nil
	})
}

func stillOpen(host string) int {
	tracked.Lock()
	defer tracked.Unlock()
	return tracked.open[host]
}

func TestOpenSingle(t *testing.T) {
	ctx := context.Background()
	s, err := lockconfig.OpenSpec(ctx, "mem://lockconfig-single")
	require.NoError(t, err)
	defer s.Close()
	m, err := s.Mutex("job")
	require.NoError(t, err)
	lease, err := m.TryLock(ctx)
	require.NoError(t, err)

	other, err := lockconfig.Open(ctx, lockconfig.Config{URLs: []string{"mem://lockconfig-single"}})
	require.NoError(t, err)
	defer other.Close()
	m2, err := other.Mutex("job")
	require.NoError(t, err)
	_, err = m2.TryLock(ctx)
	require.ErrorIs(t, err, locker.ErrNotAcquired, "the same URL reaches the same store")
	require.NoError(t, lease.Unlock(ctx))
}

func TestOpenUnknownSchemeListsKnownOnes(t *testing.T) {
	_, err := lockconfig.OpenSpec(context.Background(), "nosuch://u:hunter2@x")
	require.ErrorIs(t, err, locker.ErrInvalid)
	assert.Contains(t, err.Error(), `"nosuch"`)
	assert.Contains(t, err.Error(), "mem")
	assert.NotContains(t, err.Error(), "hunter2")
}

func TestOpenFailureHalfwayClosesWhatItOpened(t *testing.T) {
	for _, mode := range []lockconfig.Mode{lockconfig.MultiLock, lockconfig.RedLock} {
		t.Run(string(mode), func(t *testing.T) {
			host := "halfway-" + string(mode)
			c := lockconfig.Config{Mode: mode, URLs: []string{
				"lockconfig-test://" + host + "-1",
				"lockconfig-test://" + host + "-2",
				"lockconfig-test://u:hunter2@" + host + "-3?fail",
				"lockconfig-test://" + host + "-4",
			}}
			s, err := lockconfig.Open(context.Background(), c)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.Contains(t, err.Error(), "member 3 of 4")
			assert.Contains(t, err.Error(), "refused")
			assert.NotContains(t, err.Error(), "hunter2")
			for i := 1; i <= 4; i++ {
				assert.Zero(t, stillOpen(host+"-"+string(rune('0'+i))), "member %d left open", i)
			}
		})
	}
}

func TestOpenCombinators(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []lockconfig.Mode{lockconfig.MultiLock, lockconfig.RedLock} {
		t.Run(string(mode), func(t *testing.T) {
			host := "combined-" + string(mode)
			spec := string(mode) + ": lockconfig-test://" + host + "-1 lockconfig-test://" + host + "-2 lockconfig-test://" + host + "-3"
			s, err := lockconfig.OpenSpec(ctx, spec)
			require.NoError(t, err)
			other, err := lockconfig.OpenSpec(ctx, spec)
			require.NoError(t, err)

			m1, err := s.Mutex("job")
			require.NoError(t, err)
			m2, err := other.Mutex("job")
			require.NoError(t, err)
			lease, err := m1.TryLock(ctx)
			require.NoError(t, err)
			_, err = m2.TryLock(ctx)
			require.ErrorIs(t, err, locker.ErrNotAcquired, "two combinators over the same stores contend")
			st, err := m2.Inspect(ctx)
			require.NoError(t, err)
			assert.True(t, st.Held)
			require.NoError(t, lease.Unlock(ctx))

			require.NoError(t, s.Close())
			require.NoError(t, other.Close())
			for i := 1; i <= 3; i++ {
				assert.Zero(t, stillOpen(host+"-"+string(rune('0'+i))), "closing the Store closes member %d", i)
			}
		})
	}
}

func TestOpenClosesMembersTheCombinatorRefuses(t *testing.T) {
	// Two URLs that differ as text but reach one store: the combinator, not
	// the parser, finds out, and Open must close both.
	_, err := lockconfig.OpenSpec(context.Background(),
		"redlock: lockconfig-test://refused lockconfig-test://refused/ lockconfig-test://refused-other")
	require.ErrorIs(t, err, locker.ErrInvalid)
	t.Log(err)
	assert.Contains(t, err.Error(), "redlock over 3 stores", "the combinator refused the members")
	assert.Zero(t, stillOpen("refused"))
	assert.Zero(t, stillOpen("refused-other"))
}

func TestRedLockFromMemURLsSurvivesAMinority(t *testing.T) {
	ctx := context.Background()
	s, err := lockconfig.OpenSpec(ctx, "redlock: mem://rl-a mem://rl-b mem://rl-c mem://rl-d mem://rl-e")
	require.NoError(t, err)
	defer s.Close()
	// Another process's view of two of the five stores: it takes the key
	// there first, so the RedLock gets only three of five.
	for _, name := range []string{"mem://rl-a", "mem://rl-b"} {
		c, err := driver.Open(ctx, name)
		require.NoError(t, err)
		g, err := c.TryLock(ctx, driver.Request{Key: "job", Owner: "someone-else", TTL: time.Minute})
		require.NoError(t, err)
		require.True(t, g.Acquired)
		defer func() {
			require.NoError(t, c.Unlock(ctx, "job", "someone-else"))
			require.NoError(t, c.Close())
		}()
	}
	m, err := s.Mutex("job")
	require.NoError(t, err)
	lease, err := m.TryLock(ctx)
	require.NoError(t, err, "three of five is a majority")
	require.NoError(t, lease.Unlock(ctx))

	ml, err := lockconfig.OpenSpec(ctx, "multilock: mem://rl-a mem://rl-c")
	require.NoError(t, err)
	defer ml.Close()
	m2, err := ml.Mutex("job")
	require.NoError(t, err)
	_, err = m2.TryLock(ctx)
	require.ErrorIs(t, err, locker.ErrNotAcquired, "a MultiLock needs every member")
}

func TestOpenAppliesSettings(t *testing.T) {
	ctx := context.Background()
	t.Run("member_timeout", func(t *testing.T) {
		urls := "lockconfig-test://slow-1?latency=60ms lockconfig-test://slow-2?latency=60ms"
		for _, tc := range []struct {
			head string
			ok   bool
		}{
			{"multilock:", true}, // the default timeout scales with the one-minute lease
			{"multilock member_timeout=20ms:", false},
		} {
			s, err := lockconfig.OpenSpec(ctx, tc.head+" "+urls)
			require.NoError(t, err)
			m, err := s.Mutex("job")
			require.NoError(t, err)
			lease, err := m.TryLock(ctx, locker.WithLease(time.Minute))
			if tc.ok {
				require.NoError(t, err, tc.head)
				require.NoError(t, lease.Unlock(ctx))
			} else {
				require.Error(t, err, "%s: 60ms members time out", tc.head)
			}
			require.NoError(t, s.Close())
		}
	})
	t.Run("restart_guard", func(t *testing.T) {
		urls := "mem://guard-1 mem://guard-2 mem://guard-3"
		for _, name := range []string{"mem://guard-1", "mem://guard-2"} {
			c, err := driver.Open(ctx, name)
			require.NoError(t, err)
			c.(*memlocker.Client).Store().Restart() // just restarted, without persistence
			require.NoError(t, c.Close())
		}
		for _, tc := range []struct {
			head string
			ok   bool
		}{
			{"redlock:", false}, // two of three stores restarted within the guard
			{"redlock restart_guard=0s:", true},
		} {
			s, err := lockconfig.OpenSpec(ctx, tc.head+" "+urls)
			require.NoError(t, err)
			m, err := s.Mutex("job")
			require.NoError(t, err)
			lease, err := m.TryLock(ctx, locker.WithLease(time.Minute))
			if tc.ok {
				require.NoError(t, err, tc.head)
				require.NoError(t, lease.Unlock(ctx))
			} else {
				require.ErrorIs(t, err, locker.ErrUnavailable, tc.head) // the stores could not decide: no other owner
			}
			require.NoError(t, s.Close())
		}
	})
}
