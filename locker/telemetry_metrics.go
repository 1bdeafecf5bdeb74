package locker

import (
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Attribute keys. Their values come from short fixed lists, so that the
// number of time series stays bounded; only distlock.lock.name, which a
// program turns on with WithLockNameAttribute, takes values from outside.
const (
	attrResult    = attribute.Key("distlock.result")
	attrOperation = attribute.Key("distlock.operation")
	attrLockName  = attribute.Key("distlock.lock.name")
)

// Values of distlock.result.
const (
	resultAcquired    = "acquired"
	resultNotAcquired = "not_acquired"
	resultUnavailable = "unavailable"
	resultInvalid     = "invalid"
	resultUnknown     = "unknown"
	resultOK          = "ok"
	resultNotHeld     = "not_held"
	resultLost        = "lost"
	resultReleased    = "released"
	resultClosed      = "closed"
	resultRenewed     = "renewed"
	resultFailed      = "failed"
)

// Values of distlock.operation: the store calls.
const (
	opTryLock     = "trylock"
	opUnlock      = "unlock"
	opExpire      = "expire"
	opExpireBatch = "expire_batch"
	opDequeue     = "dequeue"
)

// Bucket bounds, in seconds. Store calls take from a tenth of a millisecond
// (memory, local Redis) to the seconds of a timeout; waits and holds run
// from nothing to minutes.
var (
	storeBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
	waitBuckets  = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}
	holdBuckets  = []float64{0.001, 0.01, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600}
)

// instruments are a Telemetry's metrics, created once.
type instruments struct {
	acquisitions metric.Int64Counter
	wait         metric.Float64Histogram
	hold         metric.Float64Histogram
	leasesLost   metric.Int64Counter
	renewals     metric.Int64Counter
	batches      metric.Int64Counter
	store        metric.Float64Histogram
	waiters      metric.Int64UpDownCounter
	held         metric.Int64UpDownCounter
}

func newInstruments(m metric.Meter) (*instruments, error) {
	var ins instruments
	var errs []error
	note := func(err error) { errs = append(errs, err) }
	var err error
	ins.acquisitions, err = m.Int64Counter("distlock.acquisitions", metric.WithUnit("{acquisition}"),
		metric.WithDescription("Lock and TryLock calls, by distlock.result."))
	note(err)
	ins.wait, err = m.Float64Histogram("distlock.wait.duration", metric.WithUnit("s"),
		metric.WithDescription("How long Lock and TryLock calls took, by distlock.result."),
		metric.WithExplicitBucketBoundaries(waitBuckets...))
	note(err)
	ins.hold, err = m.Float64Histogram("distlock.hold.duration", metric.WithUnit("s"),
		metric.WithDescription("How long locks were held, from acquisition to Unlock (distlock.result released) or loss (lost)."),
		metric.WithExplicitBucketBoundaries(holdBuckets...))
	note(err)
	ins.leasesLost, err = m.Int64Counter("distlock.leases.lost", metric.WithUnit("{lease}"),
		metric.WithDescription("Leases lost before Unlock: run out, or found gone by a renewal."))
	note(err)
	ins.renewals, err = m.Int64Counter("distlock.renewals", metric.WithUnit("{renewal}"),
		metric.WithDescription("Watchdog renewals, by distlock.result: renewed, lost, failed (retried)."))
	note(err)
	ins.batches, err = m.Int64Counter("distlock.renewal.batches", metric.WithUnit("{batch}"),
		metric.WithDescription("Rounds of watchdog renewals sent together to one store."))
	note(err)
	ins.store, err = m.Float64Histogram("distlock.store.duration", metric.WithUnit("s"),
		metric.WithDescription("Latency of calls to the store, by distlock.operation and distlock.result."),
		metric.WithExplicitBucketBoundaries(storeBuckets...))
	note(err)
	ins.waiters, err = m.Int64UpDownCounter("distlock.waiters", metric.WithUnit("{waiter}"),
		metric.WithDescription("Calls waiting for a lock now: Lock, and TryLock with a wait."))
	note(err)
	ins.held, err = m.Int64UpDownCounter("distlock.locks.held", metric.WithUnit("{lock}"),
		metric.WithDescription("Holds of this process live now."))
	note(err)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("distlock: creating instruments: %w", err)
	}
	return &ins, nil
}

// acquisitionResult classifies the outcome of a Lock or TryLock call. A
// closed backend could not decide, as an unreachable one: unavailable.
func acquisitionResult(err error) string {
	switch {
	case err == nil:
		return resultAcquired
	case errors.Is(err, ErrNotAcquired):
		return resultNotAcquired
	case errors.Is(err, ErrUnavailable), errors.Is(err, ErrClosed):
		return resultUnavailable
	case errors.Is(err, ErrInvalid):
		return resultInvalid
	default:
		return resultUnknown
	}
}

// storeResults name the sentinels a store call can end with, in the order
// they are tested.
var storeResults = []struct {
	err  error
	name string
}{
	{ErrNotAcquired, resultNotAcquired},
	{ErrUnavailable, resultUnavailable},
	{ErrNotHeld, resultNotHeld},
	{ErrLost, resultLost},
	{ErrReleased, resultReleased},
	{ErrClosed, resultClosed},
	{ErrInvalid, resultInvalid},
}

// storeResult classifies the outcome of one store call: ok, a sentinel's
// name, or unknown.
func storeResult(err error) string {
	if err == nil {
		return resultOK
	}
	for _, r := range storeResults {
		if errors.Is(err, r.err) {
			return r.name
		}
	}
	return resultUnknown
}
