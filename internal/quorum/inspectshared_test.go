package quorum

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

// TestSharedState combines members' states of a shared lock holder by
// holder, as a mutex's owner: held where the needed members hold it.
func TestSharedState(t *testing.T) {
	ts := make([]target, 3)
	for i := range ts {
		ts[i] = newTarget(memlocker.New(), "k", "member")
	}
	e := newEngine(Majority, DefaultSettings(Majority), ts, driver.Share{Mode: driver.Read})
	reader := func(owner string, holds int, left time.Duration) driver.Holder {
		return driver.Holder{Owner: owner, Mode: driver.Read, Holds: holds, Remaining: left}
	}
	writer := func(owner string, holds int, left time.Duration) driver.Holder {
		return driver.Holder{Owner: owner, Mode: driver.Write, Holds: holds, Remaining: left}
	}
	down := errors.New("down")
	for _, tc := range []struct {
		name   string
		states []driver.State
		errs   []error
		want   driver.State
	}{{
		name: "readers on a quorum",
		states: []driver.State{
			{Token: 7, Holders: []driver.Holder{reader("r1", 1, 9*time.Second), reader("r2", 2, 5*time.Second)}},
			{Token: 7, Holders: []driver.Holder{reader("r1", 1, 8*time.Second), reader("r2", 1, 6*time.Second)}},
			{Token: 9, Holders: []driver.Holder{reader("r1", 1, 7*time.Second), reader("r3", 1, time.Minute)}},
		},
		errs: make([]error, 3),
		want: driver.State{Held: true, Remaining: 8 * time.Second, Token: 9, Holders: []driver.Holder{
			reader("r1", 1, 8*time.Second), reader("r2", 1, 5*time.Second), // r3 holds one member
		}},
	}, {
		name: "a downgrading writer",
		states: []driver.State{
			{Token: 5, Holders: []driver.Holder{reader("w", 1, time.Second), writer("w", 2, 3*time.Second)}},
			{Token: 5, Holders: []driver.Holder{reader("w", 1, time.Second), writer("w", 1, 3*time.Second)}},
			{Token: 80}, // a failed attempt raised its counter
		},
		errs: make([]error, 3),
		want: driver.State{Held: true, Owner: "w", Holds: 1, Remaining: 3 * time.Second, Token: 5, Holders: []driver.Holder{
			reader("w", 1, time.Second), writer("w", 1, 3*time.Second),
		}},
	}, {
		name:   "free",
		states: []driver.State{{Token: 4}, {Token: 6}, {}},
		errs:   []error{nil, nil, down},
		want:   driver.State{Token: 6},
	}, {
		name: "a semaphore",
		states: []driver.State{
			{Token: 3, Limit: 5, Holders: []driver.Holder{{Owner: "a", Mode: driver.Permits, Holds: 1, Permits: 3, Remaining: time.Second}}},
			{Token: 3, Limit: 5, Holders: []driver.Holder{{Owner: "a", Mode: driver.Permits, Holds: 1, Permits: 3, Remaining: time.Second}}},
			{},
		},
		errs: []error{nil, nil, down},
		want: driver.State{Held: true, Remaining: time.Second, Token: 3, Limit: 5, Holders: []driver.Holder{
			{Owner: "a", Mode: driver.Permits, Holds: 1, Permits: 3, Remaining: time.Second},
		}},
	}, {
		name:   "a limit one member keeps",
		states: []driver.State{{Limit: 5}, {}, {}},
		errs:   make([]error, 3),
		want:   driver.State{},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := e.sharedState(ts, tc.states, tc.errs)
			require.NoError(t, err)
			assert.Equal(t, tc.want, st)
		})
	}

	t.Run("unknown", func(t *testing.T) {
		// r2 holds one member, and the one that did not answer may be a
		// second.
		states := []driver.State{
			{Holders: []driver.Holder{reader("r1", 1, time.Second), reader("r2", 1, time.Second)}},
			{Holders: []driver.Holder{reader("r1", 1, time.Second)}},
			{},
		}
		_, err := e.sharedState(ts, states, []error{nil, nil, down})
		require.Error(t, err)
		assert.True(t, driver.IsUnknown(err), "no sentinel: %v", err)
		_, err = e.sharedState(ts, []driver.State{{}, {}, {}}, []error{nil, down, down})
		assert.ErrorContains(t, err, "state unknown", "two silent members may hide any holder")
	})
}
