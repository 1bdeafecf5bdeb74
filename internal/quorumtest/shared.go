package quorumtest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

// View returns b's view of s: b must be a driver.Sharer whose Share
// succeeds.
func View(t testing.TB, b driver.Backend, s driver.Share) driver.Backend {
	t.Helper()
	sharer, ok := b.(driver.Sharer)
	require.True(t, ok, "%T is no driver.Sharer", b)
	v, err := sharer.Share(s)
	require.NoError(t, err)
	return v
}

// Views returns the view of s of a new client of every store, closed when
// the test ends: for reaching the members' shared locks one by one.
func (m *Mem) Views(t testing.TB, s driver.Share) []driver.Backend {
	t.Helper()
	vs := make([]driver.Backend, len(m.stores))
	for i, c := range m.Clients() {
		vs[i] = View(t, c, s)
		t.Cleanup(func() { _ = c.Close() })
	}
	return vs
}

// Try makes one attempt on key for owner, with a lease of a minute and
// patience, and returns its grant; the attempt must not fail.
func Try(t testing.TB, b driver.Backend, key, owner string, patience time.Duration) driver.Grant {
	t.Helper()
	g, err := b.TryLock(context.Background(), driver.Request{Key: key, Owner: owner, TTL: time.Minute, Patience: patience})
	require.NoError(t, err)
	return g
}

// Inspect returns key's state on b, which must be a driver.Inspector.
func Inspect(t testing.TB, b driver.Backend, key string) driver.State {
	t.Helper()
	i, ok := b.(driver.Inspector)
	require.True(t, ok, "%T is no driver.Inspector", b)
	st, err := i.Inspect(context.Background(), key)
	require.NoError(t, err)
	return st
}
