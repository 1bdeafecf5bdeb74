package locker

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/distlock/distlock/driver"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// holdTelemetry follows a Mutex's hold from its acquisition to its end.
// A Mutex has one live Lease at a time (its local token admits one, and
// Unlock ends a Lease before it gives the token back), so one per Mutex
// does, and Lease needs no field for it.
type holdTelemetry struct {
	mu       sync.Mutex
	lease    *Lease // the hold followed; nil between holds
	start    time.Time
	acquired trace.SpanContext // of the call that took the hold
}

// follow starts following l, taken in the span acquired. It holds l's
// mutex, as Lease.end does, so that a lease this short that ended before
// its caller saw it has its end reported here, once.
func (l *Lease) follow(mt *mutexTelemetry, acquired trace.SpanContext) {
	if mt.metrics != nil {
		mt.metrics.held.Add(context.Background(), 1, metric.WithAttributes(mt.with()...))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	h := &mt.hold
	h.mu.Lock()
	h.lease, h.start, h.acquired = l, time.Now(), acquired
	h.mu.Unlock()
	if l.err != nil {
		mt.holdEnded(l, l.err)
	}
}

// holdEnded reports the end of l's hold for reason: ErrReleased after
// Unlock, else a loss. The caller holds l's mutex. A lease not followed
// yet is reported when it is (see follow).
func (mt *mutexTelemetry) holdEnded(l *Lease, reason error) {
	if mt == nil {
		return
	}
	h := &mt.hold
	h.mu.Lock()
	if h.lease != l {
		h.mu.Unlock()
		return
	}
	held, acquired := time.Since(h.start), h.acquired
	h.lease = nil
	h.mu.Unlock()

	ctx := context.Background()
	lost := !errors.Is(reason, ErrReleased)
	res := resultReleased
	if lost {
		res = resultLost
	}
	if ins := mt.metrics; ins != nil {
		attrs := metric.WithAttributes(mt.with()...)
		ins.hold.Record(ctx, held.Seconds(), metric.WithAttributes(mt.with(attrResult.String(res))...))
		ins.held.Add(ctx, -1, attrs)
		if lost {
			ins.leasesLost.Add(ctx, 1, attrs)
		}
	}
	if lost {
		mt.lostSpan(acquired, reason)
		mt.warn(ctx, "distlock: lease lost", errAttr(reason), slog.Duration("held", held))
	}
}

// renewal reports the outcome of a watchdog renewal of l: err is the
// store's answer, lost the loss it caused, if any.
func (mt *mutexTelemetry) renewal(l *Lease, err, lost error) {
	if mt == nil {
		return
	}
	res := resultRenewed
	switch {
	case lost != nil:
		res = resultLost
	case err != nil:
		res = resultFailed
	}
	if mt.metrics != nil {
		mt.metrics.renewals.Add(context.Background(), 1, metric.WithAttributes(mt.with(attrResult.String(res))...))
	}
	if res == resultFailed {
		mt.warn(context.Background(), "distlock: renewal failed; retrying", errAttr(err),
			slog.Duration("lease_left", time.Until(l.Deadline())))
	}
}

// observeRound counts a round of renewals sent together.
func (s *Store) observeRound() {
	if s.tel != nil && s.tel.metrics != nil {
		s.tel.metrics.batches.Add(context.Background(), 1)
	}
}

// expireAll renews a batch of the Store's leases (see driver.ExpireAll),
// measured as one store call: expire_batch when the driver batches, else
// expire.
func (s *Store) expireAll(ctx context.Context, batch []driver.Renewal) []error {
	if s.tel == nil || s.tel.metrics == nil {
		return driver.ExpireAll(ctx, s.d, batch)
	}
	start := time.Now()
	errs := driver.ExpireAll(ctx, s.d, batch)
	elapsed := time.Since(start).Seconds()
	res := resultOK
	for _, err := range errs {
		if err != nil && !errors.Is(err, ErrNotHeld) {
			res = storeResult(err)
			break
		}
	}
	op := opExpire
	if _, ok := s.d.(driver.BatchExpirer); ok {
		op = opExpireBatch
	}
	s.tel.metrics.store.Record(ctx, elapsed, metric.WithAttributes(attrOperation.String(op), attrResult.String(res)))
	return errs
}
