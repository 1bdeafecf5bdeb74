package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"
)

// measure starts the servers the selected sections need, runs the
// sections, and records their results in r.
func measure(ctx context.Context, s settings, sections map[string]bool, r *report) error {
	r.settings = s
	servers := 1
	if sections["redlock"] || sections["redlock-contention"] {
		servers = 5
	}
	var addrs []string
	for range servers {
		srv, err := startRedis(ctx)
		if err != nil {
			return err
		}
		defer srv.stop()
		addrs = append(addrs, srv.addr)
	}
	c := newRedisClient(addrs[0])
	info, err := c.Info(ctx, "server").Result()
	_ = c.Close()
	if err != nil {
		return err
	}
	r.redisVersion = infoField(info, "redis_version")
	if r.rtt, err = pingRTT(ctx, addrs[0], 5000, 0); err != nil {
		return err
	}
	if r.idleRTT, err = pingRTT(ctx, addrs[0], 1000, s.hold); err != nil {
		return err
	}
	progress("PING round trip p50 %v, after an idle %v %v", dur(r.rtt.p50), s.hold, dur(r.idleRTT.p50))

	if sections["uncontended"] {
		progress("1. uncontended lock+unlock on 1 Redis, %d cycles each", s.ops)
		impls := append(slices.Clone(redisImpls), watchdogImpl)
		if r.uncontended, err = runUncontended(ctx, impls, addrs[:1], s.ops, s.rounds, "single", true); err != nil {
			return err
		}
	}
	if sections["instructions"] {
		progress("1. server instructions per uncontended cycle (callgrind), %d cycles each", s.instrOps)
		r.instructions, err = runInstructions(ctx, instructionImpls(), s.instrOps)
		if errors.Is(err, errNoCallgrind) {
			r.instructionsSkipped = err.Error()
			progress("skipped: %v", err)
		} else if err != nil {
			return err
		}
	}
	if sections["redlock"] {
		progress("2. uncontended RedLock over 5 Redis, %d cycles each", s.redlockOps)
		if r.redlock, err = runUncontended(ctx, redlockImpls, addrs, s.redlockOps, s.rounds, "redlock", true); err != nil {
			return err
		}
	}
	if sections["contention"] {
		for _, procs := range s.procs {
			for _, impl := range redisImpls {
				progress("3. contention: %s, %d goroutines in %d process(es), hold %v, %v", impl.name, s.goroutines, procs, s.hold, s.contention)
				spec := contentionSpec{
					impl: impl.name, addrs: addrs[:1], key: fmt.Sprintf("bench/contention/%s/%d", impl.name, procs),
					goroutines: s.goroutines, hold: s.hold, duration: s.contention,
				}
				res, err := runContention(ctx, spec, procs)
				if err != nil {
					return fmt.Errorf("contention %s: %w", impl.name, err)
				}
				r.contention = append(r.contention, res)
			}
		}
	}
	if sections["redlock-contention"] {
		if r.quorumMsg, err = quorumMessageRTT(ctx, addrs, 1000, s.hold); err != nil {
			return err
		}
		progress("a release to 5 Redis heard from 3 by a waiter, after an idle %v: p50 %v", s.hold, dur(r.quorumMsg.p50))
		for _, impl := range redlockImpls {
			progress("8. contention on a RedLock of 5: %s, %d goroutines, hold %v, %v", impl.name, s.goroutines, s.hold, s.contention)
			spec := contentionSpec{
				impl: impl.name, addrs: addrs, key: "bench/redlock-contention/" + impl.name,
				goroutines: s.goroutines, hold: s.hold, duration: s.contention,
			}
			res, err := runContention(ctx, spec, 1)
			if err != nil {
				return fmt.Errorf("RedLock contention %s: %w", impl.name, err)
			}
			r.redlockContention = append(r.redlockContention, res)
		}
	}
	if sections["readmostly"] {
		for _, rw := range []bool{false, true} {
			progress("7. read-mostly: %d readers, %d writer(s), RWMutex %v, hold %v, %v", s.readers, s.writers, rw, s.hold, s.contention)
			res, err := runReadMostly(ctx, addrs[0], rw, s.readers, s.writers, s.hold, s.writerPause, s.contention)
			if err != nil {
				return err
			}
			r.readMostly = append(r.readMostly, res)
		}
	}
	if sections["etcd"] {
		progress("4. etcd lock+unlock, %d cycles each", s.etcdOps)
		e, err := startEtcd()
		if err != nil {
			return err
		}
		defer e.stop()
		if r.etcdRTT, err = etcdRTT(ctx, e.endpoint, 1000); err != nil {
			return err
		}
		if r.etcd, err = runUncontended(ctx, etcdImpls, []string{e.endpoint}, s.etcdOps, s.rounds, "etcd", false); err != nil {
			return err
		}
	}
	if sections["postgres"] {
		progress("6. PostgreSQL lock+unlock, %d cycles each", s.pgOps)
		pg, err := startPostgres()
		if err != nil {
			return err
		}
		defer pg.stop()
		if r.pgRTT, err = pgRTT(ctx, pg.url(), 1000); err != nil {
			return err
		}
		if r.pg, err = runUncontended(ctx, pgImpls, []string{pg.url()}, s.pgOps, s.rounds, "postgres", false); err != nil {
			return err
		}
	}
	if sections["scale"] {
		progress("5. scale: %d locks with a %v watchdog lease, held %v", s.scaleLocks, s.scaleLease, s.scaleHold)
		srv, err := startRedis(ctx) // a server of its own, empty
		if err != nil {
			return err
		}
		defer srv.stop()
		res, err := runScale(ctx, srv.addr, scaleSpec{locks: s.scaleLocks, hold: s.scaleHold, lease: s.scaleLease, parallel: s.scaleWorker})
		if err != nil {
			return fmt.Errorf("scale: %w", err)
		}
		r.scale = &res
	}
	return nil
}

// etcdRTT measures the round trip of a one-key write (Put), the unit every
// etcd lock operation is made of, with the etcd client.
func etcdRTT(ctx context.Context, endpoint string, n int) (latencies, error) {
	cli, err := newEtcdClient(endpoint)
	if err != nil {
		return latencies{}, err
	}
	defer cli.Close()
	d := make([]time.Duration, n)
	for i := -100; i < n; i++ {
		start := time.Now()
		if _, err := cli.Put(ctx, "bench/rtt", "x"); err != nil {
			return latencies{}, fmt.Errorf("etcd put: %w", err)
		}
		if i >= 0 {
			d[i] = time.Since(start)
		}
	}
	return summarize(d), nil
}

// progress tells what the run is doing, on stderr.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
