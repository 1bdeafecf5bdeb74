package redlock_test

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
	"github.com/distlock/distlock/redlock"
)

// memberTimeout bounds member calls in the tests that are about the
// contract, not timeouts. The automatic timeout (four round trips and
// 50 ms for a call with a lease) is meant for a program, not for this
// loaded test machine: under -race, beside the other packages' tests,
// every member's call of an attempt has been seen to outlast it. The
// automatic timeout has tests of its own (timeout_test.go, quorum_test.go).
const memberTimeout = 500 * time.Millisecond

// epoch is where manual clocks start.
var epoch = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// newRL returns a RedLock over members, closed when the test ends.
func newRL(t testing.TB, members []driver.Backend, opts ...combine.Option) driver.Backend {
	t.Helper()
	rl, err := redlock.New(members, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = rl.Close() })
	return rl
}

// memRL returns n stores and a RedLock over a fresh client of each.
func memRL(t testing.TB, n int, opts ...combine.Option) (*quorumtest.Mem, []*memlocker.Client, driver.Backend) {
	t.Helper()
	stores := quorumtest.NewMem(n)
	cs := stores.Clients()
	return stores, cs, newRL(t, quorumtest.Backends(cs), opts...)
}

// newMutex returns a Mutex on the lock name of the test's Store over b.
func newMutex(t testing.TB, b driver.Backend, name string, opts ...locker.MutexOption) (*locker.Mutex, error) {
	t.Helper()
	return storetest.Of(t, b).Mutex(name, opts...)
}
