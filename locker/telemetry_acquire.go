package locker

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// observe is acquire, reported: the call's span, result and duration, and
// the hold it takes; acquire counts the waiters itself, since it decides
// whether a call waits.
func (m *Mutex) observe(ctx context.Context, op string, wait bool, opts []LockOption) (*Lease, error) {
	mt := m.tel
	if mt == nil {
		return m.acquire(ctx, op, wait, opts)
	}
	start := time.Now()
	ctx, span := mt.startSpan(ctx, "distlock."+op, trace.SpanKindInternal)
	l, err := m.acquire(ctx, op, wait, opts)
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

// addWaiters counts n more calls waiting for the lock (see acquire).
func (mt *mutexTelemetry) addWaiters(ctx context.Context, n int64) {
	if mt != nil && mt.metrics != nil {
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
