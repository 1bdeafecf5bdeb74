package quorum

import (
	"context"
	"time"

	"github.com/distlock/distlock/driver"
)

// The one-round hand-off, for a majority lock whose line member and
// enough other members are driver.Passers.
//
// Without it a hand-off takes two rounds after the hold: the holder's
// release, then, on the line member's turn, the waiter's own attempt at
// the other members. With it the holder knows who waits behind it: the
// line member's turn that brought it the lock named the waiter then
// first in line (driver.Turn.Next), its heir; or, when nobody was in line
// then, or the hold came from an attempt, the line member's notice of the
// first waiter to join the line behind the hold (driver.Turn.Behind)
// named it, should the holder still watch its turns (as it does for a
// while after a wait; see locker's hub). The holder's release names
// the heir to every member that can pass (UnlockTo), and each grants the
// heir the lock in the same step, with the token one above the holder's
// (or the heir's floor), which they then agree on, and tells it on its
// turn channel. The heir, which watches its turns on every such member
// (combinator.watchTurn), holds the lock once a quorum of them, the line
// member's among them, have come: the turn that makes the quorum wakes
// its Mutex, whose next attempt returns the lock without a call.
//
// What makes that safe:
//
//   - Exclusion and fencing: every member grants only on the holder's
//     release there, so a member grants the heir only what the holder
//     held; a quorum of grants is a quorum, and each grant's token is
//     above the holder's there, so the quorum's common token rises past
//     every earlier holder's as round one's does (see doc.go).
//   - Which wait a turn belongs to: a turn tells the floor of the request
//     it answers, and the heir counts only the turns whose floor is one
//     of its current wait's attempts (lineState.refused) and whose token
//     is above the line member's refusals in it, so that a late turn of an
//     earlier wait is never counted. The quorum includes the line member's
//     grant, so that the line member's refusals report the token from then
//     on: a grant the waiter's Mutex did not take can never pass for a
//     later one.
//   - Validity: each grant was made after the attempt whose floor it names
//     began (the line member had its entry before the holder was told of
//     it), so its lease ends no earlier than that start plus the lease it
//     asked for, by the member's clock; the grant is counted from there,
//     less the drift, and relative to the start of the wait's latest
//     attempt, which the Mutex's refused attempt did not follow.
//   - An heir that left: a waiter that gives up leaves every member
//     (Passer.Leave), which keeps their releases from naming it for
//     longer than its patience, and gives back a grant made meanwhile; the
//     holder names an heir only within the patience the line member said
//     it had left, and only at the release of the hold the turn brought,
//     or the notice named by its token on the line member (heirs), so a
//     waiter that has since held and released the lock is never named.
//     An heir that died keeps the grants until their lease ends, as a
//     single store's waiter does.
//   - One acquisition a wait: the lock comes from the turns only to an
//     attempt (engine.begin), and turns heard while an attempt of the wait
//     is in flight make no quorum; when it fails, the turns of the members
//     it took (and so released, claims included) no longer count. A named
//     grant that an attempt's TryLock re-entered, the turn not heard yet,
//     is made one hold again (attempt.claimNamed): the Mutex would
//     otherwise count two holds, take them for stale ones and give back
//     both.
//   - Anything else (too few turns, tokens that disagree, a member that
//     restarted within the guard's window, a wait longer than the lease):
//     the waiter is woken after passWait and takes the lock with an
//     attempt, renewing the grants the turns brought (attempt.tryMember).

// heir is a waiter a release names, and until when it waits.
type heir struct {
	driver.Successor
	until time.Time
	// behind is the line member's token of the hold that a notice told
	// the heir of (driver.Turn.Behind); 0 for an heir that the turn which
	// brought the hold named.
	behind uint64
}

// heirOf is the heir a turn heard at now named, counting its patience from
// now: the turn was sent earlier, so the heir may stop waiting a message's
// delay sooner, which its left mark covers (see combinator.leave).
func heirOf(s driver.Successor, now time.Time) heir {
	if s.Owner == "" {
		return heir{}
	}
	return heir{Successor: s, until: now.Add(s.Patience)}
}

// passWait is how long a waiter that heard some turns naming it waits for
// a quorum of them before it attempts: a few of the slowest member's round
// trips, at least 2 ms, and 20 ms before any is known.
func passWait(ts []target) time.Duration {
	var d time.Duration
	for _, t := range ts {
		if r, ok := t.rtt.estimate(); ok {
			d = max(d, 4*r)
		} else {
			return 20 * time.Millisecond
		}
	}
	return max(d, 2*time.Millisecond)
}

// inherit makes w's heir the heir of owner's hold on key (k), at now;
// with w nil or no heir, the hold has none but one a notice told of, which
// may have come first, and which names the hold it is for. l.mu is held.
func (l *lineState) inherit(k turnKey, w *waiting, now time.Time) {
	if w == nil || w.next.Owner == "" {
		if l.heirs[k].behind == 0 {
			delete(l.heirs, k)
		}
		return
	}
	l.setHeir(k, w.next, now)
}

// setHeir makes h the heir of the hold k, dropping the heirs whose
// patience ran out by now. l.mu is held.
func (l *lineState) setHeir(k turnKey, h heir, now time.Time) {
	if l.heirs == nil {
		l.heirs = make(map[turnKey]heir)
	}
	prune(l.heirs, func(h heir) bool { return !now.Before(h.until) })
	l.heirs[k] = h
}

// heir takes the heir of owner's hold on key whose token on the line
// member is token (0: unknown): a release names it only once, with the
// patience it has left at now, and one a notice told of only to the
// release of the hold the notice was for.
func (l *lineState) heir(key, owner string, token uint64, now time.Time) driver.Successor {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := turnKey{key, owner}
	h, ok := l.heirs[k]
	if !ok {
		return driver.Successor{}
	}
	delete(l.heirs, k)
	h.Patience = h.until.Sub(now)
	if h.Patience <= 0 || h.behind != 0 && h.behind != token {
		return driver.Successor{}
	}
	return h.Successor
}

// noticed records the notice t, heard at now, that a waiter joined the
// line member's empty line on key behind owner's hold: the hold's heir,
// unless it has one. A holder whose hold came from an attempt, or from a
// turn when nobody was in line, learns its heir so; without it, its
// release would name nobody, and the heir would take the other members
// with an attempt of its own after the line member's turn, a second round.
func (l *lineState) noticed(key, owner string, t driver.Turn, now time.Time) {
	if t.Next.Owner == "" || t.Next.Patience <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	k := turnKey{key, owner}
	if h, ok := l.heirs[k]; ok && now.Before(h.until) && (h.behind == 0 || h.behind == t.Behind) {
		return
	}
	h := heirOf(t.Next, now)
	h.behind = t.Behind
	l.setHeir(k, h, now)
}

// release forgets a wait whose passes were taken: the hold they made is
// being released.
func (l *lineState) release(key, owner string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := turnKey{key, owner}
	if w := l.waits[k]; w != nil && w.taken {
		w.stop()
		delete(l.waits, k)
	}
}

// passed is what a turn naming a waiter led to.
type passed int

const (
	passIgnored passed = iota // the turn is not of the current wait
	passPending               // counted; no quorum yet, or an attempt is in flight
	passQuorum                // a quorum: the waiter's next attempt has the lock
	passLate                  // after the lock was taken: one more member the waiter holds
)

// passResult is what pass found, or what the turns of a quorum gave: the
// grant, and the tokens of the grants of the members counted (with
// passLate, of the one member), for the ledger.
type passResult struct {
	state  passed
	grant  driver.Grant
	tokens map[int]uint64
	lease  time.Duration // the longest lease the grants may have
}

// pass records member i's turn t, heard at now, naming owner on key (the
// line member's key): when it belongs to the owner's current wait, it
// counts. Unless an attempt of the wait is in flight, it reports whether
// the turns counted make a quorum (see quorumOf), for the caller to wake
// the waiter, whose next attempt takes the lock (see begin); otherwise it
// arms the waiter's timer with wake, to wake it after passWait.
func (e *engine) pass(ts []target, key, owner string, i int, t driver.Turn, now time.Time, wake func()) passResult {
	l := e.waits
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.waits[turnKey{key, owner}]
	if w == nil || !t.Grant.Acquired || t.Grant.Token <= w.token {
		return passResult{}
	}
	a, ok := w.floors[t.Floor]
	if !ok {
		return passResult{}
	}
	if w.passes == nil {
		w.passes = make(map[int]driver.Turn)
	}
	if old, ok := w.passes[i]; ok && old.Grant.Token == t.Grant.Token {
		return passResult{} // heard already
	}
	w.passes[i] = t
	if w.taken {
		return passResult{state: passLate, tokens: map[int]uint64{i: t.Grant.Token}, lease: a.lease}
	}
	if i == e.line {
		w.next = heirOf(t.Next, now)
	}
	w.wake = wake
	if w.attempting {
		return passResult{state: passPending} // its end wakes the waiter (see attemptEnded)
	}
	if _, ok := e.quorumOf(ts, w, now); ok {
		w.stop()
		return passResult{state: passQuorum}
	}
	if w.timer == nil {
		w.timer = time.AfterFunc(passWait(ts), wake)
	}
	return passResult{state: passPending}
}

// beginning is how an attempt with patience begins (see begin).
type beginning struct {
	// gated, held and passed are lineState.begin's.
	gated  bool
	held   *driver.Grant
	passed map[int]driver.Grant
	// won is the lock that the turns naming the owner gave it: the
	// attempt returns it without a call.
	won *passResult
}

// begin begins an attempt of owner with patience on key (the line
// member's key) at now. When the turns that named the owner make a quorum,
// the attempt has the lock: begin returns it, with a validity counted from
// now, and the hold's heir is the one the line member's turn named.
// Otherwise it is lineState.begin, and turns heard until the attempt ends
// (attemptEnded) make no quorum: the attempt may take the same members.
func (e *engine) begin(ts []target, key, owner string, now time.Time) beginning {
	l := e.waits
	if e.passes {
		l.mu.Lock()
		k := turnKey{key, owner}
		if w := l.waits[k]; w != nil && !w.taken {
			if g, ok := e.quorumOf(ts, w, now); ok {
				g.Validity = w.last.Add(g.Validity).Sub(now)
				w.taken = true
				w.stop()
				l.inherit(k, w, now)
				r := &passResult{state: passQuorum, grant: g, tokens: make(map[int]uint64, len(w.passes))}
				for i, t := range w.passes {
					r.tokens[i] = t.Grant.Token
					r.lease = max(r.lease, w.floors[t.Floor].lease)
				}
				l.mu.Unlock()
				return beginning{won: r}
			}
			w.attempting = true
		}
		l.mu.Unlock()
	}
	var b beginning
	b.gated, b.held, b.passed = l.begin(key, owner, now)
	return b
}

// attemptEnded ends the attempt that begin began for owner on key, whose
// members ended as rs. When the wait goes on, the turns of the members the
// attempt took (or may have: it released them, a named grant it claimed
// among them) count no more, and a waiter with turns still counted is
// woken, as none may come to wake it.
func (e *engine) attemptEnded(key, owner string, rs []memberResult) {
	l := e.waits
	l.mu.Lock()
	w := l.waits[turnKey{key, owner}]
	if w == nil || !w.attempting {
		l.mu.Unlock()
		return
	}
	w.attempting = false
	for i := range w.passes {
		switch rs[i].state {
		case released, releasing, unknown:
			delete(w.passes, i)
		}
	}
	wake := w.wake
	if len(w.passes) == 0 {
		wake = nil
	}
	l.mu.Unlock()
	if wake != nil {
		wake()
	}
}

// quorumOf returns the grant the turns of w make, if they make one: the
// needed members (and a majority of the fencing ones) granted one token,
// counted by the restart guard, with validity left at now, and the line
// member among them. The line member's grant makes the token one the line
// member's refusals report from then on, whatever becomes of the grant:
// its waiter's Mutex takes a grant only above the refusals of its wait
// (see driver.Queuer), and a grant not taken must never pass for a later
// one. It also names the hold's heir.
func (e *engine) quorumOf(ts []target, w *waiting, now time.Time) (driver.Grant, bool) {
	byToken := make(map[uint64][]int, 1)
	for i, t := range w.passes {
		a := w.floors[t.Floor]
		window := e.s.guardWindow(e.roundUp(a.lease))
		if window == 0 || t.Grant.Uptime <= 0 || t.Grant.Uptime >= window {
			byToken[t.Grant.Token] = append(byToken[t.Grant.Token], i)
		}
	}
	line, ok := w.passes[e.line]
	if !ok {
		return driver.Grant{}, false
	}
	for token, members := range byToken {
		if len(members) < e.needed || token != line.Grant.Token {
			continue
		}
		fenced := 0
		ends := make([]time.Time, 0, len(members))
		var uptime, lease time.Duration
		for _, i := range members {
			t := w.passes[i]
			a := w.floors[t.Floor]
			ends = append(ends, a.start.Add(a.lease))
			lease = max(lease, a.lease)
			if t.Grant.Uptime > 0 && (uptime == 0 || t.Grant.Uptime < uptime) {
				uptime = t.Grant.Uptime
			}
			if ts[i].fencer != nil {
				fenced++
			}
		}
		if e.fencers > 0 && fenced < e.fenceQuorum {
			continue
		}
		validity := kthLatest(ends, e.needed).Sub(w.last) - e.s.drift(lease)
		if !w.last.Add(validity).After(now) {
			continue
		}
		return driver.Grant{Acquired: true, Holds: 1, Token: token, Validity: validity, Uptime: uptime}, true
	}
	return driver.Grant{}, false
}

// kthLatest returns the k-th latest of ts (k from 1).
func kthLatest(ts []time.Time, k int) time.Time {
	ds := make([]time.Duration, len(ts))
	for i, t := range ts {
		ds[i] = t.Sub(ts[0])
	}
	return ts[0].Add(kthLargest(ds, k))
}

// watchPasses watches owner's turns on every member but the line member
// that can pass, for a majority lock with a line member, and gives each
// turn to heard with the member's index.
func (c *combinator) watchPasses(ctx context.Context, ts []target, owner string, heard func(int, driver.Turn)) (func(), error) {
	var stops []func()
	stopAll := func() {
		for _, stop := range stops {
			stop()
		}
	}
	for i, t := range ts {
		if i == c.line || t.passer == nil {
			continue
		}
		stop, err := t.passer.WatchTurns(ctx, t.key, owner, func(t driver.Turn) { heard(i, t) })
		if err != nil {
			stopAll()
			return nil, err
		}
		stops = append(stops, stop)
	}
	return stopAll, nil
}

// passing reports whether an engine over ts hands over in one round: a
// majority lock with a line member (see lineState) that passes, and
// enough other members that pass to make a quorum.
func passing(ts []target, line int, waits *lineState, needed int) bool {
	if waits == nil || ts[line].passer == nil {
		return false
	}
	n := 0
	for _, t := range ts {
		if t.passer != nil {
			n++
		}
	}
	return n >= needed
}

// registerPasses records in the ledger the holds that the turns of a
// quorum gave owner, with their tokens, so that a release names them.
func (e *engine) registerPasses(ts []target, owner string, r passResult) {
	hold := r.lease + e.s.drift(r.lease)
	for i, token := range r.tokens {
		k := pendingKey{ts[i].rtt, ts[i].key, owner}
		if tk, ok := e.bg.held.lock(k); ok {
			e.bg.held.end(k, tk, 1, 1, hold, token)
		}
	}
}

// leave is Dequeue for a combinator that passes: the owner leaves every
// member that passes (Passer.Leave), so that no release names it there
// while a turn that named it may still be about, and the line member's
// queue. Leaving the line member is what must succeed, as Dequeue's.
func (c *combinator) leave(ctx context.Context, ts []target, owner string) error {
	d := c.waits.leave(ts[c.line].key, owner) + floorLead
	_, errs := fanout(ctx, ts, c.s.plain, func(ctx context.Context, i int) (struct{}, error) {
		if ts[i].passer == nil {
			return struct{}{}, errSkipped
		}
		return struct{}{}, ts[i].passer.Leave(ctx, ts[i].key, owner, d)
	}, nil)
	return verdict(c.kind, "dequeue", 1, ts[c.line:c.line+1], errs[c.line:c.line+1])
}

// leave forgets owner's wait on key, and the heir of its hold, and
// returns how long a release may name the owner still: the patience of
// its wait, or the longest any wait gave when it has none.
func (l *lineState) leave(key, owner string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := turnKey{key, owner}
	d := l.patience
	if w := l.waits[k]; w != nil {
		d = w.until.Sub(w.refused)
		w.stop()
		delete(l.waits, k)
	}
	delete(l.heirs, k)
	return d
}

// claimNamed makes one hold of each named grant the attempt re-entered. A
// release that named the owner may grant it a member after the attempt
// began and before its TryLock there, which then re-enters the grant (a
// TryLock without patience does, see driver.Queuer): the member holds the
// lock for the owner twice, though the owner asked once, and its Mutex,
// counting two holds where it accounts for one, would give both back as
// stale. So where the attempt is not a re-entry (the line member, asked
// with patience, reports one hold) and the owner held nothing before the
// call (its ledger ticket was lone), a member of a passing engine that
// reports two holds drops one (UnlockHold, which the count keeps from
// releasing). One that cannot stays at two holds, as before.
func (a *attempt) claimNamed(ctx context.Context) {
	e := a.e
	if !e.passes || a.patience <= 0 || a.rs[e.line].state != acquired || a.rs[e.line].g.Holds != 1 {
		return
	}
	named := make([]bool, len(a.rs))
	some := false
	for i := range a.rs {
		r := &a.rs[i]
		named[i] = i != e.line && a.ts[i].passer != nil && a.ts[i].holder != nil &&
			r.state == acquired && r.g.Holds == 2 && r.tk.lone
		some = some || named[i]
	}
	if !some {
		return
	}
	tokens := make([]uint64, len(a.rs)) // read by the calls, which fanout may abandon
	for i := range a.rs {
		tokens[i] = a.rs[i].g.Token
	}
	_, errs := fanout(ctx, a.ts, e.s.plain, func(ctx context.Context, i int) (struct{}, error) {
		if !named[i] {
			return struct{}{}, errSkipped
		}
		t := a.ts[i]
		tk := e.bg.held.unlock(a.key(i))
		err := t.holder.UnlockHold(ctx, t.key, a.owner, tokens[i])
		e.bg.held.end(a.key(i), tk, unlockCount(err), 0, 0, 0)
		return struct{}{}, err
	}, nil)
	for i, err := range errs {
		if named[i] && err == nil {
			a.rs[i].g.Holds = 1
		}
	}
}
