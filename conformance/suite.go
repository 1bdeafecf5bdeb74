package conformance

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// caseTimeout bounds one subtest, on top of what its leases need.
const caseTimeout = 30 * time.Second

// suite is one run: the harness, a namespace of keys of its own, and the
// lease lengths sized from the store's granularity.
type suite struct {
	h      Harness
	prefix string
	// unit is the shortest lease the suite relies on expiring.
	unit time.Duration
	// long is a lease no subtest outlives.
	long time.Duration
}

type testCase struct {
	name string
	run  func(ctx context.Context, t *testing.T, s *suite)
}

// cases are the contract, in the order they run.
var cases = []testCase{
	{"Granularity", testGranularity},
	{"Drift", testDrift},
	{"AcquireRelease", testAcquireRelease},
	{"ContendedTryFails", testContendedTryFails},
	{"UnlockNotHeld", testUnlockNotHeld},
	{"Reentry", testReentry},
	{"FencingTokens", testFencingTokens},
	{"LeaseExpiry", testLeaseExpiry},
	{"ExpireOnlyByOwner", testExpireOnlyByOwner},
	{"MutualExclusion", testMutualExclusion},
	{"WaitThenAcquire", testWaitThenAcquire},
	{"CancelWhileWaiting", testCancelWhileWaiting},
	{"WatchdogRenews", testWatchdogRenews},
	{"LostLeaseClosesDone", testLostLeaseClosesDone},
	{"UnlockAfterExpiry", testUnlockAfterExpiry},
	{"DoneByDeadline", testDoneByDeadline},
	{"StaleReentry", testStaleReentry},
	{"ContextBound", testContextBound},
	{"WaiterAtExpiry", testWaiterAtExpiry},
	{"HolderLabel", testHolderLabel},
	{"ReleaseNotification", testReleaseNotification},
	{"WaitQueue", testWaitQueue},
	{"Passer", testPasser},
	{"Inspection", testInspection},
	{"ForceUnlock", testForceUnlock},
	{"HoldUnlock", testHoldUnlock},
	{"BatchRenewal", testBatchRenewal},
	{"Unsupported", testUnsupported},
	{"Partition", testPartition},
	{"OddKeys", testOddKeys},
	{"InvalidInput", testInvalidInput},
	{"UseAfterClose", testUseAfterClose},
	{"CloseDuringACall", testCloseDuringACall},
	{"StoreClose", testStoreClose},
	{"Unreachable", testUnreachable},
}

// Run runs the conformance suite against the store newHarness makes. It
// calls newHarness once and closes the harness when the test ends.
func Run(t *testing.T, newHarness NewHarness) {
	t.Helper()
	h, err := newHarness(context.Background(), t)
	require.NoError(t, err, "making the harness")
	t.Cleanup(h.Close)
	unit := max(h.Granularity(), 100*time.Millisecond)
	s := &suite{
		h:      h,
		prefix: "conformance:" + locker.NewOwner()[:10] + ":",
		unit:   unit,
		long:   max(time.Minute, 60*unit),
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { s.guard(t, c) })
	}
	s.runShared(t)
}

// guard runs c under a deadline. The context ends at the deadline, so calls
// that honour it return; a backend that ignores its context fails the whole
// run with a panic naming the subtest instead of hanging it.
func (s *suite) guard(t *testing.T, c testCase) {
	limit := caseTimeout + 20*s.unit
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	hung := time.AfterFunc(limit+10*time.Second, func() {
		panic(fmt.Sprintf("conformance: subtest %s still running %v after its deadline: the backend ignores its context", c.name, 10*time.Second))
	})
	defer hung.Stop()
	c.run(ctx, t, s)
}

// backend returns a new client, closed when the subtest ends.
func (s *suite) backend(ctx context.Context, t *testing.T) driver.Backend {
	t.Helper()
	b, err := s.h.NewBackend(ctx)
	require.NoError(t, err, "making a client")
	require.NotNil(t, b, "harness returned a nil backend")
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// client returns a new client and the Store a program would make of it,
// for subtests that call the driver beside the Store's Mutexes. The Store
// is closed when the subtest ends, and closes the client.
func (s *suite) client(ctx context.Context, t *testing.T) (driver.Backend, *locker.Store) {
	t.Helper()
	b := s.backend(ctx, t)
	st := locker.NewStore(b)
	t.Cleanup(func() { _ = st.Close() })
	return b, st
}

// store returns a Store over a new client, closed when the subtest ends.
func (s *suite) store(ctx context.Context, t *testing.T) *locker.Store {
	t.Helper()
	_, st := s.client(ctx, t)
	return st
}

// key returns a key of the subtest's own.
func (s *suite) key(t *testing.T, suffix string) string {
	name := t.Name()
	if i := strings.Index(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	return s.prefix + name + suffix
}

// mutex returns a Mutex on key from st.
func (s *suite) mutex(t *testing.T, st *locker.Store, key string, opts ...locker.MutexOption) *locker.Mutex {
	t.Helper()
	m, err := st.Mutex(key, opts...)
	require.NoError(t, err)
	return m
}

// eventually waits until cond holds, failing the test with msg if it does
// not within limit.
func eventually(ctx context.Context, t *testing.T, limit time.Duration, msg string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("%s: not within %v", msg, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// isHeld reports whether another owner's attempt is refused, i.e. key is
// held. It uses a fresh owner, so a free key is taken and released again.
func isHeld(ctx context.Context, t *testing.T, b driver.Backend, key string) bool {
	t.Helper()
	probe := locker.NewOwner()
	g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: probe, TTL: time.Minute})
	require.NoError(t, err)
	if g.Acquired {
		require.NoError(t, b.Unlock(ctx, key, probe))
	}
	return !g.Acquired
}
