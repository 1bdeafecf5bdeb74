// Command observability shows what distlock reports through OpenTelemetry
// and log/slog, with no server anywhere: it takes a lock on the in-memory
// backend, is refused it from a second Mutex, lets a lease run out, and
// prints the metrics, spans and log records that produced.
//
//	go run ./examples/observability
//
// A real program passes its own providers (an OTLP exporter, Prometheus)
// to locker.NewTelemetry; this one reads them back from the SDK's
// in-memory reader and exporter, and prints only what is stable from run
// to run (counts, not durations).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/locker"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}

// run plays the demo, printing to w.
func run(ctx context.Context, w io.Writer) error {
	reader := sdkmetric.NewManualReader()
	spans := tracetest.NewInMemoryExporter()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer func() {
		_ = mp.Shutdown(ctx)
		_ = tp.Shutdown(ctx)
	}()
	fmt.Fprintln(w, "== log ==")
	tel, err := locker.NewTelemetry(
		locker.WithMeterProvider(mp),
		locker.WithTracerProvider(tp),
		locker.WithLogger(slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{ReplaceAttr: stable}))),
		locker.WithLockNameAttribute(), // one fixed name: bounded
	)
	if err != nil {
		return err
	}
	if err := play(ctx, tel); err != nil {
		return err
	}
	fmt.Fprintln(w, "== metrics ==")
	if err := printMetrics(ctx, w, reader); err != nil {
		return err
	}
	fmt.Fprintln(w, "== spans ==")
	printSpans(w, spans.GetSpans())
	return nil
}

// play takes and contends a lock, then loses one.
func play(ctx context.Context, tel *locker.Telemetry) error {
	// Telemetry is the Store's: every Mutex from it reports.
	store := locker.NewStore(memlocker.NewStore().Client(), locker.WithTelemetry(tel))
	defer store.Close()
	first, err := store.Mutex("nightly-report")
	if err != nil {
		return err
	}
	second, err := store.Mutex("nightly-report")
	if err != nil {
		return err
	}

	lease, err := first.TryLock(ctx)
	if err != nil {
		return err
	}
	if _, err := second.TryLock(ctx); !errors.Is(err, locker.ErrNotAcquired) {
		return fmt.Errorf("the second TryLock: %v, want ErrNotAcquired", err)
	}
	if err := lease.Unlock(ctx); err != nil {
		return err
	}

	// A fixed lease that runs out before the work is done.
	lease, err = second.TryLock(ctx, locker.WithLease(locker.MinLease*5))
	if err != nil {
		return err
	}
	<-lease.Done()
	if err := lease.Unlock(ctx); !errors.Is(err, locker.ErrLost) {
		return fmt.Errorf("unlock after the lease ran out: %v, want ErrLost", err)
	}
	return nil
}

// stable drops what changes from run to run from log records.
func stable(_ []string, a slog.Attr) slog.Attr {
	switch a.Key {
	case slog.TimeKey, "held":
		return slog.Attr{}
	}
	return a
}
