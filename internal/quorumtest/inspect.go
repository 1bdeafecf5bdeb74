package quorumtest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

// State returns key's state on store i, read through a new client.
func (m *Mem) State(t testing.TB, i int, key string) driver.State {
	t.Helper()
	st, err := m.stores[i].Client().Inspect(context.Background(), key)
	require.NoError(t, err)
	return st
}

// Holders returns who holds key on each store ("" where it is free).
func (m *Mem) Holders(t testing.TB, key string) []string {
	t.Helper()
	owners := make([]string, len(m.stores))
	for i := range owners {
		owners[i] = m.State(t, i, key).Owner
	}
	return owners
}

// Take locks key for owner on stores idx, through new clients.
func (m *Mem) Take(t testing.TB, key, owner string, ttl time.Duration, idx ...int) {
	t.Helper()
	for _, i := range idx {
		g, err := m.stores[i].Client().TryLock(context.Background(), driver.Request{Key: key, Owner: owner, TTL: ttl})
		require.NoError(t, err)
		require.True(t, g.Acquired, "store %d", i)
	}
}

// Force deletes key on stores idx, whoever holds it.
func (m *Mem) Force(t testing.TB, key string, idx ...int) {
	t.Helper()
	for _, i := range idx {
		_, err := m.stores[i].Client().ForceUnlock(context.Background(), key)
		require.NoError(t, err)
	}
}

// Repeat returns n copies of s: the expected Holders of a key held by s
// everywhere.
func Repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// Backends returns cs as a member list.
func Backends[B driver.Backend](cs []B) []driver.Backend {
	bs := make([]driver.Backend, len(cs))
	for i, c := range cs {
		bs[i] = c
	}
	return bs
}
