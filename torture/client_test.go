package torture

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// Timing of a client's loop.
const (
	// waitBudget bounds each Lock call's wait.
	waitBudget = 2 * time.Second
	// unlockTimeout bounds each Unlock call.
	unlockTimeout = time.Second
	// maxSteps is the most writes a holder makes in one hold.
	maxSteps = 4
)

// player is one contending client: a Store over a backend with
// connections of its own, as one process has, and its place in the run.
type player struct {
	id    int
	store *locker.Store
	// pauser makes every third hold a paused one, from the second on: a
	// fixed lease, a write, a sleep past the lease ignoring Done, and a late
	// write.
	pauser bool
	// keep makes the client keep one handle (a Mutex), and so one owner,
	// for the whole run: it locks again a Mutex whose last release may not
	// have reached the store, or may have been lost in a failover.
	keep bool
	// lossy makes the client lose one Unlock in two (see loseUnlock).
	lossy bool
	// rewrite says that the client's last Unlock, of a write hold, was
	// lost: its next hold writes too, so that a late release can meet the
	// same owner's next write hold.
	rewrite bool
}

// play takes the lock again and again until the run stops. Each
// acquisition uses a new handle (Mutex, RWMutex or Semaphore), so each hold
// has an owner of its own, unless the client keeps one: that handle must
// not re-enter a hold that a failed call or a failover left behind on the
// store.
func (r *run) play(p *player) {
	held := 0 // holds acquired; a failed attempt does not skip a pause
	var lock handle
	for n := 0; !r.stopped(); n++ {
		if lock == nil || !p.keep {
			var err error
			if lock, err = r.lock.open(p.store, r.key, r.lease); err != nil {
				r.hist.failed(err)
				return
			}
		}
		paused := p.pauser && held%3 == 1
		share := r.lock.pick(paused || p.rewrite)
		p.rewrite = false
		var opts []locker.LockOption
		if paused {
			opts = append(opts, locker.WithLease(r.lease))
		} else if n%2 == 1 {
			// Half the holds take a fixed lease, half the watchdog's.
			opts = append(opts, locker.WithLease(r.lease))
		}
		ctx, cancel := context.WithTimeout(context.Background(), waitBudget)
		call, callSkew := time.Now(), r.skewNow(true)
		lease, err := lock.take(ctx, share, opts...)
		ret, returnSkew := time.Now(), r.skewNow(false)
		cancel()
		if err != nil {
			if errors.Is(err, locker.ErrNotAcquired) {
				r.hist.notAcquired()
			} else {
				r.hist.failed(err)
				r.pauseBriefly()
			}
			continue
		}
		held++
		h := &hold{client: p.id, share: share, token: lease.Token(), paused: paused,
			lockCall: r.since(call), lockReturn: r.since(ret), callSkew: callSkew, returnSkew: returnSkew}
		h.lateGrant = !lease.Deadline().After(ret)
		if lease.Holds() != 1 {
			// The client holds no other lease: a count above one is a
			// hold re-entered that nobody accounts for.
			r.violation("hold of client %d has hold count %d, though the client holds no other lease", p.id, lease.Holds())
		}
		if paused {
			r.pausedHold(h, lease)
		} else {
			r.honestHold(h, lease)
		}
		r.unlock(p, h, lease)
		r.hist.add(h)
		r.pauseBriefly()
	}
}

// honestHold writes a few times, checking before each write that the
// lease is still valid, and leaves at once when it ends. One hold in four
// is long (most of a lease), so that faults strike while a lock is held.
func (r *run) honestHold(h *hold, lease *locker.Lease) {
	var doneSeen time.Time
	steps := 1 + rand.IntN(maxSteps)
	lo, hi := 5, 25
	if rand.IntN(4) == 0 {
		lo, hi = 60, 160
		r.res.enterLong()
		defer r.res.exitLong()
	}
	for range steps {
		if lease.Err() != nil || !r.clock().Before(lease.Deadline()) {
			break
		}
		if h.writes() {
			r.res.write(h, r.now())
		}
		t := time.NewTimer(time.Duration(lo+rand.IntN(hi-lo)) * time.Millisecond)
		select {
		case <-t.C:
		case <-lease.Done():
			doneSeen = r.clock()
			t.Stop()
		}
	}
	r.leave(h, lease, doneSeen)
}

// pausedHold simulates a holder stopped past its lease (a long garbage
// collection, a frozen VM): it writes, sleeps through the end of its lease
// without looking at Done, and writes again with its old token. The
// resource must turn that write away if a newer holder wrote meanwhile.
func (r *run) pausedHold(h *hold, lease *locker.Lease) {
	if h.writes() {
		r.res.write(h, r.now())
	}
	h.insideEnd = r.since(lease.Deadline())
	r.strike("client %d paused past its lease", h.client)
	time.Sleep(2*r.lease + 200*time.Millisecond)
	if lease.Err() == nil {
		r.violation("hold %d: a fixed lease %v past its deadline has not closed Done", h.id, r.lease+200*time.Millisecond)
	}
	if h.writes() {
		r.res.write(h, r.now())
	}
}

// leave records when h stopped being inside: now, or the lease's deadline
// if that came first. When the lease ran out by the clock, it also
// measures how late Done closed (doneSeen is when the holder saw it close,
// if it did): losing a lock must always be signalled.
func (r *run) leave(h *hold, lease *locker.Lease, doneSeen time.Time) {
	now := r.clock()
	deadline := lease.Deadline()
	if now.Before(deadline) {
		h.insideEnd = r.since(now)
		return
	}
	h.insideEnd = r.since(deadline)
	if lease.Err() == nil {
		// Wait for Done; a late renewal that got through may instead
		// move the deadline on, which is no loss.
		give := r.clock().Add(2 * r.lease)
		for lease.Err() == nil && !lease.Deadline().After(deadline) && r.clock().Before(give) {
			time.Sleep(2 * time.Millisecond)
		}
		switch {
		case lease.Err() != nil:
			doneSeen = r.clock()
		case lease.Deadline().After(deadline):
			return // renewed late: the store kept the hold
		default:
			r.violation("hold %d: lease ran out at %v and Done had not closed %v later",
				h.id, r.since(deadline), 2*r.lease)
			return
		}
	}
	if h.lateGrant {
		return // its lateness is counted apart
	}
	if doneSeen.IsZero() {
		doneSeen = now
	}
	h.doneLag = max(0, doneSeen.Sub(deadline))
}

// unlock releases h, on a lossy client one time in two with its links
// impaired, and records how it ended.
func (r *run) unlock(p *player, h *hold, lease *locker.Lease) {
	h.unlockCall = r.now()
	var err error
	if p.lossy && rand.IntN(2) == 0 {
		err = r.loseUnlock(p, lease)
		p.rewrite = h.share.Mode == driver.Write
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), unlockTimeout)
		err = lease.Unlock(ctx)
		cancel()
	}
	h.unlockReturn = r.now()
	switch {
	case err == nil:
		h.outcome = released
	case errors.Is(err, locker.ErrLost), errors.Is(err, locker.ErrNotHeld):
		h.outcome = lost
	default:
		h.outcome = unknown
		r.hist.failed(err)
	}
}

// pauseBriefly spaces a client's attempts a little, so that contention
// varies.
func (r *run) pauseBriefly() {
	time.Sleep(time.Duration(rand.IntN(10)) * time.Millisecond)
}
