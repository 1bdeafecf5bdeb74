package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// contentionSpec says what one contention run does: goroutines, each with a
// handle (and so clients) of its own, take turns on one key, each holding
// the lock for hold and asking again at once after releasing it. The key is
// on the one server of addrs, or on a RedLock of all of them.
type contentionSpec struct {
	impl       string
	addrs      []string
	key        string
	goroutines int
	hold       time.Duration
	duration   time.Duration
}

// workerReport is what the goroutines of one process measured. It travels
// from a worker process to the parent as JSON.
type workerReport struct {
	Counts    []int   // acquisitions per goroutine
	Waits     []int64 // ns from asking to holding, per acquisition
	HoldNanos int64   // total time the lock was held
	Overlaps  int     // acquisitions that found another goroutine holding
	// Reacquired counts acquisitions by the goroutine that held the lock
	// just before, as far as this process saw.
	Reacquired int
	CPUNanos   int64 // CPU time this process used while contending
	ErrorCount int
	Errors     []string // the first few
}

// maxErrors bounds the errors a report keeps.
const maxErrors = 5

// implByName finds a single-Redis or a RedLock implementation. The two
// lists share redsync, whose handle is the same for one server and for
// several.
func implByName(name string) (implementation, error) {
	for _, impl := range slices.Concat(redisImpls, []implementation{watchdogImpl}, redlockImpls) {
		if impl.name == name {
			return impl, nil
		}
	}
	return implementation{}, fmt.Errorf("unknown implementation %q", name)
}

// prepared is a set of opened, connected handles waiting for the start.
type prepared struct {
	spec    contentionSpec
	handles []handle
}

// prepare opens and warms one handle per goroutine.
func prepare(ctx context.Context, spec contentionSpec) (*prepared, error) {
	impl, err := implByName(spec.impl)
	if err != nil {
		return nil, err
	}
	p := &prepared{spec: spec}
	for range spec.goroutines {
		h, err := impl.open(spec.addrs, spec.key)
		if err != nil {
			p.close()
			return nil, err
		}
		p.handles = append(p.handles, h)
		if err := h.warm(ctx); err != nil {
			p.close()
			return nil, fmt.Errorf("%s: %w", spec.impl, err)
		}
	}
	return p, nil
}

func (p *prepared) close() {
	for _, h := range p.handles {
		h.close()
	}
}

// run waits until start, then lets the goroutines contend until
// start+duration. Acquisitions completed after the end are released and
// not counted.
func (p *prepared) run(start time.Time) workerReport {
	end := start.Add(p.spec.duration)
	ctx, cancel := context.WithDeadline(context.Background(), end)
	defer cancel()
	rep := workerReport{Counts: make([]int, len(p.handles))}
	var (
		mu         sync.Mutex
		inside     atomic.Int32
		lastHolder atomic.Int32 // goroutine index + 1
		wg         sync.WaitGroup
	)
	time.Sleep(time.Until(start))
	cpu0 := processCPU()
	for g, h := range p.handles {
		wg.Go(func() {
			var waits []int64
			var held time.Duration
			var errs []string
			overlaps, again, nerr := 0, 0, 0
			for ctx.Err() == nil {
				asked := time.Now()
				release, err := h.acquire(ctx)
				if err != nil {
					if ctx.Err() == nil {
						nerr++
						if len(errs) < maxErrors {
							errs = append(errs, err.Error())
						}
						time.Sleep(time.Millisecond)
					}
					continue
				}
				got := time.Now()
				if inside.Add(1) != 1 {
					overlaps++
				}
				if got.Before(end) {
					if lastHolder.Swap(int32(g+1)) == int32(g+1) {
						again++
					}
					sleepHold(p.spec.hold)
				}
				inside.Add(-1)
				heldFor := time.Since(got)
				rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
				if err := release(rctx); err != nil {
					nerr++
					if len(errs) < maxErrors {
						errs = append(errs, "unlock: "+err.Error())
					}
				}
				rcancel()
				if got.Before(end) {
					rep.Counts[g]++ // only this goroutine writes its slot
					waits = append(waits, int64(got.Sub(asked)))
					held += heldFor
				}
			}
			mu.Lock()
			rep.Waits = append(rep.Waits, waits...)
			rep.HoldNanos += int64(held)
			rep.Overlaps += overlaps
			rep.Reacquired += again
			rep.ErrorCount += nerr
			rep.Errors = append(rep.Errors, errs...)
			mu.Unlock()
		})
	}
	wg.Wait()
	rep.CPUNanos = int64(processCPU() - cpu0)
	return rep
}

// merge adds b's measurements to a.
func (a *workerReport) merge(b workerReport) {
	a.Counts = append(a.Counts, b.Counts...)
	a.Waits = append(a.Waits, b.Waits...)
	a.HoldNanos += b.HoldNanos
	a.Overlaps += b.Overlaps
	a.Reacquired += b.Reacquired
	a.CPUNanos += b.CPUNanos
	a.ErrorCount += b.ErrorCount
	a.Errors = append(a.Errors, b.Errors...)
}

// contentionResult summarises one contention run.
type contentionResult struct {
	name      string
	procs     int
	total     int
	perSecond float64
	wait      latencies
	meanHold  time.Duration
	fairness  float64
	overlaps  int
	nerrors   int
	// reacquired is the share of acquisitions made by the goroutine that
	// had just released the lock (measured in one process only).
	reacquired float64
	clientCPU  float64 // cores used by the contending processes
	serverCPU  float64 // cores used by redis-server
	errors     []string
}

func summarizeContention(name string, procs int, duration time.Duration, rep workerReport) contentionResult {
	r := contentionResult{name: name, procs: procs, overlaps: rep.Overlaps, nerrors: rep.ErrorCount, errors: rep.Errors}
	for _, c := range rep.Counts {
		r.total += c
	}
	r.perSecond = float64(r.total) / duration.Seconds()
	waits := make([]time.Duration, len(rep.Waits))
	for i, w := range rep.Waits {
		waits[i] = time.Duration(w)
	}
	r.wait = summarize(waits)
	if r.total > 0 {
		r.meanHold = time.Duration(rep.HoldNanos / int64(r.total))
	}
	r.fairness = fairness(rep.Counts)
	r.clientCPU = time.Duration(rep.CPUNanos).Seconds() / duration.Seconds()
	if procs == 1 && r.total > 0 {
		r.reacquired = float64(rep.Reacquired) / float64(r.total)
	}
	return r
}

// runContention runs spec in this process (procs 1), or split between this
// process and a worker process (procs 2).
func runContention(ctx context.Context, spec contentionSpec, procs int) (contentionResult, error) {
	if procs < 1 || procs > 2 {
		return contentionResult{}, errors.New("procs must be 1 or 2")
	}
	local := spec
	var child *workerProcess
	if procs == 2 {
		local.goroutines = spec.goroutines / 2
		remote := spec
		remote.goroutines = spec.goroutines - local.goroutines
		var err error
		if child, err = startWorker(remote); err != nil {
			return contentionResult{}, err
		}
		defer child.kill()
	}
	p, err := prepare(ctx, local)
	if err != nil {
		return contentionResult{}, err
	}
	defer p.close()
	if child != nil {
		if err := child.waitReady(); err != nil {
			return contentionResult{}, err
		}
	}
	meter := newServerMeter(spec.addrs)
	defer meter.close()
	start := time.Now().Add(200 * time.Millisecond)
	if child != nil {
		if err := child.start(start); err != nil {
			return contentionResult{}, err
		}
	}
	t0 := time.Now()
	srv0, err := meter.read(ctx)
	if err != nil {
		return contentionResult{}, err
	}
	rep := p.run(start)
	srv1, err := meter.read(ctx)
	if err != nil {
		return contentionResult{}, err
	}
	srvCPU, wall := srv1.cpu-srv0.cpu, time.Since(t0)
	if child != nil {
		crep, err := child.report()
		if err != nil {
			return contentionResult{}, err
		}
		rep.merge(crep)
	}
	res := summarizeContention(spec.impl, procs, spec.duration, rep)
	res.serverCPU = srvCPU.Seconds() / wall.Seconds()
	return res, nil
}
