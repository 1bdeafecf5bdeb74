package quorum

import (
	"sync"
	"time"

	"github.com/distlock/distlock/driver"
)

// hotWindow is how long after the line member refused a waiter of a key
// through a combinator the combinator's waiting attempts on that key ask
// the line member first (see lineState).
const hotWindow = time.Second

// lineState is what a majority combinator with a line member remembers of
// the recent waits on its keys (by the line member's key), so that a
// waiter whose turn it is takes the lock in one round, and nobody
// overtakes it meanwhile.
//
// The turn's grant. A waiter's attempts with patience that the line
// member refuses are recorded: when the last began, the lease it asked
// for, and the highest token the refusals reported. A turn whose grant
// carries a higher token is a grant made after that refusal (see
// driver.Queuer), and the waiter's next attempt, while the lease asked
// for lasts, takes the line member with it instead of claiming it: it
// renews the grant there (renewTurn), which leaves it unclaimed, and
// counts it with the store's uptime when it made the grant (for the
// restart guard) and the grant's token, which becomes the floor the other
// members are given, so that their tokens agree with it (the line member
// made it at least the floor of the refused attempt, see driver.Request).
// When that attempt fails (another attempt in flight held the other
// members), the grant is not given back: the lock stays the waiter's
// there, everyone else is refused, and the waiter is stuck (see wakes): it
// asks again at the other members' next release, or within a millisecond,
// backing off to a second. Claiming it instead would make a failed
// attempt give it back, to the next in line, and the waiter lose its
// place. Only when another member refused the attempt with
// Grant.Reserved (see attempt.otherLine) is the grant given back.
//
// The race it prevents. A holder that releases and asks again at once (the
// usual loop) asks every member while the waiter takes them; when the
// releaser's attempt reaches the other members first, it takes them, is
// refused at the line member (Grant.Reserved) and gives them back, and the
// waiter's attempt was refused there meanwhile. So an attempt that waits
// (Request.Patience) on a key that is hot, one whose waiters the line
// member refused through this combinator within hotWindow, asks the line
// member first and the other members only if it granted the lock: refused
// there, it takes nothing anywhere. The waiter whose turn the combinator
// heard asks every member at once, its turn being its own. An attempt
// that does not wait, and any attempt on a key that is not hot (the
// uncontended loop), asks every member at once.
//
// A hold on the line member that refuses the gated attempts of a key with
// the same token for staleAfter cools the key: it may be stale (another
// owner's, who holds no quorum), and the next attempts ask every member at
// once and need only a quorum, so a stale hold on the line member costs a
// waiter a refused attempt or two, not the hold's lease. Under contention
// the line member's token changes with every holder, and the key stays
// hot.
//
// The one-round hand-off. When the members are driver.Passers, a waiter
// also hears the turns its predecessor's release names it to on every
// member, and takes the lock from them once a quorum has come (see
// pass.go); what it needs for that is kept here too: the floors of its
// attempts, the turns, and who the line member said waits behind it (an
// heir, which the release of the hold it takes names).
type lineState struct {
	mu    sync.Mutex
	hot   map[string]*heat
	waits map[turnKey]*waiting
	heirs map[turnKey]heir
	// patience is the longest patience a wait gave (see leave).
	patience time.Duration
}

// staleAfter is how long one hold on the line member refuses a key's
// gated attempts before it cools the key.
const staleAfter = hotWindow / 2

// heat is what keeps a key hot.
type heat struct {
	at    time.Time // when a waiter was last refused at the line member
	token uint64    // the token of the hold that refused the last gated attempt
	since time.Time // when that hold first refused one
}

type turnKey struct{ key, owner string }

// waiting is what a combinator knows of one owner's wait on a key.
type waiting struct {
	refused time.Time     // when the last attempt the line member refused began
	until   time.Time     // when that attempt's patience lapses, and the entry with it
	lease   time.Duration // the lease that attempt asked for: a grant's
	token   uint64        // the highest token the line member's refusals reported
	grant   driver.Grant  // a turn's grant above token, if one was heard
	woken   bool          // a turn heard without a grant

	last   time.Time           // when the latest attempt of the wait began
	floors map[uint64]asked    // the floors of the attempts the line member refused
	passes map[int]driver.Turn // the turns above token that named the owner, by member
	next   heir                // who waits behind the owner, as the line member's last turn said
	timer  *time.Timer         // wakes the waiter should the passes not make a quorum
	wake   func()              // wakes the waiter
	// attempting: an attempt of the wait is in flight (see engine.begin);
	// taken: an attempt took the lock from the passes.
	attempting, taken bool
}

// asked is what an attempt of a wait asked for: when it began, and the
// lease.
type asked struct {
	start time.Time
	lease time.Duration
}

// begin starts an attempt of owner on key with patience: it returns
// whether the attempt asks the line member first, and the grant a turn
// brought there, if its lease has not run out.
// It also returns the grants that turns naming the owner brought on the
// other members, by member, with which the attempt holds them already.
func (l *lineState) begin(key, owner string, now time.Time) (gated bool, held *driver.Grant, passed map[int]driver.Grant) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if w := l.waits[turnKey{key, owner}]; w != nil {
		w.last = now
		if w.grant.Acquired || len(w.passes) > 0 {
			if now.Sub(w.refused) < w.lease {
				if w.grant.Acquired {
					g := w.grant
					held = &g
				}
				for i, t := range w.passes {
					if passed == nil {
						passed = make(map[int]driver.Grant, len(w.passes))
					}
					passed[i] = t.Grant
				}
				return false, held, passed
			}
			w.grant, w.passes = driver.Grant{}, nil
		}
		if w.woken {
			w.woken = false
			return false, nil, nil
		}
	}
	h, ok := l.hot[key]
	return ok && now.Sub(h.at) < hotWindow, nil, nil
}

// refused records the line member's refusal g of an attempt of owner on
// key that began at start, asked for lease and waits patience: it heats
// the key, unless one hold has refused its gated attempts for staleAfter,
// which cools it.
func (l *lineState) refused(key, owner string, g driver.Grant, gated bool, start time.Time, lease, patience time.Duration, floor uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := l.hot[key]
	if h == nil {
		if l.hot == nil {
			l.hot = make(map[string]*heat)
		}
		prune(l.hot, func(h *heat) bool { return start.Sub(h.at) >= hotWindow })
		h = &heat{}
		l.hot[key] = h
	}
	h.at = start
	if gated && !g.Reserved {
		switch {
		case g.Token != h.token || h.since.IsZero():
			h.token, h.since = g.Token, start
		case start.Sub(h.since) >= staleAfter:
			delete(l.hot, key)
		}
	}
	k := turnKey{key, owner}
	w := l.waits[k]
	if w == nil || w.taken {
		if l.waits == nil {
			l.waits = make(map[turnKey]*waiting)
		}
		prune(l.waits, func(w *waiting) bool { return !start.Before(w.until) })
		w.stop()
		w = &waiting{last: start}
		l.waits[k] = w
	}
	w.refused, w.until, w.lease, w.token = start, start.Add(patience), lease, max(w.token, g.Token)
	l.patience = max(l.patience, patience)
	if w.grant.Token <= w.token {
		w.grant = driver.Grant{}
	}
	for i, t := range w.passes {
		if t.Grant.Token <= w.token {
			delete(w.passes, i)
		}
	}
	if floor > 0 {
		if w.floors == nil {
			w.floors = make(map[uint64]asked)
		}
		for f, a := range w.floors {
			// A release names an attempt only within its patience.
			if start.Sub(a.start) > patience+floorLead {
				delete(w.floors, f)
			}
		}
		w.floors[floor] = asked{start, lease}
	}
}

// turn records a turn heard for owner on key: its grant, if it came after
// the last refusal recorded, or a wake-up.
func (l *lineState) turn(key, owner string, t driver.Turn, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.waits[turnKey{key, owner}]
	g := t.Grant
	switch {
	case w == nil, w.taken:
	case g.Acquired && g.Token > w.token:
		if g.Token > w.grant.Token {
			w.grant = g
			w.next = heirOf(t.Next, now)
		}
	default:
		w.woken = true
	}
}

// claimed records that an attempt of owner took the line member with a
// TryLock, which claims any grant made to owner there: a turn's grant
// heard meanwhile, whose token is at most the claim's, is used up (the
// attempt holds it, or gives it back when it fails).
func (l *lineState) claimed(key, owner string, token uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if w := l.waits[turnKey{key, owner}]; w != nil {
		w.token = max(w.token, token)
		if w.grant.Token <= w.token {
			w.grant = driver.Grant{}
		}
	}
}

// done forgets owner's wait on key: it left the queue, or its grant.
func (l *lineState) done(key, owner string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := turnKey{key, owner}
	l.waits[k].stop()
	delete(l.waits, k)
}

// won forgets owner's wait on key, which an attempt that began at start
// ended with the lock: the hold's heir is who the line member's turn said
// waits behind it, if a turn came.
func (l *lineState) won(key, owner string, start time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := turnKey{key, owner}
	w := l.waits[k]
	l.inherit(k, w, start)
	w.stop()
	delete(l.waits, k)
}

// stop stops w's timer; w may be nil.
func (w *waiting) stop() {
	if w != nil && w.timer != nil {
		w.timer.Stop()
	}
}

// prune drops the entries that are over once m has grown past a few
// dozen, so that the keys and waiters of the past do not pile up.
func prune[K comparable, V any](m map[K]V, over func(V) bool) {
	if len(m) < 64 {
		return
	}
	for k, v := range m {
		if over(v) {
			delete(m, k)
		}
	}
}
