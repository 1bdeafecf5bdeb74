package quorum

import (
	"errors"
	"sync"
	"time"

	"github.com/distlock/distlock/driver"
)

// ledger keeps, for each member, key and owner, what the engine knows of
// the owner's holds there: a count that is never below the holds the
// owner took through the engine and has not given back, and the calls of
// the owner in flight there.
//
// It decides the one question a combinator cannot ask its members: may
// an Unlock sent again, after one whose outcome is unknown, drop a hold
// that someone still relies on? Each Unlock drops one hold, whoever's it
// is. When the owner holds the lock several times over (Mutexes sharing
// an owner nest), an Unlock that may have run must not be sent again: if
// the first did run, the second drops another Mutex's hold. Nor may an
// attempt release a member whose TryLock may not have run while the owner
// holds it already: that Unlock would drop the earlier hold instead. A
// single store's Mutex knows its own holds (see locker's cleanup); a
// combinator's members are asked by the engine alone, so the engine keeps
// the count.
//
// A call is lone when, as it begins, the owner holds at most the hold it
// concerns and no other call of the owner is in flight on the member, and
// no call begins after it until it is decided on. Only a lone call's
// uncertain release is made, or made again. Where the count errs, it errs
// high, which at worst leaves a hold to run out with its lease, as a
// shared owner's Mutex does on a single store.
//
// It also keeps the member's token of the owner's hold, while it knows it,
// so that every release names the hold it drops (driver.HoldUnlocker): an
// Unlock held up in the network can reach the member after the owner has
// locked there again, and would drop the later hold.
type ledger struct {
	mu      sync.Mutex
	entries map[pendingKey]ledgerEntry
	// begun numbers the calls; an entry's last is the number of its latest.
	begun   uint64
	sweepAt int // the entries at which the next sweep of lapsed ones runs
}

// ledgerEntry is the owner's account on one member and key.
type ledgerEntry struct {
	holds    int       // at least the owner's holds there
	inflight int       // the owner's calls in flight there
	doubtful int       // of them, releases of a hold that may not be there
	last     uint64    // the number of the latest call begun
	lapse    time.Time // when every hold counted has run out with its lease
	// token is the member's fencing token of the owner's hold there, 0
	// when unknown: a release names the hold by it (see releaseHold), so
	// that one that reaches the member late drops no later hold.
	token uint64
}

// ticket is what a call saw as it began.
type ticket struct {
	n        uint64 // the call's number, from 1
	lone     bool   // no other call in flight, and no hold beyond those allowed
	doubtful bool   // a release of a hold that may not be there
	token    uint64 // the entry's token
}

// minSweep is the fewest entries at which lapsed ones are swept.
const minSweep = 64

// newLedger returns an empty ledger.
func newLedger() *ledger {
	return &ledger{entries: make(map[pendingKey]ledgerEntry), sweepAt: minSweep}
}

// lock begins a TryLock of the owner on k. It returns false and a zero
// ticket, and begins nothing, while a doubtful release of the owner is in
// flight there: that Unlock, if the hold it was meant for is not there,
// would drop the one this TryLock takes. The ticket is lone if the owner holds nothing there
// that the engine knows of: a hold found later is the call's own.
func (l *ledger) lock(k pendingKey) (ticket, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.entries[k]; ok && e.doubtful > 0 {
		return ticket{}, false
	}
	return l.begin(k, 0, false), true
}

// unlock begins an Unlock of the owner on k, of a hold known to be there.
// The ticket is lone if the owner holds no other there.
func (l *ledger) unlock(k pendingKey) ticket {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.begin(k, 1, false)
}

// follow begins a doubtful release on k after the call of prev, whose
// outcome is unknown: the Unlock that undoes it if it ran. It returns
// false, and begins nothing, unless prev is lone still (see lone): an
// Unlock there could drop another hold of the owner.
func (l *ledger) follow(k pendingKey, prev ticket) (ticket, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.loneLocked(k, prev) {
		return ticket{}, false
	}
	return l.begin(k, 1, true), true
}

// begin records a call on k; l.mu is held.
func (l *ledger) begin(k pendingKey, allowed int, doubtful bool) ticket {
	e, ok := l.entries[k]
	if !ok && len(l.entries) >= l.sweepAt {
		l.sweep()
	}
	if ok && !time.Now().Before(e.lapse) {
		e.holds, e.token = 0, 0 // every hold counted has run out
	}
	l.begun++
	t := ticket{n: l.begun, lone: e.inflight == 0 && e.holds <= allowed, doubtful: doubtful, token: e.token}
	e.inflight++
	if doubtful {
		e.doubtful++
	}
	e.last = l.begun
	l.entries[k] = e
	return t
}

// end records the end of the call of t on k: the owner's holds there
// changed by delta, are at least atLeast (what the member reported), and
// last for lease from now at the most (0: the call set no lease). A
// TryLock's token is the member's token of the hold it took, 0 when its
// outcome is unknown; a release's is 0.
func (l *ledger) end(k pendingKey, t ticket, delta, atLeast int, lease time.Duration, token uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entries[k]
	e.inflight--
	if t.doubtful {
		e.doubtful--
	}
	switch {
	case token != 0:
		e.token = token
	case delta > 0 && e.holds == 0:
		e.token = 0 // a hold may have been taken, under a token not known
	}
	e.holds = max(e.holds+delta, atLeast, 0)
	if e.holds == 0 {
		e.token = 0
	}
	if lease > 0 {
		e.lapse = later(e.lapse, time.Now().Add(lease))
	}
	if e.holds == 0 && e.inflight == 0 {
		delete(l.entries, k)
		return
	}
	l.entries[k] = e
}

// renewed records a renewal of the owner's holds on k for lease from now
// at the most.
func (l *ledger) renewed(k pendingKey, lease time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.entries[k]; ok {
		e.lapse = later(e.lapse, time.Now().Add(lease))
		l.entries[k] = e
	}
}

// fenced records a Fence of the owner's hold on k to token that ended
// with err: the hold's token is raised to at least token, and unknown when
// the Fence may or may not have run.
func (l *ledger) fenced(k pendingKey, token uint64, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.entries[k]
	switch {
	case !ok:
		return
	case err == nil && e.token != 0:
		e.token = max(e.token, token)
	case driver.IsUnknown(err):
		e.token = 0
	}
	l.entries[k] = e
}

// lone reports whether the call of t is lone still: it was as it began,
// and no call of the owner on k has begun since.
func (l *ledger) lone(k pendingKey, t ticket) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.loneLocked(k, t)
}

func (l *ledger) loneLocked(k pendingKey, t ticket) bool {
	if !t.lone {
		return false
	}
	e, ok := l.entries[k]
	return !ok || e.last == t.n
}

// sweep drops the entries whose holds have all run out and that no call
// is using, and sets the size of the next sweep so that sweeps cost O(1)
// per entry made; l.mu is held.
func (l *ledger) sweep() {
	now := time.Now()
	for k, e := range l.entries {
		if e.inflight == 0 && !now.Before(e.lapse) {
			delete(l.entries, k)
		}
	}
	l.sweepAt = max(2*len(l.entries), minSweep)
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// lockCount is what a TryLock's answer does to the owner's count: one
// more, and at least the member's own count, when it took the lock; one
// more when it may have run; none when it did not run or was refused.
func lockCount(g driver.Grant, err error) (delta, atLeast int) {
	switch {
	case err == nil && g.Acquired:
		return 1, g.Holds
	case err == nil, !driver.IsUnknown(err):
		return 0, 0
	}
	return 1, 0
}

// heldToken is the member's token of the hold a TryLock took, 0 when it
// took none or its outcome is unknown.
func heldToken(g driver.Grant, err error) uint64 {
	if err == nil && g.Acquired {
		return g.Token
	}
	return 0
}

// unlockCount is what an Unlock's answer does to the owner's count: one
// less when the hold is gone (dropped now, or before), none otherwise.
func unlockCount(err error) int {
	if err == nil || errors.Is(err, driver.ErrNotHeld) {
		return -1
	}
	return 0
}

// releaseLater follows up a release of the owner's hold on t, begun with
// tk, that ended with err (neither nil nor ErrNotHeld): it is made again
// in the background when that cannot drop another hold, because it was
// not sent (ErrUnavailable) or because it was lone. It reports whether
// the hold is on its way out, or cannot be released at all (ErrClosed,
// ErrInvalid); false means the owner may keep it until its lease ends.
func (e *engine) releaseLater(t target, owner string, tk ticket, err error, until time.Time) bool {
	switch {
	case errors.Is(err, driver.ErrClosed), errors.Is(err, driver.ErrInvalid):
		return true
	case errors.Is(err, driver.ErrUnavailable):
	case !e.bg.held.lone(pendingKey{t.rtt, t.key, owner}, tk):
		return false
	}
	e.bg.release(t, owner, until, e.s.plain)
	return true
}
