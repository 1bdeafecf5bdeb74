package locker

import (
	"context"
	"errors"
	"time"

	"github.com/distlock/distlock/driver"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// The Mutex calls its store through these, so that each call is measured
// (distlock.store.duration) and, below a recording span, traced.

func (m *Mutex) storeTryLock(ctx context.Context, ttl, patience time.Duration) (driver.Grant, error) {
	r := driver.Request{Key: m.name, Owner: m.owner, TTL: ttl, Patience: patience}
	if m.tel == nil {
		return m.s.d.TryLock(ctx, r)
	}
	ctx, c := m.tel.startCall(ctx, opTryLock)
	g, err := m.s.d.TryLock(ctx, r)
	c.end(ctx, grantResult(g, err), err)
	return g, err
}

// storeUnlock drops one of the owner's holds: the hold whose fencing
// token is token, when the driver can name it (driver.HoldUnlocker) and
// token is not 0, so that a release that reaches the store late cannot
// drop a later hold; else any.
func (m *Mutex) storeUnlock(ctx context.Context, token uint64) error {
	if m.tel == nil {
		return m.unlockOn(ctx, token)
	}
	ctx, c := m.tel.startCall(ctx, opUnlock)
	err := m.unlockOn(ctx, token)
	c.end(ctx, storeResult(err), err)
	return err
}

// unlockOn is storeUnlock's call of the driver.
func (m *Mutex) unlockOn(ctx context.Context, token uint64) error {
	if token != 0 && m.s.holder != nil {
		return m.s.holder.UnlockHold(ctx, m.name, m.owner, token)
	}
	return m.s.d.Unlock(ctx, m.name, m.owner)
}

func (m *Mutex) storeExpire(ctx context.Context, ttl time.Duration) error {
	if m.tel == nil {
		return m.s.d.Expire(ctx, m.name, m.owner, ttl)
	}
	ctx, c := m.tel.startCall(ctx, opExpire)
	err := m.s.d.Expire(ctx, m.name, m.owner, ttl)
	c.end(ctx, storeResult(err), err)
	return err
}

func (m *Mutex) storeDequeue(ctx context.Context) error {
	if m.tel == nil {
		return m.s.dequeuer.Dequeue(ctx, m.name, m.owner)
	}
	ctx, c := m.tel.startCall(ctx, opDequeue)
	err := m.s.dequeuer.Dequeue(ctx, m.name, m.owner)
	c.end(ctx, storeResult(err), err)
	return err
}

// grantResult classifies a lock attempt: a refusal is not_acquired.
func grantResult(g driver.Grant, err error) string {
	if err == nil && !g.Acquired {
		return resultNotAcquired
	}
	return storeResult(err)
}

// storeCall is one store call being reported.
type storeCall struct {
	mt    *mutexTelemetry
	op    string
	start time.Time
	span  trace.Span // nil when not traced
}

func (mt *mutexTelemetry) startCall(ctx context.Context, op string) (context.Context, storeCall) {
	c := storeCall{mt: mt, op: op, start: time.Now()}
	if mt.tracer != nil && trace.SpanFromContext(ctx).IsRecording() {
		ctx, c.span = mt.tracer.Start(ctx, "distlock.store."+op, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(mt.with(attrOperation.String(op))...))
	}
	return ctx, c
}

// end reports the call's result res. A store's answer (a refusal, "not
// held") is not a failed call; an error that is neither is.
func (c storeCall) end(ctx context.Context, res string, err error) {
	if ins := c.mt.metrics; ins != nil {
		ins.store.Record(ctx, time.Since(c.start).Seconds(),
			metric.WithAttributes(c.mt.with(attrOperation.String(c.op), attrResult.String(res))...))
	}
	endSpan(c.span, res, err != nil && !errors.Is(err, ErrNotHeld), err)
}
