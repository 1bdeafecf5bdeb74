package locker

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// observe is acquire, reported: the call's span, result and duration, the
// waiters while it waits, and the hold it takes.
func (m *Mutex) observe(ctx context.Context, op string, wait bool, opts []LockOption) (*Lease, error) {
	mt := m.tel
	if mt == nil {
		return m.acquire(ctx, op, wait, opts)
	}
	start := time.Now()
	ctx, span := mt.startSpan(ctx, "distlock."+op, trace.SpanKindInternal)
	waits := waits(wait, opts)
	if waits {
		mt.addWaiters(ctx, 1)
	}
	l, err := m.acquire(ctx, op, wait, opts)
	if waits {
		mt.addWaiters(ctx, -1)
	}
	res := acquisitionResult(err)
	if ins := mt.metrics; ins != nil {
		attrs := metric.WithAttributes(mt.with(attrResult.String(res))...)
		ins.acquisitions.Add(ctx, 1, attrs)
		ins.wait.Record(ctx, time.Since(start).Seconds(), attrs)
	}
	var acquired trace.SpanContext
	if span != nil {
		acquired = span.SpanContext()
	}
	if l != nil {
		l.follow(mt, acquired)
	}
	if res == resultUnavailable || res == resultUnknown {
		// The message names the members a combinator could not count, and
		// why: what an operator needs to see.
		mt.warn(ctx, "distlock: the stores could not decide", errAttr(err))
	}
	endSpan(span, res, err != nil, err)
	return l, err
}

// waits reports whether a call with opts waits for the lock, as acquire
// decides it.
func waits(wait bool, opts []LockOption) bool {
	var s lockSettings
	for _, opt := range opts {
		if opt(&s) != nil {
			return false // acquire refuses the call at once
		}
	}
	if s.waitSet {
		return s.wait > 0
	}
	return wait
}

func (mt *mutexTelemetry) addWaiters(ctx context.Context, n int64) {
	if mt.metrics != nil {
		mt.metrics.waiters.Add(ctx, n, metric.WithAttributes(mt.with()...))
	}
}

// ridingOut reports a waiting call that tries again after a store call
// failed with err.
func (mt *mutexTelemetry) ridingOut(ctx context.Context, err error) {
	if mt == nil {
		return
	}
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent("distlock.store.retry", trace.WithAttributes(attrResult.String(storeResult(err))))
	}
	mt.warn(ctx, "distlock: a store call failed during a wait; trying again", errAttr(err))
}
