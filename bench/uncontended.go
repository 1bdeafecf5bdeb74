package main

import (
	"context"
	"fmt"
	"runtime"
	"time"
)

// uncontendedResult is one implementation's lock+unlock cost with nobody
// else asking for the lock.
type uncontendedResult struct {
	name   string
	lat    latencies
	allocs float64
}

// measureUncontended times ops lock+unlock cycles of one handle, after a
// warm-up, appending the durations to d, and returns the process's
// allocations during the timed cycles.
func measureUncontended(ctx context.Context, impl implementation, addrs []string, key string, ops int, d []time.Duration) ([]time.Duration, uint64, error) {
	h, err := impl.open(addrs, key)
	if err != nil {
		return d, 0, fmt.Errorf("%s: %w", impl.name, err)
	}
	defer h.close()
	cycle := func() error {
		release, err := h.acquire(ctx)
		if err != nil {
			return fmt.Errorf("%s: lock: %w", impl.name, err)
		}
		if err := release(ctx); err != nil {
			return fmt.Errorf("%s: unlock: %w", impl.name, err)
		}
		return nil
	}
	for range max(ops/10, 100) {
		if err := cycle(); err != nil {
			return d, 0, err
		}
	}
	d = append(d, make([]time.Duration, ops)...)
	out := d[len(d)-ops:]
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range out {
		start := time.Now()
		if err := cycle(); err != nil {
			return d, 0, err
		}
		out[i] = time.Since(start)
	}
	runtime.ReadMemStats(&after)
	return d, after.Mallocs - before.Mallocs, nil
}

// runUncontended measures each implementation, each on a key of its own,
// in rounds that interleave the implementations, so that a burst of load
// on the shared machine does not land on one of them only; the samples of
// all rounds are pooled.
func runUncontended(ctx context.Context, impls []implementation, addrs []string, ops, rounds int, tag string) ([]uncontendedResult, error) {
	samples := make([][]time.Duration, len(impls))
	mallocs := make([]uint64, len(impls))
	per := max(ops/rounds, 1)
	for r := range rounds {
		for i, impl := range impls {
			key := fmt.Sprintf("bench/%s/%s/%d", tag, impl.name, r)
			var m uint64
			var err error
			samples[i], m, err = measureUncontended(ctx, impl, addrs, key, per, samples[i])
			if err != nil {
				return nil, err
			}
			mallocs[i] += m
		}
	}
	out := make([]uncontendedResult, len(impls))
	for i, impl := range impls {
		n := len(samples[i])
		out[i] = uncontendedResult{name: impl.name, lat: summarize(samples[i]), allocs: float64(mallocs[i]) / float64(n)}
	}
	return out, nil
}
