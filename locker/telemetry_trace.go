package locker

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Spans. A Lock or TryLock call is a span, "distlock.lock" or
// "distlock.trylock", covering the wait; the store calls it makes are
// client spans, "distlock.store.<operation>", below it. A lost lease is a
// short span of its own, "distlock.lease.lost", linked to the span of the
// call that took the lease: a hold can last hours, longer than a span
// should stay open. Store calls outside a recording span (renewals, a
// background cleanup) get no span, so that a watchdog renewing locks does
// not start a trace every few seconds; they are measured all the same.

// startSpan starts a span named name below ctx's.
func (mt *mutexTelemetry) startSpan(ctx context.Context, name string, kind trace.SpanKind) (context.Context, trace.Span) {
	if mt.tracer == nil {
		return ctx, nil
	}
	return mt.tracer.Start(ctx, name, trace.WithSpanKind(kind), trace.WithAttributes(mt.with()...))
}

// endSpan ends span with the result res, and an error status when the
// operation failed. span may be nil.
func endSpan(span trace.Span, res string, failed bool, err error) {
	if span == nil {
		return
	}
	span.SetAttributes(attrResult.String(res))
	if failed {
		span.SetStatus(codes.Error, errorText(res, err))
	}
	span.End()
}

// lostSpan records the loss of the lease taken in the span acquired.
func (mt *mutexTelemetry) lostSpan(acquired trace.SpanContext, reason error) {
	if mt.tracer == nil {
		return
	}
	_, span := mt.tracer.Start(context.Background(), "distlock.lease.lost",
		trace.WithLinks(trace.Link{SpanContext: acquired}),
		trace.WithAttributes(mt.with()...))
	endSpan(span, resultLost, true, reason)
}

// errorText describes a failure in a span status: err without the OpError
// that names the lock, since names go into spans only when the program
// asks (WithLockNameAttribute), or res when there is no error.
func errorText(res string, err error) string {
	if err == nil {
		return res
	}
	if e, ok := errors.AsType[*OpError](err); ok {
		err = e.Err
	}
	return err.Error()
}
