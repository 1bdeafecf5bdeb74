// Package storetest keeps the Stores of tests: one per driver per test, as
// a process keeps one per store it uses, so that the Mutexes a test makes
// on one driver share its subscriptions, watchdog and shared-owner holds.
// Releases records how a driver's releases name their holds.
package storetest

import (
	"sync"
	"testing"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

var stores = struct {
	sync.Mutex
	m map[driver.Backend]*locker.Store
}{m: make(map[driver.Backend]*locker.Store)}

// Of returns the test's Store over d, made with opts the first time; the
// test's cleanup closes it, and with it d.
func Of(t testing.TB, d driver.Backend, opts ...locker.StoreOption) *locker.Store {
	t.Helper()
	stores.Lock()
	defer stores.Unlock()
	if s, ok := stores.m[d]; ok {
		return s
	}
	s := locker.NewStore(d, opts...)
	stores.m[d] = s
	t.Cleanup(func() {
		stores.Lock()
		delete(stores.m, d)
		stores.Unlock()
		_ = s.Close()
	})
	return s
}

// Live returns the Stores of the tests running now.
func Live() []*locker.Store {
	stores.Lock()
	defer stores.Unlock()
	all := make([]*locker.Store, 0, len(stores.m))
	for _, s := range stores.m {
		all = append(all, s)
	}
	return all
}
