package torture

import (
	"fmt"
	"slices"
	"time"
)

// audit is what the checks found in one run.
type audit struct {
	acquired int
	lost     int // holds whose Unlock found the lock gone
	unknown  int // holds whose Unlock ended in an unknown state
	overlaps int // pairs of holds inside the resource at once
	writes   int // writes accepted
	rejected int // writes the resource turned away (stale tokens)
	// pausedRejected counts rejected writes of paused holders.
	pausedRejected int
	staleAccepted  int
	badTokens      int // pairs of holds whose tokens do not rise with time
	// noToken counts holds granted with token 0: no fencing token.
	noToken    int
	maxDoneLag time.Duration
	// lateGrants counts holds whose Lock returned a lease already past its
	// deadline.
	lateGrants int
	// examples describe the first violations of each kind, for the log.
	examples []string
}

// check audits a run's holds and the resource's write log.
func check(holds []*hold, writes []write) audit {
	var a audit
	a.acquired = len(holds)
	for _, h := range holds {
		switch h.outcome {
		case lost:
			a.lost++
		case unknown:
			a.unknown++
		}
		a.maxDoneLag = max(a.maxDoneLag, h.doneLag)
		if h.lateGrant {
			a.lateGrants++
		}
		if h.token == 0 {
			a.noToken++
		}
	}
	a.overlaps = a.countOverlaps(holds)
	a.countTokenOrder(holds)
	a.countStale(writes)
	return a
}

func (a *audit) example(format string, args ...any) {
	if len(a.examples) < 6 {
		a.examples = append(a.examples, fmt.Sprintf(format, args...))
	}
}

// countOverlaps counts pairs of holds whose times inside the resource
// intersect.
func (a *audit) countOverlaps(holds []*hold) int {
	byStart := slices.Clone(holds)
	slices.SortFunc(byStart, func(x, y *hold) int { return cmpDur(x.lockReturn, y.lockReturn) })
	n := 0
	var active []*hold
	for _, h := range byStart {
		kept := active[:0]
		for _, o := range active {
			if o.insideEnd > h.lockReturn {
				kept = append(kept, o)
			}
		}
		active = kept
		for _, o := range active {
			n++
			a.example("overlap: hold %d (client %d, token %d) inside %v..%v, hold %d (client %d, token %d) entered at %v",
				o.id, o.client, o.token, o.lockReturn, o.insideEnd, h.id, h.client, h.token, h.lockReturn)
		}
		if h.insideEnd > h.lockReturn {
			active = append(active, h)
		}
	}
	return n
}

// countTokenOrder counts pairs where a hold that began acquiring after
// another was granted carries a token that is not higher. Holds without a
// token are counted apart (noToken).
func (a *audit) countTokenOrder(holds []*hold) {
	byCall := slices.DeleteFunc(slices.Clone(holds), func(h *hold) bool { return h.token == 0 })
	slices.SortFunc(byCall, func(x, y *hold) int { return cmpDur(x.lockCall, y.lockCall) })
	for i, h := range byCall {
		for _, o := range byCall[:i] {
			if h.newer(o) && h.token <= o.token {
				a.badTokens++
				a.example("token order: hold %d (client %d) began at %v, after hold %d (client %d) was granted at %v, but has token %d <= %d",
					h.id, h.client, h.lockCall, o.id, o.client, o.lockReturn, h.token, o.token)
			}
		}
	}
}

// countStale goes through the writes in the resource's order: a write
// accepted after an accepted write of a newer hold is a stale write that
// fencing let through.
func (a *audit) countStale(writes []write) {
	var newest *hold // the accepted writer that began acquiring last
	for _, w := range writes {
		if !w.accepted {
			a.rejected++
			if w.hold.paused {
				a.pausedRejected++
			}
			continue
		}
		a.writes++
		if newest != nil && newest != w.hold && newest.newer(w.hold) {
			a.staleAccepted++
			a.example("stale write accepted: hold %d (client %d, token %d) wrote at %v after hold %d (client %d, token %d), which began acquiring at %v, after hold %d was granted at %v",
				w.hold.id, w.hold.client, w.token, w.at, newest.id, newest.client, newest.token, newest.lockCall, w.hold.id, w.hold.lockReturn)
		}
		if newest == nil || w.hold.lockCall > newest.lockCall {
			newest = w.hold
		}
	}
}

func cmpDur(x, y time.Duration) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
