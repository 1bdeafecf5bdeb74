package quorum

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/distlock/distlock/driver"
)

// memberState is what a lock attempt left on one member, as far as the
// attempt knows.
type memberState int

const (
	notRun    memberState = iota // the call did not run: nothing held
	unknown                      // the call may have run: the member may hold the lock
	refused                      // another owner holds it
	acquired                     // the owner holds it
	released                     // it was acquired or unknown, and has been released
	releasing                    // it was acquired or unknown, and is being released in the background
)

// memberResult is one member's part in an attempt.
type memberResult struct {
	g     driver.Grant
	err   error
	state memberState
	// counted: acquired and not left out by the restart guard.
	counted bool
	// second is the error of the member's second-round calls.
	second error
	// fenced: the member's counter is at least the combined token, written
	// while the owner held it.
	fenced bool
	// tk is the ticket of the attempt's latest call on the member (see
	// ledger).
	tk ticket
}

// attempt is one TryLock on a combinator.
type attempt struct {
	e     *engine
	ts    []target
	owner string
	asked time.Duration // the lease the caller asked for
	ttl   time.Duration // asked, rounded up to the granularity: what members get
	// patience is the caller's Request.Patience, for the members that
	// keep a wait list for a view (see waitsAt).
	patience time.Duration
	start    time.Time
	floor    uint64 // the token floor of the fencing members (tokenFloor, or the caller's if higher)
	rs       []memberResult
	// skip marks the members left out while a release for the owner runs
	// there (see background); nil when none is.
	skip []bool
	// gated: the attempt asks the line member first; held: the grant a
	// turn brought, with which the owner holds the line member already
	// (see lineState).
	gated bool
	held  *driver.Grant
	// passed are the grants that turns naming the owner brought on the
	// other members, by member (see pass.go): the owner holds them too.
	passed map[int]driver.Grant
}

// tryLock makes one attempt to take every target for r.Owner, with r's
// lease, patience and floor. See the packages multilock and redlock for
// the rules.
func (e *engine) tryLock(ctx context.Context, ts []target, r driver.Request) (driver.Grant, error) {
	a := &attempt{e: e, ts: ts, owner: r.Owner, asked: r.TTL, ttl: e.roundUp(r.TTL), patience: r.Patience,
		floor: max(tokenFloor(), r.Floor), rs: make([]memberResult, len(ts)), skip: e.bg.settle(ctx, ts, r.Owner, e.s.plain)}
	a.start = e.s.now()
	e.bg.leased(a.ttl)
	if e.waits != nil && r.Patience > 0 {
		b := e.begin(ts, ts[e.line].key, r.Owner, a.start)
		if b.won != nil {
			e.registerPasses(ts, r.Owner, *b.won)
			return b.won.grant, nil
		}
		if e.passes {
			defer e.attemptEnded(ts[e.line].key, r.Owner, a.rs)
		}
		a.gated, a.held, a.passed = b.gated, b.held, b.passed
		if a.held != nil {
			// The other members' tokens agree with the grant's.
			a.floor = max(a.held.Token, r.Floor)
		} else if len(a.passed) > 0 {
			// Nor with the turns' grants on the other members.
			a.floor = r.Floor
			for _, g := range a.passed {
				a.floor = max(a.floor, g.Token)
			}
		}
	}
	a.lockRound(ctx, a.ttl)
	a.noteLine()
	if err := firstInvalid(ts, a.errs()); err != nil {
		return a.fail(ctx, err)
	}
	if a.overtakes() {
		return a.fail(ctx, fmt.Errorf("%s, which keeps the wait queue, refused it", ts[e.line].label))
	}
	if n := a.count(func(r *memberResult) bool { return r.counted }); n < e.needed {
		reason := fmt.Errorf("%d of %d members granted the lock, %d needed", n, len(ts), e.needed)
		if guarded := a.count(func(r *memberResult) bool { return r.state == acquired && !r.counted }); guarded > 0 {
			reason = fmt.Errorf("%w; %d more left out by the restart guard (their store restarted less than %v ago)",
				reason, guarded, e.s.guardWindow(a.ttl))
		}
		return a.fail(ctx, reason)
	}
	a.claimNamed(ctx)
	token := a.token()
	a.secondRound(ctx, token)
	g, err := a.conclude(ctx, token)
	if err == nil && g.Acquired {
		a.leaveLine(ctx)
	}
	return g, err
}

// lockRound asks the members for the lock: every member at once, or,
// when the engine has a gate (see gateOf), or the attempt is gated (see
// lineState), the gate or the line member first and the rest at once only
// if it granted the lock. The members not asked stay notRun.
func (a *attempt) lockRound(ctx context.Context, lease time.Duration) {
	g := a.e.gate
	if a.gated {
		g = a.e.line
	}
	if g >= 0 {
		a.lockMembers(ctx, lease, func(i int) bool { return i == g })
		if a.rs[g].state != acquired {
			return
		}
		a.lockMembers(ctx, lease, func(i int) bool { return i != g })
		return
	}
	a.lockMembers(ctx, lease, func(int) bool { return true })
}

// lockMembers asks the members that ask selects for the lock, at once.
func (a *attempt) lockMembers(ctx context.Context, lease time.Duration, ask func(i int) bool) {
	window := a.e.s.guardWindow(a.ttl)
	// The tickets are taken before the calls, which read them: a call
	// abandoned by fanout must not read what is written meanwhile.
	// A member not begun keeps a zero ticket.
	tks := make([]ticket, len(a.ts))
	for i := range a.ts {
		if ask(i) && (a.skip == nil || !a.skip[i]) {
			tks[i], _ = a.e.bg.held.lock(a.key(i))
		}
	}
	hold := lease + a.e.s.drift(lease)
	grants, errs := fanout(ctx, a.ts, a.e.s.forLease(a.ttl), func(ctx context.Context, i int) (driver.Grant, error) {
		if !ask(i) {
			return driver.Grant{}, errSkipped
		}
		if tks[i].n == 0 {
			return driver.Grant{}, errReleasePending
		}
		g, err := a.tryMember(ctx, i, lease)
		delta, atLeast := lockCount(g, err)
		a.e.bg.held.end(a.key(i), tks[i], delta, atLeast, hold, heldToken(g, err))
		return g, err
	}, nil)
	for i := range a.rs {
		if !ask(i) {
			continue
		}
		r := &a.rs[i]
		r.g, r.err, r.tk = grants[i], errs[i], tks[i]
		switch {
		case r.err == nil && r.g.Acquired:
			r.state = acquired
			// The restart guard: a store that restarted within the window
			// may have forgotten another owner's hold, so it does not vote.
			r.counted = window == 0 || r.g.Uptime <= 0 || r.g.Uptime >= window
		case r.err == nil:
			r.state = refused
		case errors.Is(r.err, driver.ErrClosed), errors.Is(r.err, driver.ErrInvalid),
			errors.Is(r.err, driver.ErrUnavailable):
			// Nothing was sent: nothing to release.
			r.state = notRun
		default:
			// Also an abandoned call: it may still run.
			r.state = unknown
		}
	}
}

// key is the ledger's name for the owner's holds on member i.
func (a *attempt) key(i int) pendingKey {
	return pendingKey{a.ts[i].rtt, a.ts[i].key, a.owner}
}

// floorLead puts an attempt's token floor ahead of the time: a member that
// mints tokens from its own clock then stays below the floor as long as
// its clock is less than floorLead ahead of this process's.
const floorLead = time.Second

// tokenFloor is the floor an attempt gives its fencing members: the time
// in microseconds, plus floorLead. Successive attempts' floors rise with
// the time, so members whose counters agree keep agreeing.
func tokenFloor() uint64 { return uint64(time.Now().Add(floorLead).UnixMicro()) }

// tryMember asks member i for the lock, or renews the line member's grant
// that a turn brought (see lineState). A fencing member gets the
// attempt's token floor, so that the members that honour it grant the same
// token and the second round has nothing to raise (see driver.Request); a
// member that keeps the view's wait list gets the caller's patience.
func (a *attempt) tryMember(ctx context.Context, i int, lease time.Duration) (driver.Grant, error) {
	t := a.ts[i]
	r := driver.Request{Key: t.key, Owner: a.owner, TTL: lease}
	if t.fencer != nil {
		r.Floor = a.floor
	}
	if a.e.waitsAt(i) {
		r.Patience = a.patience
	}
	if i == a.e.line && a.held != nil {
		return a.renewTurn(ctx, t, r, *a.held, true)
	}
	if g, ok := a.passed[i]; ok && i != a.e.line {
		return a.renewTurn(ctx, t, r, g, false)
	}
	return t.b.TryLock(ctx, r)
}

// conclude checks the quorum and the validity after the second round, and
// returns the grant or fails the attempt. When any member can fence, a
// majority of the fencing members must carry the combined token.
func (a *attempt) conclude(ctx context.Context, token uint64) (driver.Grant, error) {
	var holds []int
	var leases []time.Duration
	var uptime time.Duration
	fenced := 0
	for _, r := range a.rs {
		if r.fenced {
			fenced++
		}
		if r.state != acquired || !r.counted || r.second != nil {
			continue
		}
		holds = append(holds, r.g.Holds)
		// The validity counts from the lease asked for, not the rounded
		// one the members hold, to stay conservative as a Mutex on a
		// single coarse store is.
		lease := a.asked
		if r.g.Validity > 0 {
			lease = min(lease, r.g.Validity) // a combinator member's own validity
		}
		leases = append(leases, lease)
		if r.g.Uptime > 0 && (uptime == 0 || r.g.Uptime < uptime) {
			uptime = r.g.Uptime
		}
	}
	if len(holds) < a.e.needed {
		return a.fail(ctx, fmt.Errorf("%d of %d members confirmed the lock in the second round, %d needed (%s)",
			len(holds), len(a.ts), a.e.needed, memberErrors(a.ts, a.seconds())))
	}
	if a.e.fencers > 0 && fenced < a.e.fenceQuorum {
		// A token that a majority of the fencing members does not carry
		// need not exceed the tokens handed out before: no grant without it.
		return a.fail(ctx, fmt.Errorf("%d of %d fencing members carry the token, %d needed",
			fenced, a.e.fencers, a.e.fenceQuorum))
	}
	elapsed := a.e.s.now().Sub(a.start)
	validity := kthLargest(leases, a.e.needed) - elapsed - a.e.s.drift(a.ttl)
	if validity <= 0 {
		return a.fail(ctx, fmt.Errorf("no validity left: lease %v, attempt took %v, drift %v",
			a.asked, elapsed, a.e.s.drift(a.ttl)))
	}
	return driver.Grant{
		Acquired: true,
		// What a quorum has in common: at least the needed members have
		// this many holds or more. An old hold a quorum still has for the
		// owner (resurrected by a failover, or left by a lost Unlock)
		// shows, and the owner gives it back. One that only fewer members
		// have does not, and stays until its lease ends: each Unlock drops
		// one hold on every member, so giving it back would also drop the
		// owner's live holds on the members that lack it. Given back to
		// this count, the members that have it keep every live hold, and
		// they are a quorum.
		Holds:    kthLargest(holds, a.e.needed),
		Token:    token,
		Validity: validity,
		Uptime:   uptime,
	}, nil
}

// reentry reports whether the owner already held some member: the attempt
// is a re-entry.
func (a *attempt) reentry() bool {
	for _, r := range a.rs {
		if r.state == acquired && r.g.Holds > 1 {
			return true
		}
	}
	return false
}

func (a *attempt) count(f func(*memberResult) bool) int {
	n := 0
	for i := range a.rs {
		if f(&a.rs[i]) {
			n++
		}
	}
	return n
}

func (a *attempt) errs() []error {
	errs := make([]error, len(a.rs))
	for i, r := range a.rs {
		errs[i] = r.err
	}
	return errs
}

func (a *attempt) seconds() []error {
	errs := make([]error, len(a.rs))
	for i, r := range a.rs {
		errs[i] = r.second
	}
	return errs
}

// kthLargest returns the k-th largest of vs (k from 1): with the members'
// hold counts or leases, what a quorum of k members has in common.
func kthLargest[T int | time.Duration](vs []T, k int) T {
	sorted := slices.Clone(vs)
	slices.Sort(sorted)
	return sorted[len(sorted)-k]
}
