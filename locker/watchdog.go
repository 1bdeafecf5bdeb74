package locker

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/distlock/distlock/driver"
)

// The watchdog renews leases taken without a fixed lease. There is one
// scheduler per Store (one goroutine, running while it has leases to renew
// and for idleLinger after). Renewals due together are sent together, by
// driver.ExpireAll: as one ExpireBatch call when the driver is a
// BatchExpirer, or as concurrent calls otherwise.

// schedulerStarts counts scheduler goroutines started, for tests.
var schedulerStarts atomic.Int64

const (
	// batchWindow lets a renewal go out this much early to join a batch.
	batchWindow = 20 * time.Millisecond
	// idleLinger is how long a scheduler without leases waits for a new
	// one before its goroutine exits. A program that locks and unlocks in
	// a loop then keeps one goroutine instead of starting one per lock,
	// and the scheduler is not woken for each lease that comes and goes
	// (together that cost about 20 µs of CPU per Lock and Unlock, a
	// quarter of an uncontended one on a local Redis). It is short so that
	// a program that stops locking is soon left with no watchdog goroutine.
	idleLinger = 50 * time.Millisecond
)

// renewal is one lease's place in a scheduler.
type renewal struct {
	lease *Lease
	s     *scheduler
	// guarded by s.mu:
	next     time.Time
	index    int           // in s.queue; -1 when not queued
	inflight chan struct{} // closed when the current renewal call returns
	stopped  bool          // by Unlock, or because the lease ended
}

// A renewal is due in its scheduler's queue at its next renewal.
func (r *renewal) due() time.Time { return r.next }
func (r *renewal) place() *int    { return &r.index }

// scheduler renews the leases of one Store. Renewals are timed by the
// Store's clock; the idle linger, which only bounds the life of the
// goroutine, by the system clock, so that a scheduler on a stopped fake
// clock still exits.
type scheduler struct {
	s    *Store
	wake chan struct{}

	mu      sync.Mutex
	queue   timeQueue[*renewal]
	running bool
	// wakeAt is when, by s.clock, the running scheduler next wakes by
	// itself: the earliest renewal, or the end of its idle linger.
	wakeAt time.Time
	// lingering: the running scheduler waits out its idle linger (by the
	// system clock), not for a renewal (by s.clock).
	lingering bool
	// emptySince is when, in real time, the queue last became empty; zero
	// while it has leases.
	emptySince time.Time
}

func (s *scheduler) init(st *Store) {
	s.s = st
	s.wake = make(chan struct{}, 1)
}

// startRenewal schedules l's first renewal a third of its lease after start.
func startRenewal(l *Lease, start time.Time) *renewal {
	s := &l.m.s.dog
	r := &renewal{lease: l, s: s, next: start.Add(l.ttl / 3), index: -1}
	s.mu.Lock()
	heap.Push(&s.queue, r)
	s.emptySince = time.Time{}
	wake := false
	if !s.running {
		s.running = true
		schedulerStarts.Add(1)
		go s.run()
	} else {
		// A running scheduler needs waking only if it would sleep past the
		// new renewal.
		wake = r.next.Before(s.wakeAt)
	}
	s.mu.Unlock()
	if wake {
		s.poke()
	}
	return r
}

func (s *scheduler) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// stop removes r from its scheduler and waits for a renewal in flight.
func (r *renewal) stop() {
	if inflight := r.drop(); inflight != nil {
		<-inflight
	}
}

// drop removes r from its scheduler, and returns the channel closed when a
// renewal in flight returns (nil when none is).
func (r *renewal) drop() (inflight chan struct{}) {
	s := r.s
	s.mu.Lock()
	r.stopped = true
	if r.index >= 0 {
		heap.Remove(&s.queue, r.index)
	}
	wake := false
	if len(s.queue) == 0 {
		s.emptySince = time.Now()
		// An idle scheduler exits idleLinger from now, by the system
		// clock, not at its next timer, which may be a third of a lease
		// away, and on a fake clock that has stopped, never.
		wake = !s.lingering
	}
	inflight = r.inflight
	s.mu.Unlock()
	if wake {
		s.poke()
	}
	return inflight
}

// advance moves r's next renewal earlier, to at.
func (r *renewal) advance(at time.Time) {
	s := r.s
	s.mu.Lock()
	if r.index >= 0 && at.Before(r.next) {
		r.next = at
		heap.Fix(&s.queue, r.index)
	}
	s.mu.Unlock()
	s.poke()
}

func (s *scheduler) run() {
	for {
		s.mu.Lock()
		now := s.s.clock.Now()
		idle := time.Duration(0)
		if len(s.queue) == 0 {
			if s.emptySince.IsZero() {
				s.emptySince = time.Now()
			}
			if idle = time.Since(s.emptySince); idle >= idleLinger {
				s.running = false
				s.mu.Unlock()
				return
			}
		} else {
			s.emptySince = time.Time{}
		}
		var due []*renewal
		for len(s.queue) > 0 && !s.queue[0].next.After(now.Add(batchWindow)) {
			r := heap.Pop(&s.queue).(*renewal)
			r.inflight = make(chan struct{})
			due = append(due, r)
		}
		wait := time.Duration(0)
		stop := func() bool { return false }
		switch {
		case len(due) > 0:
		case len(s.queue) > 0:
			wait = s.queue[0].next.Sub(now)
			stop = s.s.clock.At(s.queue[0].next, s.poke)
		default:
			wait = idleLinger - idle
			stop = time.AfterFunc(wait, s.poke).Stop
		}
		s.wakeAt = now.Add(wait)
		s.lingering = len(due) == 0 && len(s.queue) == 0
		s.mu.Unlock()

		if len(due) > 0 {
			s.renew(due)
			continue
		}
		<-s.wake
		stop()
	}
}

// renew renews the due leases and puts back those still held.
func (s *scheduler) renew(due []*renewal) {
	start := s.s.clock.Now()
	s.s.observeRound()
	timeout := due[0].lease.ttl / 3
	for _, r := range due {
		timeout = min(timeout, r.lease.ttl/3)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	batch := make([]driver.Renewal, len(due))
	for i, r := range due {
		batch[i] = driver.Renewal{Key: r.lease.m.name, Owner: r.lease.m.owner, TTL: r.lease.ttl}
	}
	errs := s.s.expireAll(ctx, batch)
	for i, r := range due {
		s.settle(r, start, errs[i])
	}
}

// settle records the outcome of r's renewal: on success the next renewal is
// a third of the lease later; when the store no longer holds the lock the
// lease is lost; otherwise the renewal is retried soon, until the lease's
// own timer ends it at its deadline. A lease that ended meanwhile (its
// timer, or a success that came too late) is renewed no more.
func (s *scheduler) settle(r *renewal, start time.Time, err error) {
	l := r.lease
	var lost error
	switch {
	case err == nil:
		_ = l.renewed(start, l.ttl) // a lease that ended shows in Err below
	case errors.Is(err, ErrNotHeld):
		lost = fmt.Errorf("%w: renewal found the lock gone", ErrLost)
		l.end(lost)
	}
	l.m.tel.renewal(l, err, lost)
	ended := l.Err() != nil
	s.mu.Lock()
	close(r.inflight)
	r.inflight = nil
	if !r.stopped && !ended {
		if err == nil {
			r.next = start.Add(l.ttl / 3)
		} else {
			r.next = s.s.clock.Now().Add(min(l.ttl/10, time.Second))
		}
		heap.Push(&s.queue, r)
	}
	s.mu.Unlock()
}
