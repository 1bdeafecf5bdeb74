package quorum

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

// withMembers returns a combinator of kind over n mem clients, with no
// member asked anything: enough for checkBound.
func withMembers(t *testing.T, kind Kind, n int) *combinator {
	t.Helper()
	members := make([]driver.Backend, n)
	for i := range members {
		members[i] = memlocker.New()
	}
	b, err := New(kind, members, DefaultSettings(kind))
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return core(b)
}

// TestSemaphoreBound: the formula against the cases the brief and the docs
// name.
func TestSemaphoreBound(t *testing.T) {
	for _, tc := range []struct {
		kind                    Kind
		members, limit, permits int
		ok                      bool
	}{
		{Majority, 3, 2, 1, false}, // A{1,2}, B{1,3}, C{2,3}
		{Majority, 3, 2, 2, true},
		{Majority, 3, 3, 2, true}, // c = 1
		{Majority, 3, 1, 1, true}, // a mutex
		{Majority, 5, 5, 3, true},
		{Majority, 5, 5, 2, false},
		{Majority, 4, 4, 2, true}, // 3 of 4: c = 2 fits
		{Majority, 4, 6, 2, false},
		{Majority, 2, 9, 1, true}, // a majority of two is both
		{All, 3, 2, 1, true},
		{All, 5, 100, 1, true},
	} {
		name := fmt.Sprintf("%s/%d members/%d of %d", tc.kind.name, tc.members, tc.permits, tc.limit)
		t.Run(name, func(t *testing.T) {
			err := withMembers(t, tc.kind, tc.members).checkBound(driver.Share{Mode: driver.Permits, Limit: tc.limit, Permits: tc.permits})
			if tc.ok {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, driver.ErrInvalid)
			assert.ErrorIs(t, err, errors.ErrUnsupported, "a kind of semaphore the combinator cannot keep")
			assert.ErrorContains(t, err, "MultiLock", "the error names the lock that keeps the bound")
		})
	}
	c := withMembers(t, Majority, 3)
	assert.NoError(t, c.checkBound(driver.Share{Mode: driver.Read}), "read-write locks are safe under a majority")
	assert.NoError(t, c.checkBound(driver.Share{Mode: driver.Write}))
}

// TestSemaphoreBoundIsExact checks checkBound against every way holders can
// sit on small sets of members: it allows a view exactly when no c+1 of
// its holds fit on the members at once, c being what one member lets in;
// and among the views it allows, of any mix of sizes, the holds that fit
// at once never take more than the limit.
func TestSemaphoreBoundIsExact(t *testing.T) {
	for _, kind := range []Kind{All, Majority} {
		for m := 1; m <= 5; m++ {
			c := withMembers(t, kind, m)
			quorums := subsets(m, c.needed)
			for limit := 1; limit <= 4; limit++ {
				var allowed []int
				for permits := 1; permits <= limit; permits++ {
					per := limit / permits
					err := c.checkBound(driver.Share{Mode: driver.Permits, Limit: limit, Permits: permits})
					fits := mostPermits(quorums, m, limit, []int{permits}, per+1) > per*permits
					assert.Equal(t, fits, err != nil, "%s of %d, %d of %d permits: refused iff %d holds fit",
						kind.name, m, permits, limit, per+1)
					if err == nil {
						allowed = append(allowed, permits)
					}
				}
				assert.LessOrEqual(t, mostPermits(quorums, m, limit, allowed, limit+1), limit,
					"%s of %d members, limit %d: the allowed views %v hold more than the limit", kind.name, m, limit, allowed)
			}
		}
	}
}

// subsets returns every set of k of the members 0..m-1, as bit masks.
func subsets(m, k int) []int {
	var out []int
	for mask := range 1 << m {
		n := 0
		for i := range m {
			n += mask >> i & 1
		}
		if n == k {
			out = append(out, mask)
		}
	}
	return out
}

// mostPermits returns the most permits that at most depth holders can
// hold at once, each with one of the sizes on one of the quorums, when
// every member has limit permits.
func mostPermits(quorums []int, m, limit int, sizes []int, depth int) int {
	load := make([]int, m)
	best := 0
	var place func(from, held, left int)
	place = func(from, held, left int) {
		best = max(best, held)
		if left == 0 {
			return
		}
		for choice := from; choice < len(quorums)*len(sizes); choice++ {
			q, p := quorums[choice/len(sizes)], sizes[choice%len(sizes)]
			fits := true
			for i := range m {
				if q>>i&1 == 1 && load[i]+p > limit {
					fits = false
				}
			}
			if !fits {
				continue
			}
			for i := range m {
				load[i] += q >> i & 1 * p
			}
			place(choice, held+p, left-1)
			for i := range m {
				load[i] -= q >> i & 1 * p
			}
		}
	}
	place(0, 0, depth)
	return best
}
