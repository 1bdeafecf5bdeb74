package quorum

import (
	"time"

	"github.com/distlock/distlock/driver"
)

// engine holds what the operations need besides their targets: the rule,
// the settings and the combined granularity.
type engine struct {
	kind   Kind
	s      Settings
	needed int // of len(targets)
	gran   time.Duration
	// fencers is how many targets are Fencers; fenceQuorum how many of them
	// must carry a token before it is handed out.
	fencers     int
	fenceQuorum int
	// gate is the target an attempt asks first, alone, or -1 when
	// attempts ask every target at once (see lockRound).
	gate int
	// line is the target whose wait queue is the combinator's, or -1
	// (see lineOf).
	line int
	// waits is what a majority lock with a line member remembers of the
	// waits on its keys (see lineState); nil for others.
	waits *lineState
	// wakes are the turn watches of a combinator with a line member (see
	// wakes); nil for others.
	wakes *wakes
	// passes: the engine hands the lock over in one round (see pass.go).
	passes bool
	// bg runs the releases failed attempts leave behind.
	bg *background
	// share is the kind of shared lock a view's members hold (see
	// Share); its Mode is 0 on a combinator of mutexes.
	share driver.Share
}

func newEngine(kind Kind, s Settings, ts []target, share driver.Share) engine {
	e := engine{kind: kind, s: s, needed: kind.needed(len(ts)), gran: time.Millisecond, gate: gateOf(kind, ts),
		line: lineOf(kind, ts, share), bg: newBackground(), share: share}
	for _, t := range ts {
		e.gran = max(e.gran, driver.Granularity(t.b))
		if t.fencer != nil {
			e.fencers++
		}
	}
	e.fenceQuorum = e.fencers/2 + 1
	if e.line >= 0 {
		e.wakes = new(wakes)
		if e.gate < 0 {
			e.waits = new(lineState)
		}
		e.passes = passing(ts, e.line, e.waits, e.needed)
	}
	return e
}

// roundUp rounds a lease up to the coarsest member's granularity, so that
// every member holds the same lease.
func (e *engine) roundUp(d time.Duration) time.Duration {
	return (d + e.gran - 1) / e.gran * e.gran
}
