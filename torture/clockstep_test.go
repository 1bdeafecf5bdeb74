package torture

import (
	"testing"
	"time"

	"github.com/distlock/distlock/driver"
)

// TestOverlapAfterClockStep checks that the audit excuses an overlap only
// when the wall clock gained on the monotonic clock, between the start of
// the earlier hold's Lock and the return of the later one's, at least as
// much as the two overlapped; any other overlap still counts.
func TestOverlapAfterClockStep(t *testing.T) {
	const ms = time.Millisecond
	write, read := driver.Share{Mode: driver.Write}, driver.Share{Mode: driver.Read}
	// A writer inside from 2 ms until its lease's deadline at 600 ms, and
	// a reader whose Lock returned at enter.
	writer := func(id int, callSkew time.Duration) *hold {
		return &hold{id: id, share: write, lockCall: 0, lockReturn: 2 * ms, insideEnd: 600 * ms, callSkew: callSkew}
	}
	reader := func(enter, skew time.Duration) *hold {
		return &hold{id: 9, share: read, lockCall: enter - ms, lockReturn: enter, insideEnd: enter + 5*ms,
			callSkew: skew, returnSkew: skew}
	}
	for _, tc := range []struct {
		name           string
		holds          []*hold
		overlaps, step int
	}{
		{"no step", []*hold{writer(1, 0), reader(599*ms, 0)}, 1, 0},
		{"a step longer than the overlap", []*hold{writer(1, 0), reader(599*ms, 2*ms)}, 0, 1},
		{"a step as long as the overlap", []*hold{writer(1, 0), reader(599*ms, ms)}, 0, 1},
		{"a step shorter than the overlap", []*hold{writer(1, 0), reader(599*ms, ms/2)}, 1, 0},
		{"a step before the writer's Lock", []*hold{writer(1, 2*ms), reader(599*ms, 2*ms)}, 1, 0},
		{"a step back", []*hold{writer(1, 0), reader(599*ms, -5*ms)}, 1, 0},
		{"a step that explains one of two holds inside",
			[]*hold{writer(1, 0), {id: 2, share: write, lockCall: 0, lockReturn: 3 * ms, insideEnd: 700 * ms}, reader(599*ms, 2*ms)}, 2, 0},
		{"no overlap", []*hold{writer(1, 0), reader(601*ms, 0)}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a audit
			a.overlaps = a.countOverlaps(tc.holds)
			if a.overlaps != tc.overlaps || a.clockOverlaps != tc.step {
				t.Errorf("%d overlaps and %d after a clock step, want %d and %d (%v)",
					a.overlaps, a.clockOverlaps, tc.overlaps, tc.step, a.examples)
			}
		})
	}
}
