package locker_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/distlock/distlock/locker"
)

// rig is a Telemetry reporting to the SDK's in-memory reader and exporter
// and to a log buffer, for tests to read back.
type rig struct {
	tel    *locker.Telemetry
	reader *sdkmetric.ManualReader
	spans  *tracetest.InMemoryExporter
	logs   *syncBuffer
}

func newRig(t *testing.T, opts ...locker.TelemetryOption) *rig {
	t.Helper()
	r := &rig{reader: sdkmetric.NewManualReader(), spans: tracetest.NewInMemoryExporter(), logs: &syncBuffer{}}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(r.spans))
	t.Cleanup(func() {
		require.NoError(t, mp.Shutdown(context.Background()))
		require.NoError(t, tp.Shutdown(context.Background()))
	})
	logger := slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	tel, err := locker.NewTelemetry(append([]locker.TelemetryOption{
		locker.WithMeterProvider(mp), locker.WithTracerProvider(tp), locker.WithLogger(logger),
	}, opts...)...)
	require.NoError(t, err)
	r.tel = tel
	return r
}

// points returns the data points of the metric name whose attributes
// include want, as (attributes, value) with value a sum's value or a
// histogram's count.
func (r *rig) points(t *testing.T, name string, want ...attribute.KeyValue) map[attribute.Distinct]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.reader.Collect(context.Background(), &rm))
	out := make(map[attribute.Distinct]int64)
	match := func(s attribute.Set) bool {
		for _, kv := range want {
			if v, ok := s.Value(kv.Key); !ok || v != kv.Value {
				return false
			}
		}
		return true
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					if match(p.Attributes) {
						out[p.Attributes.Equivalent()] = p.Value
					}
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					if match(p.Attributes) {
						out[p.Attributes.Equivalent()] = int64(p.Count)
					}
				}
			default:
				t.Fatalf("metric %s has unexpected data %T", name, m.Data)
			}
		}
	}
	return out
}

// value sums the points of name that have the attributes want.
func (r *rig) value(t *testing.T, name string, want ...attribute.KeyValue) int64 {
	t.Helper()
	var n int64
	for _, v := range r.points(t, name, want...) {
		n += v
	}
	return n
}

// eventually waits up to 5s for the value of name with want to be n.
func (r *rig) eventually(t *testing.T, n int64, name string, want ...attribute.KeyValue) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := r.value(t, name, want...)
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s%v = %d, want %d", name, want, got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// span returns the ended spans named name.
func (r *rig) span(name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range r.spans.GetSpans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func attrOf(s tracetest.SpanStub, key string) string {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}

func result(v string) attribute.KeyValue    { return attribute.String("distlock.result", v) }
func operation(v string) attribute.KeyValue { return attribute.String("distlock.operation", v) }

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
