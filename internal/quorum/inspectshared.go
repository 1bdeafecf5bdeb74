package quorum

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/distlock/distlock/driver"
)

// holderID is one holder of a shared lock: an owner in a mode.
type holderID struct {
	owner string
	mode  driver.Mode
}

// sharedState combines the members' states of a view's shared lock, by the
// rule inspect applies to a mutex's owner, holder by holder: an owner holds
// the lock in a mode when it does on the needed members, with the hold
// count and remaining lease the best needed of them have in common, and the
// highest token they keep for it. The state is unknown (an error) when so
// many members did not answer that a holder found on fewer may hold it, or
// that they may hide one. Of the holders, the writer's are Owner and
// Holds; Remaining is the longest
// remaining lease; Limit is what the needed members report; Token is the
// write hold's combined token, or without a writer the highest counter of
// the members that answered, as for a mutex that is not held.
func (e *engine) sharedState(ts []target, states []driver.State, errs []error) (driver.State, error) {
	on := make(map[holderID][]int) // the members where each holder holds
	failed := 0
	for i, st := range states {
		if errs[i] != nil {
			failed++
			continue
		}
		for _, h := range st.Holders {
			id := holderID{h.Owner, h.Mode}
			on[id] = append(on[id], i)
		}
	}
	unknown := failed >= e.needed
	var st driver.State
	writer := answering(errs)
	for id, held := range on {
		switch {
		case len(held) >= e.needed:
			h := e.mergeHolder(states, id, held)
			st.Holders = append(st.Holders, h)
			st.Remaining = max(st.Remaining, h.Remaining)
			if id.mode == driver.Write {
				st.Owner, st.Holds, writer = h.Owner, h.Holds, held
			}
		case len(held)+failed >= e.needed:
			unknown = true
		}
	}
	if unknown {
		return driver.State{}, fmt.Errorf("%s: state unknown: %d members did not answer (%s)",
			e.kind.name, failed, memberErrors(ts, errs))
	}
	slices.SortFunc(st.Holders, func(a, b driver.Holder) int {
		return cmp.Or(cmp.Compare(a.Owner, b.Owner), cmp.Compare(a.Mode, b.Mode))
	})
	limits := make([]int, len(states)) // 0 for a member that did not answer
	for i := range states {
		if errs[i] == nil {
			limits[i] = states[i].Limit
		}
	}
	st.Held = len(st.Holders) > 0
	st.Limit = kthLargest(limits, e.needed)
	st.Token = combinedToken(ts, states, writer)
	return st, nil
}

// mergeHolder is the hold of id on the members held.
func (e *engine) mergeHolder(states []driver.State, id holderID, held []int) driver.Holder {
	h := driver.Holder{Owner: id.owner, Mode: id.mode}
	holds := make([]int, len(held))
	remaining := make([]time.Duration, len(held))
	for j, i := range held {
		for _, mh := range states[i].Holders {
			if mh.Owner == id.owner && mh.Mode == id.mode {
				holds[j], remaining[j] = mh.Holds, mh.Remaining
				h.Permits = max(h.Permits, mh.Permits)
				h.Token = max(h.Token, mh.Token)
			}
		}
	}
	h.Holds = kthLargest(holds, e.needed)
	h.Remaining = kthLargest(remaining, e.needed)
	return h
}
