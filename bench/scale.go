package main

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/locker"
)

// scaleSpec says how many locks to hold, for how long, with what watchdog
// lease.
type scaleSpec struct {
	locks    int
	hold     time.Duration
	lease    time.Duration
	parallel int // goroutines taking and releasing the locks
}

// scaleResult is what holding many watchdog-renewed locks costs.
type scaleResult struct {
	spec           scaleSpec
	acquire        time.Duration // to take every lock
	release        time.Duration // to release every lock
	goroutines     int           // most seen while holding
	baseGoroutines int           // before taking the locks
	heapPerLock    float64       // bytes, after holding, live heap
	roundTrips     float64       // client round trips per second while holding
	renewals       float64       // renewals per second while holding
	batchP99       time.Duration // duration of a renewal pipeline
	lost           int           // leases whose Done closed while holding
	late           int           // leases seen with less than half their lease left
	minRemaining   time.Duration // least remaining lease seen
	heldOnServer   int           // lock keys on the server at the end
	clientCPU      float64       // cores used by this process while holding
	serverCPU      float64       // cores used by redis-server while holding
	serverMemBytes int64         // redis used_memory at the end, per lock
}

// missed counts renewals that did not happen in time: lost leases, late
// ones and locks the server no longer had.
func (r scaleResult) missed() int {
	return r.lost + r.late + (r.spec.locks - r.heldOnServer)
}

// runScale takes spec.locks locks with the watchdog on one fresh Redis,
// holds them for spec.hold, and releases them.
func runScale(ctx context.Context, addr string, spec scaleSpec) (scaleResult, error) {
	res := scaleResult{spec: spec}
	hook := &roundTripCounter{}
	client := newRedisClient(addr)
	client.AddHook(hook)
	b, err := redislocker.New(client, redislocker.WithOwnedClient())
	if err != nil {
		return res, err
	}
	// One Store for every lock, as one program has: its watchdog renews
	// them all in batches.
	store := locker.NewStore(b)
	defer store.Close()
	admin := newRedisClient(addr)
	defer admin.Close()
	if err := client.Ping(ctx).Err(); err != nil {
		return res, err
	}
	baseHeap := heapInUse()
	res.baseGoroutines = runtime.NumGoroutine()

	leases := make([]*locker.Lease, spec.locks)
	start := time.Now()
	err = parallel(spec.parallel, spec.locks, func(i int) error {
		m, err := store.Mutex("scale/"+strconv.Itoa(i), locker.WithWatchdogLease(spec.lease))
		if err != nil {
			return err
		}
		leases[i], err = m.Lock(ctx)
		return err
	})
	res.acquire = time.Since(start)
	if err != nil {
		return res, fmt.Errorf("taking the locks: %w", err)
	}

	hook.reset()
	cpu0, srv0 := processCPU(), serverCPU(ctx, admin)
	holdStart := time.Now()
	late := make([]bool, spec.locks)
	res.minRemaining = spec.lease
	for time.Since(holdStart) < spec.hold {
		time.Sleep(min(500*time.Millisecond, spec.hold-time.Since(holdStart)))
		res.goroutines = max(res.goroutines, runtime.NumGoroutine())
		now := time.Now()
		for i, l := range leases {
			rem := l.Deadline().Sub(now)
			res.minRemaining = min(res.minRemaining, rem)
			if rem < spec.lease/2 {
				late[i] = true
			}
		}
	}
	held := time.Since(holdStart)
	res.clientCPU = (processCPU() - cpu0).Seconds() / held.Seconds()
	res.serverCPU = (serverCPU(ctx, admin) - srv0).Seconds() / held.Seconds()
	res.roundTrips = float64(hook.singles.Load()+hook.pipelines.Load()) / held.Seconds()
	res.renewals = float64(hook.renewals.Load()) / held.Seconds()
	res.batchP99 = summarize(hook.reset()).p99
	for i, l := range leases {
		if l.Err() != nil {
			res.lost++
		} else if late[i] {
			res.late++
		}
	}
	res.heapPerLock = float64(int64(heapInUse())-int64(baseHeap)) / float64(spec.locks)
	if res.heldOnServer, err = countLockKeys(ctx, admin); err != nil {
		return res, err
	}
	if mem, err := admin.Info(ctx, "memory").Result(); err == nil {
		res.serverMemBytes = infoInt(mem, "used_memory") / int64(spec.locks)
	}

	start = time.Now()
	err = parallel(spec.parallel, spec.locks, func(i int) error { return leases[i].Unlock(ctx) })
	res.release = time.Since(start)
	if err != nil {
		return res, fmt.Errorf("releasing the locks: %w", err)
	}
	return res, nil
}

// parallel runs f(0..n-1) on workers goroutines and returns the first
// error.
func parallel(workers, n int, f func(i int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n))
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// countLockKeys counts the lock hashes of the scale run on the server.
func countLockKeys(ctx context.Context, c *redis.Client) (int, error) {
	n := 0
	iter := c.Scan(ctx, 0, redislocker.DefaultPrefix+":{scale/*}", 10000).Iterator()
	for iter.Next(ctx) {
		n++
	}
	return n, iter.Err()
}

// processCPU returns the CPU time (user and system) this process used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serverCPU returns the CPU time redis-server reports having used.
func serverCPU(ctx context.Context, c *redis.Client) time.Duration {
	info, err := c.Info(ctx, "cpu").Result()
	if err != nil {
		return 0
	}
	secs := infoFloat(info, "used_cpu_user") + infoFloat(info, "used_cpu_sys")
	return time.Duration(secs * float64(time.Second))
}

func infoField(info, field string) string {
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			return v
		}
	}
	return ""
}

func infoFloat(info, field string) float64 {
	v, _ := strconv.ParseFloat(infoField(info, field), 64)
	return v
}

func infoInt(info, field string) int64 {
	v, _ := strconv.ParseInt(infoField(info, field), 10, 64)
	return v
}
