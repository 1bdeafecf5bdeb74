package locker

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// holdTelemetry follows one hold, from its acquisition to its end.
type holdTelemetry struct {
	mt       *mutexTelemetry
	start    time.Time
	acquired trace.SpanContext // of the call that took the hold
}

// observe starts following l. The lease may have ended already (a lease
// this short can run out before its caller sees it): its end is then
// reported at once.
func (l *Lease) observe(mt *mutexTelemetry, acquired trace.SpanContext) {
	h := &holdTelemetry{mt: mt, start: time.Now(), acquired: acquired}
	if mt.metrics != nil {
		mt.metrics.held.Add(context.Background(), 1, metric.WithAttributes(mt.with()...))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.obs = h
	if l.err != nil {
		h.end(l.err)
	}
}

// end reports the end of the hold for reason: ErrReleased after Unlock,
// else a loss. The caller holds the lease's mutex. h may be nil.
func (h *holdTelemetry) end(reason error) {
	if h == nil {
		return
	}
	ctx := context.Background()
	lost := !errors.Is(reason, ErrReleased)
	res := resultReleased
	if lost {
		res = resultLost
	}
	if ins := h.mt.metrics; ins != nil {
		attrs := metric.WithAttributes(h.mt.with()...)
		ins.hold.Record(ctx, time.Since(h.start).Seconds(), metric.WithAttributes(h.mt.with(attrResult.String(res))...))
		ins.held.Add(ctx, -1, attrs)
		if lost {
			ins.leasesLost.Add(ctx, 1, attrs)
		}
	}
	if lost {
		h.mt.lostSpan(h.acquired, reason)
		h.mt.warn(ctx, "distlock: lease lost", errAttr(reason),
			slog.Duration("held", time.Since(h.start)))
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

// observeRound counts a round of renewals sent together, once for each
// Telemetry with leases in it.
func observeRound(due []*renewal) {
	for _, t := range metricsOf(due) {
		t.batches.Add(context.Background(), 1)
	}
}

// expireBatch is b.ExpireBatch, measured for each Telemetry with leases in
// the batch. Its result is that of the first renewal that got no answer,
// or ok: a lock found gone is an answer, counted in distlock.renewals.
func expireBatch(ctx context.Context, b BatchExpirer, batch []Renewal, due []*renewal) []error {
	ins := metricsOf(due)
	if len(ins) == 0 {
		return b.ExpireBatch(ctx, batch)
	}
	start := time.Now()
	errs := b.ExpireBatch(ctx, batch)
	elapsed := time.Since(start).Seconds()
	res := resultOK
	for _, err := range errs {
		if err != nil && !errors.Is(err, ErrNotHeld) {
			res = storeResult(err)
			break
		}
	}
	attrs := metric.WithAttributes(attrOperation.String(opExpireBatch), attrResult.String(res))
	for _, in := range ins {
		in.store.Record(ctx, elapsed, attrs)
	}
	return errs
}

// metricsOf returns the instruments of the leases' Telemetries, each once.
// It allocates nothing when no lease has any.
func metricsOf(due []*renewal) []*instruments {
	var ins []*instruments
next:
	for _, r := range due {
		mt := r.lease.m.tel
		if mt == nil || mt.metrics == nil {
			continue
		}
		for _, in := range ins {
			if in == mt.metrics {
				continue next
			}
		}
		ins = append(ins, mt.metrics)
	}
	return ins
}
