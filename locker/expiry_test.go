package locker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// ended reports whether l's Done is closed.
func ended(l *locker.Lease) bool {
	select {
	case <-l.Done():
		return true
	default:
		return false
	}
}

// locking returns a function that takes the named lock with a fixed lease
// on st.
func locking(t *testing.T, st *locker.Store) func(name string, lease time.Duration) *locker.Lease {
	return func(name string, lease time.Duration) *locker.Lease {
		t.Helper()
		m, err := st.Mutex(name)
		require.NoError(t, err)
		l, err := m.Lock(context.Background(), locker.WithLease(lease))
		require.NoError(t, err)
		return l
	}
}

// The Store ends its leases with one timer: each lease must still end at its
// own deadline, whether it is due before the timer was set (a shorter lease
// after a longer one, an Extend to less), after it (a timer set for a lease
// that was released), or at the same time as another.
func TestLeasesEndAtTheirOwnDeadlinesOnOneTimer(t *testing.T) {
	ctx := context.Background()
	clock, s := fakeClockStore()
	take := locking(t, storetest.Of(t, s.Client())) // one Store, so one timer
	names := map[*locker.Lease]string{}
	lock := func(name string, lease time.Duration) *locker.Lease {
		l := take(name, lease)
		names[l] = name
		return l
	}

	// A lease released before its deadline leaves the timer set for it.
	gone := lock("gone", 5*time.Second)
	require.NoError(t, gone.Unlock(ctx))
	long := lock("long", 20*time.Second)
	short := lock("short", 2*time.Second) // due before the timer
	twin := lock("twin", 2*time.Second)   // due with it
	cut := lock("cut", time.Minute)
	require.NoError(t, cut.Extend(ctx, 3*time.Second)) // moved earlier

	steps := []struct {
		at   time.Duration
		done []*locker.Lease
		live []*locker.Lease
	}{
		{1999 * time.Millisecond, nil, []*locker.Lease{short, twin, cut, long}},
		{2 * time.Second, []*locker.Lease{short, twin}, []*locker.Lease{cut, long}},
		{3 * time.Second, []*locker.Lease{cut}, []*locker.Lease{long}},
		{5 * time.Second, nil, []*locker.Lease{long}}, // the released lease's time
		{20 * time.Second, []*locker.Lease{long}, nil},
	}
	start, at := clock.Now(), time.Duration(0)
	for _, st := range steps {
		clock.Advance(st.at - at)
		at = st.at
		for _, l := range st.done {
			require.True(t, ended(l), "lease %s open at +%v, past its deadline +%v", names[l], at, l.Deadline().Sub(start))
			require.ErrorIs(t, l.Err(), locker.ErrLost)
		}
		for _, l := range st.live {
			require.False(t, ended(l), "lease %s ended at +%v, before its deadline +%v: %v", names[l], at, l.Deadline().Sub(start), l.Err())
		}
	}
}

// A renewal moves a deadline later; the timer, set for the old one, must not
// end the lease then, and must end it at the new one, and a lease due before
// that new deadline still ends at its own.
func TestAnExtendedLeaseEndsAtItsNewDeadline(t *testing.T) {
	ctx := context.Background()
	clock, s := fakeClockStore()
	lock := locking(t, storetest.Of(t, s.Client()))
	l := lock("extended", 10*time.Second)
	other := lock("other", 12*time.Second)
	clock.Advance(5 * time.Second)
	require.NoError(t, l.Extend(ctx, 10*time.Second)) // to +15s, past other
	clock.Advance(5 * time.Second)                    // the first deadline
	require.False(t, ended(l), "ended at its old deadline: %v", l.Err())
	clock.Advance(2 * time.Second)
	require.True(t, ended(other), "the other lease open past its deadline")
	clock.Advance(3*time.Second - time.Millisecond)
	require.False(t, ended(l), "ended before its new deadline: %v", l.Err())
	clock.Advance(time.Millisecond)
	require.True(t, ended(l), "open past its new deadline")
}

// Close ends every live lease of the Store, ahead of the timer.
func TestCloseEndsTheLeasesOfTheTimer(t *testing.T) {
	_, s := fakeClockStore()
	st := locker.NewStore(s.Client())
	lock := locking(t, st)
	var leases []*locker.Lease
	for _, name := range []string{"a", "b", "c"} {
		leases = append(leases, lock(name, time.Minute))
	}
	require.NoError(t, st.Close())
	for _, l := range leases {
		require.True(t, ended(l), "lease open after Close")
		require.ErrorIs(t, l.Err(), locker.ErrClosed)
	}
}
