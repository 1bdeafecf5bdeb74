package torture

import (
	"fmt"
	"sync"
	"time"

	"github.com/distlock/distlock/driver"
)

// outcome is how a hold ended, as its Unlock reported it.
type outcome int

const (
	// released: Unlock succeeded, the store dropped the hold then.
	released outcome = iota
	// lost: Unlock found the lock no longer held (ErrLost, ErrNotHeld):
	// the hold ended at some time before.
	lost
	// unknown: Unlock failed in an unknown state; the hold ends at the
	// latest with its lease, at a time the client cannot know.
	unknown
)

// hold is one successful acquisition and what became of it. Times are
// offsets from the start of the run, from one monotonic clock.
type hold struct {
	id     int
	client int
	// share is what the hold takes: a write hold (a mutex's hold, too), a
	// read hold, or permits of a semaphore.
	share driver.Share
	token uint64
	// paused marks a hold whose holder slept past its lease on purpose.
	paused bool

	lockCall, lockReturn time.Duration
	// callSkew and returnSkew are how far the wall clock had gained on
	// the monotonic one at lockCall and lockReturn, where the servers keep
	// their leases by it, read high and low (run.skewNow).
	callSkew, returnSkew time.Duration
	// inside ends when the holder left the resource or its lease ended by
	// Lease.Deadline, whichever came first.
	insideEnd time.Duration
	// lateGrant marks a hold whose Lock returned at or after the lease's
	// deadline: the attempt took longer than the lease.
	lateGrant bool
	// doneLag is how long after the lease's deadline the holder saw Done
	// close, for holds that were lost while the holder watched; 0 otherwise.
	doneLag time.Duration

	unlockCall, unlockReturn time.Duration
	outcome                  outcome
}

// newer reports whether h began acquiring only after o had the lock: then
// o's hold was a free-to-held transition before h's, h's token must be
// higher, and once h has written, o must not.
func (h *hold) newer(o *hold) bool { return h.lockCall > o.lockReturn }

// counted reports whether the hold took a token from the lock's counter:
// every hold but a read hold, which carries the counter as it was.
func (h *hold) counted() bool { return h.share.Mode != driver.Read }

// writes reports whether the hold writes to the resource: a write hold
// with a token. Readers share the lock and semaphore holders are several
// at once, so the resource's one fence is for writers; and without a token
// a holder cannot use a fenced resource.
func (h *hold) writes() bool { return h.share.Mode == driver.Write && h.token != 0 }

// String describes the hold for the log.
func (h *hold) String() string {
	what := h.share.Mode.String()
	if h.share.Mode == driver.Permits {
		what = fmt.Sprintf("%d of %d permits", h.share.Permits, h.share.Limit)
	}
	return fmt.Sprintf("hold %d (client %d, %s, token %d)", h.id, h.client, what, h.token)
}

// write is one write to the resource.
type write struct {
	hold     *hold
	token    uint64
	at       time.Duration
	accepted bool
}

// resource is the shared resource the holders protect: a store that
// accepts a write only if its token is at least the highest it has
// accepted, as a fenced store would. It logs every write for the checks.
type resource struct {
	mu     sync.Mutex
	max    uint64
	writes []write
	// long counts the holders inside now that mean to stay most of a
	// lease, so that faults can strike while the lock is held.
	long int
}

// enterLong and exitLong count a long holder in and out.
func (r *resource) enterLong() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.long++
}

func (r *resource) exitLong() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.long--
}

// held reports whether a long holder is inside.
func (r *resource) held() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.long > 0
}

// write offers a write with h's token at time at, and reports whether the
// resource accepted it.
func (r *resource) write(h *hold, at time.Duration) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	ok := h.token >= r.max
	if ok {
		r.max = h.token
	}
	r.writes = append(r.writes, write{hold: h, token: h.token, at: at, accepted: ok})
	return ok
}

// log returns the writes in the order the resource took them.
func (r *resource) log() []write {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]write(nil), r.writes...)
}

// history collects the holds of a run. Each client appends its own holds;
// the mutex makes the appends safe.
type history struct {
	mu    sync.Mutex
	holds []*hold
	// errs counts Lock and Unlock calls that failed other than by
	// ErrNotAcquired, ErrLost or ErrNotHeld: unknown outcomes.
	errs int
	// gaveUp counts Lock calls whose wait ran out (ErrNotAcquired).
	gaveUp int
	// firstErr keeps an example of an unknown outcome for the log.
	firstErr error
}

func (h *history) add(x *hold) {
	h.mu.Lock()
	defer h.mu.Unlock()
	x.id = len(h.holds)
	h.holds = append(h.holds, x)
}

func (h *history) failed(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.errs++
	if h.firstErr == nil {
		h.firstErr = err
	}
}

func (h *history) notAcquired() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gaveUp++
}

func (h *history) snapshot() []*hold {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*hold(nil), h.holds...)
}
