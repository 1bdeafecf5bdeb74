package locker_test

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// BenchmarkTryLockUnlock measures an uncontended TryLock and Unlock on the
// mem backend without telemetry, and with the SDK's meter and tracer
// providers behind it (a manual reader, and a span exporter that drops
// what it gets), to show what telemetry costs and that its absence costs
// nothing.
func BenchmarkTryLockUnlock(b *testing.B) {
	b.Run("telemetry=none", func(b *testing.B) {
		benchTryLockUnlock(b)
	})
	b.Run("telemetry=sdk", func(b *testing.B) {
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
		defer func() {
			_ = mp.Shutdown(context.Background())
			_ = tp.Shutdown(context.Background())
		}()
		tel, err := locker.NewTelemetry(locker.WithMeterProvider(mp), locker.WithTracerProvider(tp))
		if err != nil {
			b.Fatal(err)
		}
		benchTryLockUnlock(b, locker.WithTelemetry(tel))
	})
}

func benchTryLockUnlock(b *testing.B, opts ...locker.StoreOption) {
	ctx := context.Background()
	m, err := storetest.Of(b, memlocker.New(), opts...).Mutex("bench")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l, err := m.TryLock(ctx, locker.WithLease(locker.DefaultWatchdogLease))
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
