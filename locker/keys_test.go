package locker_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/multilock"
)

// bare passes only the driver.Backend methods of a driver: a store with no
// optional capability.
type bare struct{ driver.Backend }

func TestKeysRejectsBadKeys(t *testing.T) {
	s := memlocker.NewStore()
	st := storetest.Of(t, s.Client())
	twin := storetest.Of(t, s.Client())
	other := storetest.Of(t, memlocker.New())
	ml, err := multilock.New([]driver.Backend{s.Client(), memlocker.New()})
	require.NoError(t, err)
	nested := storetest.Of(t, ml)
	closed := locker.NewStore(memlocker.New())
	require.NoError(t, closed.Close())
	cases := map[string][]locker.Key{
		"no keys":                       nil,
		"nil store":                     {{Store: st, Name: "a"}, {Store: nil, Name: "b"}},
		"a store of no driver":          {{Store: st, Name: "a"}, {Store: locker.NewStore(nil), Name: "b"}},
		"empty name":                    {{Store: st, Name: "a"}, {Store: other, Name: ""}},
		"the same key twice":            {{Store: st, Name: "a"}, {Store: st, Name: "a"}},
		"the same key via two clients":  {{Store: st, Name: "a"}, {Store: twin, Name: "a"}},
		"the same key on a nested lock": {{Store: st, Name: "a"}, {Store: nested, Name: "a"}},
	}
	for name, keys := range cases {
		_, err := locker.Keys(keys)
		assert.ErrorIs(t, err, locker.ErrInvalid, name)
	}
	_, err = locker.Keys([]locker.Key{{Store: st, Name: "a"}, {Store: closed, Name: "b"}})
	assert.ErrorIs(t, err, locker.ErrClosed)
	_, err = locker.Keys([]locker.Key{{Store: st, Name: "a"}}, locker.WithWatchdogLease(-1))
	assert.ErrorIs(t, err, locker.ErrInvalid)

	m, err := locker.Keys([]locker.Key{{Store: st, Name: "a"}, {Store: st, Name: "b"}, {Store: other, Name: "a"}})
	require.NoError(t, err, "different keys on one store, and one key on different stores, are independent")
	assert.Equal(t, "multilock(a, b, a)", m.Name())
}

// TestKeysTransfer locks two accounts on one store together.
func TestKeysTransfer(t *testing.T) {
	ctx := context.Background()
	c := memlocker.NewStore().Client()
	st := storetest.Of(t, c)
	m, err := locker.Keys([]locker.Key{{Store: st, Name: "account:A"}, {Store: st, Name: "account:B"}})
	require.NoError(t, err)
	l, err := m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	assert.NotZero(t, l.Token())
	for _, account := range []string{"account:A", "account:B"} {
		s, err := c.Inspect(ctx, account)
		require.NoError(t, err)
		assert.Equal(t, m.Owner(), s.Owner, account)
	}
	s, err := m.Inspect(ctx)
	require.NoError(t, err)
	assert.True(t, s.Held)
	assert.Equal(t, l.Token(), s.Token)

	// Another transfer that needs account B waits, and holds nothing
	// meanwhile.
	bc, err := locker.Keys([]locker.Key{{Store: st, Name: "account:B"}, {Store: st, Name: "account:C"}})
	require.NoError(t, err)
	_, err = bc.TryLock(ctx, locker.WithLease(time.Minute))
	require.ErrorIs(t, err, locker.ErrNotAcquired)
	cs, err := c.Inspect(ctx, "account:C")
	require.NoError(t, err)
	assert.False(t, cs.Held, "a failed attempt releases what it took")

	require.NoError(t, l.Unlock(ctx))
	l2, err := bc.TryLock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	assert.Greater(t, l2.Token(), uint64(0))
	held, err := bc.ForceUnlock(ctx)
	require.NoError(t, err)
	assert.True(t, held)
}

// TestKeysOverlappingSets runs transfers between three accounts on two
// stores, each locking its pair: no account ever has two transfers at
// once, and nobody deadlocks though the pairs overlap in every order.
func TestKeysOverlappingSets(t *testing.T) {
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
		// Each transfer is a process of its own: one client, one Store.
		keys := []locker.Key{
			{Store: storetest.Of(t, accounts[p[0]].store.Client()), Name: accounts[p[0]].name},
			{Store: storetest.Of(t, accounts[p[1]].store.Client()), Name: accounts[p[1]].name},
		}
		m, err := locker.Keys(keys)
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

// TestKeysCapabilities: Inspect and ForceUnlock work over the keys, and
// fail with ErrUnsupported when a key's store lacks them; a waiter wakes on
// the release of the keys whose store notifies.
func TestKeysCapabilities(t *testing.T) {
	ctx := context.Background()
	a, b := memlocker.NewStore(), memlocker.NewStore()
	full := storetest.Of(t, a.Client())
	half := storetest.Of(t, bare{b.Client()})
	m, err := locker.Keys([]locker.Key{{Store: full, Name: "a"}, {Store: half, Name: "b"}})
	require.NoError(t, err)
	_, err = m.Inspect(ctx)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = m.ForceUnlock(ctx)
	assert.ErrorIs(t, err, errors.ErrUnsupported)

	holder, err := locker.Keys([]locker.Key{{Store: storetest.Of(t, a.Client()), Name: "a"}, {Store: storetest.Of(t, b.Client()), Name: "b"}})
	require.NoError(t, err)
	l, err := holder.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	got := make(chan error, 1)
	go func() {
		l, err := m.Lock(ctx, locker.WithLease(time.Minute))
		if err == nil {
			err = l.Unlock(ctx)
		}
		got <- err
	}()
	require.NoError(t, l.Unlock(ctx))
	assert.NoError(t, <-got, "the waiter took the lock once it was released")
}

func ExampleKeys() {
	ctx := context.Background()
	accounts := memlocker.NewStore()
	pair := func(first, second string) *locker.Mutex {
		s := locker.NewStore(accounts.Client()) // one Store per "process"
		m, err := locker.Keys([]locker.Key{{Store: s, Name: first}, {Store: s, Name: second}})
		if err != nil {
			panic(err)
		}
		return m
	}
	toBob := pair("account:alice", "account:bob")
	toAlice := pair("account:bob", "account:alice") // the other order: no deadlock

	lease, _ := toBob.Lock(ctx)
	fmt.Println(toBob.Name())
	_, err := toAlice.TryLock(ctx)
	fmt.Println("the other transfer waits:", errors.Is(err, locker.ErrNotAcquired))
	lease.Unlock(ctx)
	lease, err = toAlice.TryLock(ctx)
	fmt.Println("then runs:", err)
	lease.Unlock(ctx)
	// Output:
	// multilock(account:alice, account:bob)
	// the other transfer waits: true
	// then runs: <nil>
}
