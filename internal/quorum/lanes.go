package quorum

import "time"

// laneLinger is how long a lane waits for its next member call before it
// exits: a program that stops locking has no lane left a moment later.
const laneLinger = 50 * time.Millisecond

// lanes are the goroutines the member calls of every round run on (see
// launch), one call at a time each, shared by every combinator of the
// process. A lane that finished its call waits laneLinger for another,
// so a busy program runs its calls on goroutines whose stacks have
// already grown to what a store's call needs. A goroutine started for
// each call instead starts on the smallest stack and copies it as it
// grows, several times per call: with go-redis, about 8 µs of CPU per
// member call, a fifth of a RedLock cycle's client CPU on the benchmark's
// machine (runtime.copystack in a CPU profile of bench/ section 2).
var lanes = make(chan func())

// runOnLane runs f on an idle lane, or on a new one when every lane is busy.
// It never waits for a lane.
func runOnLane(f func()) {
	select {
	case lanes <- f:
	default:
		go lane(f)
	}
}

// lane runs f, then the calls handed to it, until it has waited
// laneLinger for one.
func lane(f func()) {
	idle := time.NewTimer(laneLinger)
	defer idle.Stop()
	for {
		f()
		idle.Reset(laneLinger)
		select {
		case f = <-lanes:
		case <-idle.C:
			return
		}
	}
}
