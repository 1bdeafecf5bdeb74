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
	// clientCPU is the CPU this process used during the timed cycles.
	clientCPU time.Duration

	// On Redis: the servers' work during the timed cycles, and during the
	// split cycles (untimed, with a reading of the servers between lock
	// and unlock) the work of each step. metered is false elsewhere.
	metered            bool
	work               serverWork
	lockWork, unlWork  serverWork
	cycles, splitCount int
}

// perCycle returns w over n cycles.
func perCycle(w serverWork, n int) (scripts float64, scriptTime, cpu time.Duration) {
	if n == 0 {
		return 0, 0, 0
	}
	return float64(w.scripts) / float64(n), w.scriptTime / time.Duration(n), w.cpu / time.Duration(n)
}

// splitCycles is how many untimed cycles of each measurement read the
// servers between lock and unlock, to tell the two steps' script time
// apart. Each costs three INFO round trips, so they are kept out of the
// timed cycles.
const splitCycles = 50

// measurement is what measureUncontended adds up over its rounds.
type measurement struct {
	d                 []time.Duration
	mallocs           uint64
	clientCPU         time.Duration
	work              serverWork
	lockWork, unlWork serverWork
	splitCount        int
}

// measureUncontended times ops lock+unlock cycles of one handle, after a
// warm-up, appending the durations to acc.d, and adds the process's
// allocations during the timed cycles to acc. With a meter it also adds
// the servers' work during the timed cycles, and that of each step of
// splitCycles more cycles.
func measureUncontended(ctx context.Context, impl implementation, addrs []string, key string, ops int, meter *serverMeter, acc *measurement) error {
	h, err := impl.open(addrs, key)
	if err != nil {
		return fmt.Errorf("%s: %w", impl.name, err)
	}
	defer h.close()
	lock := func() (func(context.Context) error, error) {
		release, err := h.acquire(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: lock: %w", impl.name, err)
		}
		return release, nil
	}
	unlock := func(release func(context.Context) error) error {
		if err := release(ctx); err != nil {
			return fmt.Errorf("%s: unlock: %w", impl.name, err)
		}
		return nil
	}
	cycle := func() error {
		release, err := lock()
		if err != nil {
			return err
		}
		return unlock(release)
	}
	for range max(ops/10, 100) {
		if err := cycle(); err != nil {
			return err
		}
	}
	var w0 serverWork
	if meter != nil {
		if w0, err = meter.read(ctx); err != nil {
			return err
		}
	}
	acc.d = append(acc.d, make([]time.Duration, ops)...)
	out := acc.d[len(acc.d)-ops:]
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := processCPU()
	for i := range out {
		start := time.Now()
		if err := cycle(); err != nil {
			return err
		}
		out[i] = time.Since(start)
	}
	acc.clientCPU += processCPU() - cpu0
	runtime.ReadMemStats(&after)
	acc.mallocs += after.Mallocs - before.Mallocs
	if meter == nil {
		return nil
	}
	w1, err := meter.read(ctx)
	if err != nil {
		return err
	}
	acc.work = acc.work.add(w1.sub(w0))
	for range splitCycles {
		release, err := lock()
		if err != nil {
			return err
		}
		w2, err := meter.read(ctx)
		if err != nil {
			return err
		}
		if err := unlock(release); err != nil {
			return err
		}
		w3, err := meter.read(ctx)
		if err != nil {
			return err
		}
		acc.lockWork = acc.lockWork.add(w2.sub(w1))
		acc.unlWork = acc.unlWork.add(w3.sub(w2))
		w1 = w3
	}
	acc.splitCount += splitCycles
	return nil
}

// runUncontended measures each implementation, each on a key of its own,
// in rounds that interleave the implementations, so that a burst of load
// on the shared machine does not land on one of them only; the samples of
// all rounds are pooled. When the servers are Redis (metered), it also
// reads their work.
func runUncontended(ctx context.Context, impls []implementation, addrs []string, ops, rounds int, tag string, metered bool) ([]uncontendedResult, error) {
	var meter *serverMeter
	if metered {
		meter = newServerMeter(addrs)
		defer meter.close()
	}
	acc := make([]measurement, len(impls))
	per := max(ops/rounds, 1)
	for r := range rounds {
		for i, impl := range impls {
			key := fmt.Sprintf("bench/%s/%s/%d", tag, impl.name, r)
			if err := measureUncontended(ctx, impl, addrs, key, per, meter, &acc[i]); err != nil {
				return nil, err
			}
		}
	}
	out := make([]uncontendedResult, len(impls))
	for i, impl := range impls {
		a := &acc[i]
		n := len(a.d)
		out[i] = uncontendedResult{
			name: impl.name, lat: summarize(a.d), allocs: float64(a.mallocs) / float64(n), clientCPU: a.clientCPU,
			metered: metered, work: a.work, lockWork: a.lockWork, unlWork: a.unlWork,
			cycles: n, splitCount: a.splitCount,
		}
	}
	return out, nil
}
