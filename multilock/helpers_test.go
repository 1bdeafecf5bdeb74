package multilock_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/multilock"
)

// newML returns a MultiLock over members, closed when the test ends.
func newML(t testing.TB, members []driver.Backend, opts ...combine.Option) driver.Backend {
	t.Helper()
	ml, err := multilock.New(members, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ml.Close() })
	return ml
}

// memML returns n stores and a MultiLock over a fresh client of each.
func memML(t testing.TB, n int, opts ...combine.Option) (*quorumtest.Mem, []*memlocker.Client, driver.Backend) {
	t.Helper()
	stores := quorumtest.NewMem(n)
	cs := stores.Clients()
	return stores, cs, newML(t, quorumtest.Backends(cs), opts...)
}

// stores keeps one Store per driver for the test that made it, as a
// process keeps one per store it uses.
var stores = struct {
	sync.Mutex
	m map[driver.Backend]*locker.Store
}{m: make(map[driver.Backend]*locker.Store)}

// storeOf returns the test's Store over b; the test's cleanup closes it
// (and b).
func storeOf(t testing.TB, b driver.Backend) *locker.Store {
	t.Helper()
	stores.Lock()
	defer stores.Unlock()
	if s, ok := stores.m[b]; ok {
		return s
	}
	s := locker.NewStore(b)
	stores.m[b] = s
	t.Cleanup(func() {
		stores.Lock()
		delete(stores.m, b)
		stores.Unlock()
		_ = s.Close()
	})
	return s
}

// newMutex returns a Mutex on the lock name of the test's Store over b.
func newMutex(t testing.TB, b driver.Backend, name string, opts ...locker.MutexOption) (*locker.Mutex, error) {
	t.Helper()
	return storeOf(t, b).Mutex(name, opts...)
}
