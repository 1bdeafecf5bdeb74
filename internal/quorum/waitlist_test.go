package quorum

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

// TestWaitsAt: a read-write lock waits on every member, a semaphore on the
// one member whose order every attempt follows (the gate, or the only
// member) and on none of a majority, and a mutex on its line member (the
// gate, or for a majority the least member that keeps a queue).
func TestWaitsAt(t *testing.T) {
	read, write := driver.Share{Mode: driver.Read}, driver.Share{Mode: driver.Write}
	sem := driver.Share{Mode: driver.Permits, Limit: 3, Permits: 1}
	for _, tc := range []struct {
		kind  Kind
		n     int
		share driver.Share
		gate  bool // waits at the gate only
		line  bool // waits at the line member only
		want  []bool
	}{
		{Majority, 3, read, false, false, []bool{true, true, true}},
		{Majority, 3, write, false, false, []bool{true, true, true}},
		{All, 2, write, false, false, []bool{true, true}},
		{Majority, 3, sem, false, false, []bool{false, false, false}},
		{All, 1, sem, false, false, []bool{true}},
		{All, 3, sem, true, false, nil},
		{All, 3, driver.Share{}, false, true, nil},
		{Majority, 3, driver.Share{}, false, true, nil},
	} {
		t.Run(fmt.Sprintf("%s/%d/%v", tc.kind.name, tc.n, tc.share), func(t *testing.T) {
			e := withMembers(t, tc.kind, tc.n).engine
			e.share = tc.share
			if tc.line {
				require.GreaterOrEqual(t, e.line, 0, "memlocker members keep queues: a mutex has a line member")
				if e.gate >= 0 {
					assert.Equal(t, e.gate, e.line, "the gate is the line member")
				}
			}
			for i := range tc.n {
				want := tc.gate && i == e.gate || tc.line && i == e.line || !tc.gate && !tc.line && tc.want[i]
				assert.Equal(t, want, e.waitsAt(i), "member %d (gate %d, line %d)", i, e.gate, e.line)
			}
		})
	}
}
