package multilock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/multilock"
)

// memberTimeout bounds member calls in tests that need every member to
// answer. The automatic timeout (four round trips and 50 ms) is meant for
// a program, not for this loaded test machine: under -race, beside the
// other packages' tests, a call to a healthy in-process store has been
// seen to outlast it, and a MultiLock tolerates no member failing.
const memberTimeout = 500 * time.Millisecond

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

// newMutex returns a Mutex on the lock name of the test's Store over b.
func newMutex(t testing.TB, b driver.Backend, name string, opts ...locker.MutexOption) (*locker.Mutex, error) {
	t.Helper()
	return storetest.Of(t, b).Mutex(name, opts...)
}
