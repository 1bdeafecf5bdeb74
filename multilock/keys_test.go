package multilock_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/multilock"
)

func key(t testing.TB, b driver.Backend, name string) *locker.KeyLock {
	t.Helper()
	k, err := locker.Key(b, name)
	require.NoError(t, err)
	return k
}

func TestKeysRejectsBadLocks(t *testing.T) {
	s := memlocker.NewStore()
	c, other := s.Client(), memlocker.New()
	cases := map[string][]*locker.KeyLock{
		"no locks":                      nil,
		"nil lock":                      {key(t, c, "a"), nil},
		"the same key twice":            {key(t, c, "a"), key(t, c, "a")},
		"the same key via two clients":  {key(t, c, "a"), key(t, s.Client(), "a")},
		"the same key on a nested lock": {key(t, c, "a"), key(t, newML(t, []driver.Backend{s.Client(), other}), "a")},
	}
	for name, locks := range cases {
		_, err := multilock.Keys(locks)
		assert.ErrorIs(t, err, locker.ErrInvalid, name)
	}
	_, err := multilock.Keys([]*locker.KeyLock{key(t, c, "a")}, multilock.WithMemberTimeout(-1))
	assert.ErrorIs(t, err, locker.ErrInvalid)

	mk, err := multilock.Keys([]*locker.KeyLock{key(t, c, "a"), key(t, c, "b"), key(t, other, "a")})
	require.NoError(t, err, "different keys on one store, and one key on different stores, are independent")
	assert.Equal(t, "multilock(a, b, a)", mk.Name())
}

// TestTransfer locks two accounts on one store together, through a Mutex.
func TestTransfer(t *testing.T) {
	ctx := context.Background()
	s := memlocker.NewStore()
	c := s.Client()
	both, err := multilock.Keys([]*locker.KeyLock{key(t, c, "account:A"), key(t, c, "account:B")})
	require.NoError(t, err)
	m, err := locker.NewMutex(both)
	require.NoError(t, err)
	l, err := m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	assert.NotZero(t, l.Token())
	for _, account := range []string{"account:A", "account:B"} {
		st, err := c.Inspect(ctx, account)
		require.NoError(t, err)
		assert.Equal(t, m.Owner(), st.Owner, account)
	}
	st, err := m.Inspect(ctx)
	require.NoError(t, err)
	assert.True(t, st.Held)
	assert.Equal(t, l.Token(), st.Token)

	// Another transfer that needs account B waits, and holds nothing
	// meanwhile.
	bc, err := multilock.Keys([]*locker.KeyLock{key(t, c, "account:B"), key(t, c, "account:C")})
	require.NoError(t, err)
	g, err := bc.TryLock(ctx, "other", time.Minute)
	require.NoError(t, err)
	assert.False(t, g.Acquired)
	cs, err := c.Inspect(ctx, "account:C")
	require.NoError(t, err)
	assert.False(t, cs.Held, "a failed attempt releases what it took")

	require.NoError(t, l.Unlock(ctx))
	g, err = bc.TryLock(ctx, "other", time.Minute)
	require.NoError(t, err)
	assert.True(t, g.Acquired)
	assert.Greater(t, g.Token, uint64(0))
	held, err := bc.ForceUnlock(ctx)
	require.NoError(t, err)
	assert.True(t, held)
}

// TestOverlappingKeySets runs transfers between three accounts on two
// stores, each locking its pair: no account ever has two transfers at
// once, and nobody deadlocks though the pairs overlap in every order.
func TestOverlappingKeySets(t *testing.T) {
	ctx := context.Background()
	s1, s2 := memlocker.NewStore(), memlocker.NewStore()
	accounts := []struct {
		store *memlocker.Store
		name  string
	}{{s1, "A"}, {s2, "B"}, {s1, "C"}}
	pairs := [][2]int{{0, 1}, {1, 2}, {2, 0}, {1, 0}}
	var inside [3]atomic.Int32
	var overlaps, transfers atomic.Int32
	var wg sync.WaitGroup
	for _, p := range pairs {
		locks := []*locker.KeyLock{
			key(t, accounts[p[0]].store.Client(), accounts[p[0]].name),
			key(t, accounts[p[1]].store.Client(), accounts[p[1]].name),
		}
		mk, err := multilock.Keys(locks)
		require.NoError(t, err)
		m, err := locker.NewMutex(mk)
		require.NoError(t, err)
		wg.Go(func() {
			for range 15 {
				l, err := m.Lock(ctx, locker.WithLease(time.Minute))
				if !assert.NoError(t, err) {
					return
				}
				for _, a := range p {
					if inside[a].Add(1) > 1 {
						overlaps.Add(1)
					}
				}
				time.Sleep(time.Millisecond)
				for _, a := range p {
					inside[a].Add(-1)
				}
				transfers.Add(1)
				assert.NoError(t, l.Unlock(ctx))
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, 15*len(pairs), transfers.Load())
	assert.Zero(t, overlaps.Load(), "two transfers held one account")
}

// TestKeysCapabilities: Watch, Inspect and ForceUnlock work over the keys.
// Inspect and ForceUnlock fail with ErrUnsupported when a key's store lacks
// them; Watch watches the keys that can notify, and fails so only when none
// can.
func TestKeysCapabilities(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(2)
	cs := stores.Clients()
	mk, err := multilock.Keys([]*locker.KeyLock{key(t, cs[0], "a"), key(t, cs[1], "b")})
	require.NoError(t, err)
	released := make(chan struct{}, 4)
	stop, err := mk.Watch(ctx, func() {
		select {
		case released <- struct{}{}:
		default:
		}
	})
	require.NoError(t, err)
	stores.Take(t, "b", "x", time.Minute, 1)
	require.NoError(t, stores.Store(1).Client().Unlock(ctx, "b", "x"))
	select {
	case <-released:
	case <-time.After(5 * time.Second):
		t.Fatal("the release of one key was not heard")
	}
	stop()

	bare, err := multilock.Keys([]*locker.KeyLock{key(t, cs[0], "a"), key(t, quorumtest.Bare{Backend: cs[1]}, "b")})
	require.NoError(t, err)
	_, err = bare.Inspect(ctx)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	stop, err = bare.Watch(ctx, func() {})
	require.NoError(t, err, "one key can notify")
	stop()
	_, err = bare.ForceUnlock(ctx)
	assert.ErrorIs(t, err, errors.ErrUnsupported)

	none, err := multilock.Keys([]*locker.KeyLock{key(t, quorumtest.Bare{Backend: cs[0]}, "a"), key(t, quorumtest.Bare{Backend: cs[1]}, "b")})
	require.NoError(t, err)
	_, err = none.Watch(ctx, func() {})
	assert.ErrorIs(t, err, errors.ErrUnsupported)
}
