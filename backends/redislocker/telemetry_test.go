package redislocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// TestTelemetryOnRedis follows locks on a real Redis through the SDK's
// in-memory reader and exporter: an acquisition, a refusal, a lease found
// gone by a batched renewal, and a store cut off.
func TestTelemetryOnRedis(t *testing.T) {
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	spans := tracetest.NewInMemoryExporter()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer func() {
		require.NoError(t, mp.Shutdown(ctx))
		require.NoError(t, tp.Shutdown(ctx))
	}()
	tel, err := locker.NewTelemetry(locker.WithMeterProvider(mp), locker.WithTracerProvider(tp))
	require.NoError(t, err)
	count := func(name string, kvs ...attribute.KeyValue) int64 {
		var rm metricdata.ResourceMetrics
		require.NoError(t, reader.Collect(ctx, &rm))
		var n int64
		add := func(s attribute.Set, v int64) {
			for _, kv := range kvs {
				if got, ok := s.Value(kv.Key); !ok || got != kv.Value {
					return
				}
			}
			n += v
		}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name != name {
					continue
				}
				switch d := m.Data.(type) {
				case metricdata.Sum[int64]:
					for _, p := range d.DataPoints {
						add(p.Attributes, p.Value)
					}
				case metricdata.Histogram[float64]:
					for _, p := range d.DataPoints {
						add(p.Attributes, int64(p.Count))
					}
				}
			}
		}
		return n
	}
	result := func(v string) attribute.KeyValue { return attribute.String("distlock.result", v) }
	op := func(v string) attribute.KeyValue { return attribute.String("distlock.operation", v) }

	srv := redistest.Start(t)
	b, proxy := proxiedBackend(t, srv)
	store := storetest.Of(t, b, locker.WithTelemetry(tel))
	holder, err := store.Mutex("telemetry", locker.WithWatchdogLease(300*time.Millisecond))
	require.NoError(t, err)
	other, err := store.Mutex("telemetry")
	require.NoError(t, err)

	l, err := holder.Lock(ctx)
	require.NoError(t, err)
	_, err = other.TryLock(ctx)
	require.ErrorIs(t, err, locker.ErrNotAcquired)
	assert.EqualValues(t, 1, count("distlock.acquisitions", result("acquired")))
	assert.EqualValues(t, 1, count("distlock.acquisitions", result("not_acquired")))
	assert.EqualValues(t, 1, count("distlock.store.duration", op("trylock"), result("not_acquired")))
	assert.EqualValues(t, 1, count("distlock.locks.held"))

	_, err = other.ForceUnlock(ctx)
	require.NoError(t, err)
	select {
	case <-l.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the renewal did not find the lock gone")
	}
	require.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)
	assert.EqualValues(t, 1, count("distlock.leases.lost"))
	assert.EqualValues(t, 1, count("distlock.renewals", result("lost")))
	assert.GreaterOrEqual(t, count("distlock.store.duration", op("expire_batch")), int64(1), "redislocker renews in batches")
	assert.EqualValues(t, 0, count("distlock.locks.held"))

	proxy.Cut()
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	_, err = other.TryLock(cctx)
	cancel()
	require.Error(t, err)
	failed := count("distlock.acquisitions", result("unavailable")) + count("distlock.acquisitions", result("unknown"))
	assert.EqualValues(t, 1, failed, "a store cut off: %v", err)

	var lost, calls int
	for _, s := range spans.GetSpans() {
		switch s.Name {
		case "distlock.lease.lost":
			lost++
			assert.Equal(t, codes.Error, s.Status.Code)
		case "distlock.lock", "distlock.trylock":
			calls++
		}
	}
	assert.Equal(t, 1, lost)
	assert.Equal(t, 3, calls)
}
