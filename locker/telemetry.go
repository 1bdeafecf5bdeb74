package locker

import (
	"log/slog"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Telemetry is what Mutexes report about their locks: OpenTelemetry metrics
// and spans, and log records through log/slog. Make one with NewTelemetry,
// share it among Mutexes with WithTelemetry; it is safe for concurrent use.
//
// Only the OpenTelemetry APIs are used: the program chooses and configures
// the SDK and its exporters. A Telemetry reports only what it was given a
// provider or a logger for; without any it reports nothing, and a Mutex
// using it costs what a Mutex without it costs.
//
// See the package documentation's Observability section for the metrics,
// spans and log records.
type Telemetry struct {
	metrics  *instruments // nil: no metrics
	tracer   trace.Tracer // nil: no spans
	logger   *slog.Logger // nil: no logs
	lockName bool
}

// TelemetryOption configures a Telemetry.
type TelemetryOption func(*telemetryConfig)

type telemetryConfig struct {
	meters   metric.MeterProvider
	tracers  trace.TracerProvider
	logger   *slog.Logger
	lockName bool
}

// WithMeterProvider reports metrics through p's meter named after this
// package. Without it (or with nil) no metric is recorded.
func WithMeterProvider(p metric.MeterProvider) TelemetryOption {
	return func(c *telemetryConfig) { c.meters = p }
}

// WithTracerProvider reports spans through p's tracer named after this
// package. Without it (or with nil) no span is started.
func WithTracerProvider(p trace.TracerProvider) TelemetryOption {
	return func(c *telemetryConfig) { c.tracers = p }
}

// WithLogger logs lost leases, failing renewals, waits that ride through
// store failures and cleanups left to the background to l. Without it (or
// with nil) nothing is logged.
func WithLogger(l *slog.Logger) TelemetryOption {
	return func(c *telemetryConfig) { c.logger = l }
}

// WithLockNameAttribute adds the lock's name, cut to a short prefix, to
// every metric and span as the attribute distlock.lock.name. It is off by
// default because each lock name makes another time series: turn it on
// only when a program uses few, fixed names.
func WithLockNameAttribute() TelemetryOption {
	return func(c *telemetryConfig) { c.lockName = true }
}

// instrumentationScope names the meter and tracer.
const instrumentationScope = "github.com/distlock/distlock/locker"

// NewTelemetry returns a Telemetry reporting through the providers and
// logger given. Instruments are created here, once; an error creating one
// is returned.
func NewTelemetry(opts ...TelemetryOption) (*Telemetry, error) {
	var c telemetryConfig
	for _, opt := range opts {
		opt(&c)
	}
	t := &Telemetry{logger: c.logger, lockName: c.lockName}
	if c.meters != nil {
		ins, err := newInstruments(c.meters.Meter(instrumentationScope))
		if err != nil {
			return nil, err
		}
		t.metrics = ins
	}
	if c.tracers != nil {
		t.tracer = c.tracers.Tracer(instrumentationScope)
	}
	return t, nil
}

// reports reports whether t has anywhere to report to.
func (t *Telemetry) reports() bool {
	return t != nil && (t.metrics != nil || t.tracer != nil || t.logger != nil)
}

// mutexTelemetry is a Telemetry as one Mutex uses it. A nil
// *mutexTelemetry reports nothing: every hook checks for it first, so a
// Mutex without telemetry pays one comparison per hook.
type mutexTelemetry struct {
	*Telemetry
	// name is the lock's name as logs quote it.
	name string
	// attrs are the attributes every metric and span of the Mutex has.
	attrs []attribute.KeyValue
	hold  holdTelemetry
}

func newMutexTelemetry(t *Telemetry, name string) *mutexTelemetry {
	mt := &mutexTelemetry{Telemetry: t, name: shortName(name)}
	if t.lockName {
		mt.attrs = []attribute.KeyValue{attrLockName.String(mt.name)}
	}
	return mt
}

// with returns the Mutex's attributes and kvs.
func (mt *mutexTelemetry) with(kvs ...attribute.KeyValue) []attribute.KeyValue {
	return append(mt.attrs[:len(mt.attrs):len(mt.attrs)], kvs...)
}
