package torture

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/distlock/distlock/driver"
)

// audit is what the checks found in one run.
type audit struct {
	acquired int
	lost     int // holds whose Unlock found the lock gone
	unknown  int // holds whose Unlock ended in an unknown state
	// overlaps counts holds that entered the resource beside holds they
	// must exclude (see occupancy.admits).
	overlaps int
	// clockOverlaps counts holds that entered beside holds they must
	// exclude only because the machine's wall clock stepped forward
	// between them: a hold is excused when the wall clock gained on the
	// monotonic clock, from the start of its own Lock to the return of the
	// Lock that entered beside it, at least as much as the two overlapped.
	// Servers that keep leases by that clock (see run.skew) then end them
	// early: the clock-jump fault, which no lock promises exclusion under
	// (the virtual machines these tests run on step or slew their wall
	// clock when restored from a snapshot). Not counted in overlaps.
	clockOverlaps int
	// peak is the most holds inside at once, for a shared lock's run to
	// show that its holds did share.
	peak     int
	writes   int // writes accepted
	rejected int // writes the resource turned away (stale tokens)
	// pausedRejected counts rejected writes of paused holders.
	pausedRejected int
	staleAccepted  int
	badTokens      int // pairs of holds whose tokens do not rise with time
	// staleReads counts read holds whose token is below that of a write
	// hold granted before the read began acquiring.
	staleReads int
	// noToken counts holds granted with token 0: no fencing token (a read
	// hold carries the last write's token, 0 before any write).
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
		if h.token == 0 && h.counted() {
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

// countOverlaps counts holds that entered the resource while the holds
// inside left no room for them: for a write hold (a mutex's too), any
// hold; for a read hold, a write hold; for a semaphore's, more permits
// than the limit.
func (a *audit) countOverlaps(holds []*hold) int {
	byStart := slices.Clone(holds)
	slices.SortFunc(byStart, func(x, y *hold) int { return cmpDur(x.lockReturn, y.lockReturn) })
	n := 0
	var active []*hold
	for _, h := range byStart {
		active = slices.DeleteFunc(active, func(o *hold) bool { return o.insideEnd <= h.lockReturn })
		var in occupancy
		for _, o := range active {
			in = in.with(o.share)
		}
		a.peak = max(a.peak, in.holds+1)
		if !in.admits(h.share) {
			var unexcused occupancy
			for _, o := range active {
				if !clockStepped(o, h) {
					unexcused = unexcused.with(o.share)
				}
			}
			if unexcused.admits(h.share) {
				a.clockOverlaps++
				a.example("overlap after a clock step (the wall clock %v ahead of the monotonic one): %v entered at %v beside %s",
					h.returnSkew, h, h.lockReturn, insideSince(active))
			} else {
				n++
				a.example("overlap: %v entered at %v beside %s", h, h.lockReturn, insideSince(active))
			}
		}
		if h.insideEnd > h.lockReturn {
			active = append(active, h)
		}
	}
	return n
}

// clockStepped reports whether the wall clock gained on the monotonic
// clock, between the start of o's Lock and the return of h's, at least as
// much as h entered before o's inside ended (see audit.clockOverlaps).
func clockStepped(o, h *hold) bool {
	gained := h.returnSkew - o.callSkew
	return gained > 0 && gained >= o.insideEnd-h.lockReturn
}

// insideSince describes holds inside the resource and when they entered.
func insideSince(holds []*hold) string {
	var b strings.Builder
	for i, o := range holds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%v inside %v..%v", o, o.lockReturn, o.insideEnd)
	}
	return b.String()
}

// countTokenOrder goes through pairs of holds where one began acquiring
// after the other was granted. A hold that takes a token from the counter
// (all but read holds) must carry a higher token than an earlier one that
// did; a read hold, at least the token of an earlier write hold: readers
// see a version no older than the last write before them. Holds that took
// no token are counted apart (noToken).
func (a *audit) countTokenOrder(holds []*hold) {
	byCall := slices.DeleteFunc(slices.Clone(holds), func(h *hold) bool { return h.token == 0 && h.counted() })
	slices.SortFunc(byCall, func(x, y *hold) int { return cmpDur(x.lockCall, y.lockCall) })
	for i, h := range byCall {
		for _, o := range byCall[:i] {
			if !h.newer(o) {
				continue
			}
			switch {
			case h.counted() && o.counted() && h.token <= o.token:
				a.badTokens++
				a.example("token order: %v began at %v, after %v was granted at %v, but its token is not higher",
					h, h.lockCall, o, o.lockReturn)
			case h.share.Mode == driver.Read && o.share.Mode == driver.Write && h.token < o.token:
				a.staleReads++
				a.example("stale read: %v began at %v, after %v was granted at %v, but has an older token",
					h, h.lockCall, o, o.lockReturn)
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
			a.example("stale write accepted: %v wrote at %v after %v, which began acquiring at %v, after hold %d was granted at %v",
				w.hold, w.at, newest, newest.lockCall, w.hold.id, w.hold.lockReturn)
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
