package quorum

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/distlock/distlock/driver"
)

// TestWaitsAt: a read-write lock waits on every member, a semaphore on the
// one member whose order every attempt follows (the gate, or the only
// member) and on none of a majority, and a mutex on none.
func TestWaitsAt(t *testing.T) {
	read, write := driver.Share{Mode: driver.Read}, driver.Share{Mode: driver.Write}
	sem := driver.Share{Mode: driver.Permits, Limit: 3, Permits: 1}
	for _, tc := range []struct {
		kind  Kind
		n     int
		share driver.Share
		gate  bool // waits at the gate only
		want  []bool
	}{
		{Majority, 3, read, false, []bool{true, true, true}},
		{Majority, 3, write, false, []bool{true, true, true}},
		{All, 2, write, false, []bool{true, true}},
		{Majority, 3, sem, false, []bool{false, false, false}},
		{All, 1, sem, false, []bool{true}},
		{All, 3, sem, true, nil},
		{All, 3, driver.Share{}, false, []bool{false, false, false}},
		{Majority, 3, driver.Share{}, false, []bool{false, false, false}},
	} {
		t.Run(fmt.Sprintf("%s/%d/%v", tc.kind.name, tc.n, tc.share), func(t *testing.T) {
			e := withMembers(t, tc.kind, tc.n).engine
			e.share = tc.share
			for i := range tc.n {
				want := tc.gate && i == e.gate || !tc.gate && tc.want[i]
				assert.Equal(t, want, e.waitsAt(i), "member %d (gate %d)", i, e.gate)
			}
		})
	}
}
