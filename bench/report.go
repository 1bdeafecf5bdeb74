package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// report holds the results of a run.
type report struct {
	command      string
	settings     settings
	started      time.Time
	elapsed      time.Duration
	loadBefore   string
	loadAfter    string
	redisVersion string

	rtt         latencies
	idleRTT     latencies // PING after sleeping one hold
	quorumMsg   latencies // a release to the RedLock's servers, heard from a majority (quorumMessageRTT)
	etcdRTT     latencies
	uncontended []uncontendedResult
	// instructions is section 1's server work counted by callgrind;
	// instructionsSkipped says why it is missing when it was asked for.
	instructions        []instrResult
	instructionsSkipped string
	redlock             []uncontendedResult
	contention          []contentionResult
	etcd                []uncontendedResult
	pgRTT               latencies
	pg                  []uncontendedResult
	scale               *scaleResult
	readMostly          []readMostlyResult
	// redlockContention is section 8: contention on a RedLock of 5.
	redlockContention []contentionResult
}

// Targets (ratios within one run).
const (
	targetUncontended   = 1.0 // distlock / best peer, p50
	targetScriptTime    = 1.5 // distlock / redislock, server script time per uncontended cycle
	targetRedLock       = 0.9 // distlock / redsync, p50 (issue 12)
	targetThroughput    = 0.9 // acquisitions per second / physical limit at the measured hold (issue 12)
	targetRedLockRate   = 1.2 // distlock / redsync, acquisitions per second on a contended RedLock (issue 12)
	targetWaitP99       = 0.3 // distlock / best peer
	targetShare         = 0.9 // smallest share / mean share
	targetGoroutines    = 100
	targetBytesPerLock  = 1024 // live client heap per held lock (issue 12)
	targetRedLockOwn    = 1.3  // distlock RedLock / distlock on 1 Redis, p50 (issue 12)
	targetEtcd          = 1.0  // distlock / concurrency.Mutex, p50 and p99
	targetMissedRenewal = 0
	// targetBatching is the fewest renewals per round trip that counts as
	// batched (one per round trip is not).
	targetBatching = 10
)

func (r *report) tables() []*table {
	var ts []*table
	ts = append(ts, r.summaryTable())
	if r.uncontended != nil {
		ts = append(ts, latencyTable("1. Uncontended lock+unlock, 1 Redis", r.uncontended))
	}
	if r.instructions != nil {
		ts = append(ts, instructionsTable(r.instructions))
	}
	if r.redlock != nil {
		ts = append(ts, latencyTable("2. Uncontended lock+unlock, RedLock over 5 Redis", r.redlock))
	}
	if r.contention != nil {
		ts = append(ts, r.contentionTable(fmt.Sprintf("3. Contention: %d goroutines, each with its own client, hold %v, %v",
			r.settings.goroutines, r.settings.hold, r.settings.contention), r.contention,
			"distlock in the lock's wait queue on Redis (a release hands the lock to the first waiter and wakes only it, through pub/sub); rueidislock on client-side-caching invalidations; redsync polls every 50–250 ms (its default); redislock backs off exponentially from 16 ms to 256 ms"))
	}
	if r.redlockContention != nil {
		t := r.contentionTable(fmt.Sprintf("8. Contention on a RedLock of 5 Redis: %d goroutines, each with its own 5 clients, hold %v, %v",
			r.settings.goroutines, r.settings.hold, r.settings.contention), r.redlockContention,
			"distlock as a Mutex over a RedLock (redlock.New of five redislocker drivers, restart guard off as in section 2); redsync over the same five servers, polling every 50–250 ms (its default)")
		t.note("fair hand-off limit = 1 / (mean hold + a release heard from a majority), the most a lock that hands over to a waiter can make: "+
			"after sleeping one hold, a PUBLISH to the 5 servers at once (a goroutine each) until a waiter subscribed on all 5 has heard 3 (p50 %v, p99 %v)",
			dur(r.quorumMsg.p50), dur(r.quorumMsg.p99))
		for _, c := range r.redlockContention {
			t.note("%s: %.2f of the fair hand-off limit at its mean hold (%.0f acquisitions/s)", c.name, c.perSecond/r.fairLimit(c.meanHold), r.fairLimit(c.meanHold))
		}
		ts = append(ts, t)
	}
	if r.readMostly != nil {
		ts = append(ts, r.readMostlyTable())
	}
	if r.etcd != nil {
		t := latencyTable("4. etcd lock+unlock (1 member)", r.etcd)
		t.note("etcd Put round trip: p50 %s, p99 %s", dur(r.etcdRTT.p50), dur(r.etcdRTT.p99))
		ts = append(ts, t)
	}
	if r.pg != nil {
		t := latencyTable("6. PostgreSQL lock+unlock (1 server, default durability)", r.pg)
		t.note("SELECT 1 round trip: p50 %s, p99 %s", dur(r.pgRTT.p50), dur(r.pgRTT.p99))
		ts = append(ts, t)
	}
	if r.scale != nil {
		ts = append(ts, r.scaleTable())
	}
	return ts
}

func latencyTable(title string, rs []uncontendedResult) *table {
	t := &table{title: title, header: []string{"implementation", "p50", "p99", "mean", "allocs/op", "p50 vs distlock"}}
	metered := rs[0].metered
	if metered {
		t.header = append(t.header, "scripts/cycle", "server script time/cycle (lock + unlock)", "server CPU/cycle", "client CPU/cycle",
			fmt.Sprintf("CPU/cycle ÷ %d cores", runtime.NumCPU()))
	}
	for _, x := range rs {
		cells := []string{x.name, dur(x.lat.p50), dur(x.lat.p99), dur(x.lat.mean), fmt.Sprintf("%.0f", x.allocs),
			ratio(float64(x.lat.p50), float64(rs[0].lat.p50))}
		if metered {
			scripts, scriptTime, cpu := perCycle(x.work, x.cycles)
			_, lockTime, _ := perCycle(x.lockWork, x.splitCount)
			_, unlockTime, _ := perCycle(x.unlWork, x.splitCount)
			cells = append(cells, fmt.Sprintf("%.2f", scripts),
				fmt.Sprintf("%s (%s + %s)", dur(scriptTime), dur(lockTime), dur(unlockTime)), dur(cpu),
				dur(x.clientCPU/time.Duration(x.cycles)), dur(cpuBound(x)))
		}
		t.add(cells...)
	}
	if metered {
		t.note("server script time = the time redis-server ran EVAL and EVALSHA, from INFO commandstats (whole µs per call), over the timed cycles; "+
			"lock + unlock splits it, measured over %d more cycles per round with a reading between the two steps (each step then follows an INFO round trip and runs colder than in the timed cycles, so the two add up to more); "+
			"commands sent outside scripts are not in it (redsync takes its lock with a plain SET NX); "+
			"server CPU = redis-server's user and system CPU (INFO cpu) over the timed cycles, commands, scripts and network alike; "+
			"client CPU = this process's (getrusage); CPU/cycle ÷ cores = (client + server CPU per cycle) / the machine's cores, which no mean cycle can beat", splitCycles)
	}
	return t
}

// cpuBound is the least mean cycle the machine's cores allow x: the CPU
// its client and its servers used per cycle, spread over every core.
func cpuBound(x uncontendedResult) time.Duration {
	if x.cycles == 0 {
		return 0
	}
	return (x.clientCPU + x.work.cpu) / time.Duration(x.cycles*runtime.NumCPU())
}

// best returns the element of xs that better ranks first; xs is not empty.
func best[T any](xs []T, better func(a, b T) bool) T {
	b := xs[0]
	for _, x := range xs[1:] {
		if better(x, b) {
			b = x
		}
	}
	return b
}

// physicalLimit is the most acquisitions per second any lock can make when
// each is held for hold: one hold plus the round trip that hands the lock
// over.
func (r *report) physicalLimit(hold time.Duration) float64 {
	return 1 / (hold + r.rtt.p50).Seconds()
}

// physicalLimitInv is 1 / physicalLimit(hold), in seconds.
func (r *report) physicalLimitInv(hold time.Duration) float64 {
	return (hold + r.rtt.p50).Seconds()
}

// idleLimitInv is 1 / the physical limit with the round trip that follows
// an idle hold (see pingRTT) in place of the back-to-back one, in seconds.
func (r *report) idleLimitInv(hold time.Duration) float64 {
	return (hold + r.idleRTT.p50).Seconds()
}

// fairLimit is the most acquisitions per second a fair lock over the
// RedLock's servers can make when each is held for hold: one hold plus a
// release heard from a majority (see quorumMessageRTT).
func (r *report) fairLimit(hold time.Duration) float64 {
	return 1 / (hold + r.quorumMsg.p50).Seconds()
}

// contentionTable is the table of a contention section: rs, whose waiting
// is explained by waiting.
func (r *report) contentionTable(title string, rs []contentionResult, waiting string) *table {
	t := &table{title: title,
		header: []string{"implementation", "processes", "acquisitions/s", "of limit", "of limit at measured hold", "… and idle round trip", "wait p50", "wait p99", "smallest share", "mean hold", "mean handoff", "releaser again", "client CPU", "server CPU", "errors"}}
	limit := r.physicalLimit(r.settings.hold)
	for _, c := range rs {
		errs := fmt.Sprint(c.nerrors)
		if c.overlaps > 0 {
			errs += fmt.Sprintf(", %d OVERLAPS", c.overlaps)
		}
		again := "–"
		if c.procs == 1 {
			again = fmt.Sprintf("%.0f%%", 100*c.reacquired)
		}
		var handoff time.Duration
		if c.perSecond > 0 {
			handoff = time.Duration(float64(time.Second)/c.perSecond) - c.meanHold
		}
		t.add(c.name, fmt.Sprint(c.procs), fmt.Sprintf("%.0f", c.perSecond),
			fmt.Sprintf("%.2f", c.perSecond/limit), fmt.Sprintf("%.2f", c.perSecond*r.physicalLimitInv(c.meanHold)),
			fmt.Sprintf("%.2f", c.perSecond*r.idleLimitInv(c.meanHold)), dur(c.wait.p50), dur(c.wait.p99),
			fmt.Sprintf("%.2f", c.fairness), dur(c.meanHold), dur(handoff), again,
			fmt.Sprintf("%.2f", c.clientCPU), fmt.Sprintf("%.2f", c.serverCPU), errs)
	}
	t.note("physical limit = 1 / (hold + PING round trip p50) = %.0f acquisitions/s; \"at measured hold\" puts the mean measured hold in place of the nominal %v (the hold is %s, which overshoots, more so on a busy CPU); \"idle round trip\" also puts the PING round trip after sleeping one hold (p50 %v; back to back %v) in place of the back-to-back one: every hand-off follows a hold, and on this VM a round trip after an idle spell is slower", limit, r.settings.hold, holdKind(), dur(r.idleRTT.p50), dur(r.rtt.p50))
	t.note("smallest share = fewest acquisitions of one goroutine / mean acquisitions per goroutine")
	t.note("mean handoff = 1 / (acquisitions/s) − mean hold: how long the lock sat between holders; releaser again = share of acquisitions by the goroutine that had just released it (1 process only; %.0f%% if every goroutine were equally likely)", 100/float64(r.settings.goroutines))
	t.note("client CPU, server CPU = cores used by the contending processes and by the redis-servers (the machine has %d)", runtime.NumCPU())
	t.note("waiting: %s", waiting)
	for _, c := range rs {
		if len(c.errors) > 0 {
			t.note("%s (%d processes), first error: %s", c.name, c.procs, c.errors[0])
		}
	}
	return t
}

func (r *report) scaleTable() *table {
	s := r.scale
	t := &table{title: fmt.Sprintf("5. Scale: %d locks held with the watchdog (lease %v, renewed every %v) for %v, 1 Redis",
		s.spec.locks, s.spec.lease, s.spec.lease/3, s.spec.hold),
		header: []string{"measure", "value"}}
	t.add("time to take them all", fmt.Sprintf("%s (%d goroutines)", dur(s.acquire), s.spec.parallel))
	t.add("time to release them all", dur(s.release))
	t.add("goroutines in the process while holding (most seen; before taking the locks)", fmt.Sprintf("%d (%d)", s.goroutines, s.baseGoroutines))
	t.add("live heap per held lock", fmt.Sprintf("%.0f B", s.heapPerLock))
	t.add("renewals per second", fmt.Sprintf("%.0f", s.renewals))
	t.add("round trips per second (all client calls)", fmt.Sprintf("%.1f", s.roundTrips))
	t.add("renewals per round trip", fmt.Sprintf("%.0f", s.renewals/max(s.roundTrips, 1e-9)))
	t.add("renewal pipeline p99", dur(s.batchP99))
	t.add("leases lost / late (< half the lease left when sampled)", fmt.Sprintf("%d / %d", s.lost, s.late))
	t.add("least remaining lease seen", dur(s.minRemaining))
	t.add("locks held on the server at the end", fmt.Sprintf("%d of %d", s.heldOnServer, s.spec.locks))
	t.add("client CPU while holding", fmt.Sprintf("%.3f cores", s.clientCPU))
	t.add("redis-server CPU while holding", fmt.Sprintf("%.3f cores", s.serverCPU))
	t.add("redis-server memory per lock", fmt.Sprintf("%d B", s.serverMemBytes))
	return t
}

// summaryTable is distlock against the best peer and the targets.
func (r *report) summaryTable() *table {
	t := &table{title: "Summary: distlock against the best peer (ratios within this run)",
		header: []string{"benchmark", "distlock", "best peer", "distlock / best peer", "target", "met"}}
	t.add("PING round trip (go-redis), p50 / p99", dur(r.rtt.p50)+" / "+dur(r.rtt.p99), "", "", "", "")
	t.add(fmt.Sprintf("PING round trip after an idle %v, p50 / p99", r.settings.hold), dur(r.idleRTT.p50)+" / "+dur(r.idleRTT.p99), "", "", "", "")
	if rs := r.uncontended; rs != nil {
		peers := rs[1 : len(rs)-1] // the last row is distlock with the watchdog
		b := best(peers, func(x, y uncontendedResult) bool { return x.lat.p50 < y.lat.p50 })
		q := float64(rs[0].lat.p50) / float64(b.lat.p50)
		t.add("1. uncontended, 1 Redis, p50", dur(rs[0].lat.p50), dur(b.lat.p50)+" "+b.name, fmt.Sprintf("%.2f×", q),
			fmt.Sprintf("≤ %.1f×", targetUncontended), yesNo(q <= targetUncontended))
		bp99 := best(peers, func(x, y uncontendedResult) bool { return x.lat.p99 < y.lat.p99 })
		t.add("1. uncontended, 1 Redis, p99", dur(rs[0].lat.p99), dur(bp99.lat.p99)+" "+bp99.name,
			ratio(float64(rs[0].lat.p99), float64(bp99.lat.p99)), "", "")
		ba := best(peers, func(x, y uncontendedResult) bool { return x.allocs < y.allocs })
		t.add("1. uncontended, 1 Redis, allocs/op", fmt.Sprintf("%.0f", rs[0].allocs), fmt.Sprintf("%.0f %s", ba.allocs, ba.name),
			ratio(rs[0].allocs, ba.allocs), "", "")
		for _, p := range peers {
			if p.name != "redislock" {
				continue
			}
			_, mine, _ := perCycle(rs[0].work, rs[0].cycles)
			_, theirs, _ := perCycle(p.work, p.cycles)
			q := float64(mine) / float64(theirs)
			t.add("1. uncontended, 1 Redis, server script time per cycle", dur(mine), dur(theirs)+" "+p.name, fmt.Sprintf("%.2f×", q),
				fmt.Sprintf("≤ %.1f×", targetScriptTime), yesNo(q <= targetScriptTime))
		}
	}
	r.instructionsSummary(t)
	if rs := r.redlock; rs != nil {
		q := float64(rs[0].lat.p50) / float64(rs[1].lat.p50)
		t.add("2. RedLock over 5 Redis, p50", dur(rs[0].lat.p50), dur(rs[1].lat.p50)+" "+rs[1].name, fmt.Sprintf("%.2f×", q),
			fmt.Sprintf("≤ %.1f×", targetRedLock), yesNo(q <= targetRedLock))
		t.add("2. RedLock over 5 Redis, p99", dur(rs[0].lat.p99), dur(rs[1].lat.p99)+" "+rs[1].name,
			ratio(float64(rs[0].lat.p99), float64(rs[1].lat.p99)), "", "")
		if one := r.uncontended; one != nil {
			q := float64(rs[0].lat.p50) / float64(one[0].lat.p50)
			t.add("2. RedLock over 5 Redis, p50, vs distlock on 1 Redis", dur(rs[0].lat.p50), dur(one[0].lat.p50)+" distlock, 1 Redis",
				fmt.Sprintf("%.2f×", q), fmt.Sprintf("≤ %.1f×", targetRedLockOwn), yesNo(q <= targetRedLockOwn))
		}
		t.add(fmt.Sprintf("2. RedLock over 5 Redis, CPU per cycle / %d cores (the least mean cycle)", runtime.NumCPU()),
			dur(cpuBound(rs[0])), dur(cpuBound(rs[1]))+" "+rs[1].name, ratio(float64(cpuBound(rs[0])), float64(cpuBound(rs[1]))), "", "")
	}
	for _, procs := range []int{1, 2} {
		mine, peers := splitContention(r.contention, procs, "distlock")
		if mine == nil || len(peers) == 0 {
			continue
		}
		where := fmt.Sprintf("3. contention, %d process", procs)
		if procs > 1 {
			where += "es"
		}
		limit := r.physicalLimit(r.settings.hold)
		measured := mine.perSecond * r.physicalLimitInv(mine.meanHold) // of the limit at the measured hold
		bt := best(peers, func(x, y contentionResult) bool { return x.perSecond > y.perSecond })
		t.add(where+", acquisitions/s (vs physical limit)", fmt.Sprintf("%.0f", mine.perSecond),
			fmt.Sprintf("%.0f %s; limit %.0f", bt.perSecond, bt.name, limit),
			fmt.Sprintf("%.2f of limit, %.2f at the measured hold (%.2f with the idle round trip); %.2f× peer", mine.perSecond/limit, measured, mine.perSecond*r.idleLimitInv(mine.meanHold), mine.perSecond/bt.perSecond),
			fmt.Sprintf("≥ %.2f of limit at measured hold", targetThroughput), yesNo(measured >= targetThroughput))
		contentionSummary(t, where, mine, peers, targetWaitP99)
	}
	if mine, peers := splitContention(r.redlockContention, 1, "distlock redlock"); mine != nil && len(peers) > 0 {
		where := "8. contention, RedLock of 5"
		bt := best(peers, func(x, y contentionResult) bool { return x.perSecond > y.perSecond })
		q := mine.perSecond / bt.perSecond
		t.add(where+", acquisitions/s", fmt.Sprintf("%.0f", mine.perSecond), fmt.Sprintf("%.0f %s", bt.perSecond, bt.name),
			fmt.Sprintf("%.2f×", q), fmt.Sprintf("≥ %.1f×", targetRedLockRate), yesNo(q >= targetRedLockRate))
		fair := r.fairLimit(mine.meanHold)
		t.add(where+", fair hand-off limit, acquisitions/s", fmt.Sprintf("%.0f (distlock at %.2f of it)", fair, mine.perSecond/fair),
			fmt.Sprintf("%.1f× %s = %.0f", targetRedLockRate, bt.name, targetRedLockRate*bt.perSecond),
			fmt.Sprintf("%.2f×", fair/bt.perSecond), "", "")
		contentionSummary(t, where, mine, peers, 0)
	}
	if rs := r.etcd; rs != nil {
		q := float64(rs[0].lat.p50) / float64(rs[1].lat.p50)
		t.add("4. etcd lock+unlock, p50", dur(rs[0].lat.p50), dur(rs[1].lat.p50)+" "+rs[1].name, fmt.Sprintf("%.2f×", q),
			fmt.Sprintf("≤ %.1f×", targetEtcd), yesNo(q <= targetEtcd))
		q99 := float64(rs[0].lat.p99) / float64(rs[1].lat.p99)
		t.add("4. etcd lock+unlock, p99", dur(rs[0].lat.p99), dur(rs[1].lat.p99)+" "+rs[1].name, fmt.Sprintf("%.2f×", q99),
			fmt.Sprintf("≤ %.1f×", targetEtcd), yesNo(q99 <= targetEtcd))
		q2 := float64(rs[0].lat.p50) / float64(rs[2].lat.p50)
		t.add("4. etcd lock+unlock, p50, vs a session per lock", dur(rs[0].lat.p50), dur(rs[2].lat.p50)+" "+rs[2].name,
			fmt.Sprintf("%.2f×", q2), "", "")
		q3 := float64(rs[0].lat.p50) / float64(rs[3].lat.p50)
		t.add("4. etcd lock+unlock, p50, vs calls that can be ended", dur(rs[0].lat.p50), dur(rs[3].lat.p50)+" "+rs[3].name,
			fmt.Sprintf("%.2f×", q3), "", "")
	}
	if rs := r.pg; rs != nil {
		t.add("6. PostgreSQL lock+unlock, p50", dur(rs[0].lat.p50), dur(rs[1].lat.p50)+" "+rs[1].name,
			ratio(float64(rs[0].lat.p50), float64(rs[1].lat.p50)), "", "")
	}
	if s := r.scale; s != nil {
		where := fmt.Sprintf("5. %d held locks", s.spec.locks)
		t.add(where+", goroutines", fmt.Sprint(s.goroutines), "", "", fmt.Sprintf("≤ %d", targetGoroutines), yesNo(s.goroutines <= targetGoroutines))
		t.add(where+", heap per lock", fmt.Sprintf("%.0f B", s.heapPerLock), "", "", fmt.Sprintf("≤ %d B", targetBytesPerLock), yesNo(s.heapPerLock <= targetBytesPerLock))
		perRT := s.renewals / max(s.roundTrips, 1e-9)
		t.add(where+", renewals/s in round trips/s", fmt.Sprintf("%.0f in %.1f", s.renewals, s.roundTrips), "", "",
			fmt.Sprintf("batched (≥ %d per round trip)", targetBatching), yesNo(perRT >= targetBatching))
		t.add(where+", renewals missed", fmt.Sprint(s.missed()), "", "", fmt.Sprint(targetMissedRenewal), yesNo(s.missed() == targetMissedRenewal))
	}
	return t
}

// splitContention returns, of the results of runs in procs processes,
// the one named mine and the others.
func splitContention(rs []contentionResult, procs int, mine string) (*contentionResult, []contentionResult) {
	var m *contentionResult
	var peers []contentionResult
	for i, c := range rs {
		switch {
		case c.procs != procs:
		case c.name == mine:
			m = &rs[i]
		default:
			peers = append(peers, c)
		}
	}
	return m, peers
}

// contentionSummary adds the summary rows every contention section has:
// wait p99 (against waitTarget times the best peer's, if not 0) and the
// smallest share.
func contentionSummary(t *table, where string, mine *contentionResult, peers []contentionResult, waitTarget float64) {
	bw := best(peers, func(x, y contentionResult) bool { return x.wait.p99 < y.wait.p99 })
	q := float64(mine.wait.p99) / float64(bw.wait.p99)
	target, met := "", ""
	if waitTarget > 0 {
		target, met = fmt.Sprintf("≤ %.1f×", waitTarget), yesNo(q <= waitTarget)
	}
	t.add(where+", wait p99", dur(mine.wait.p99), dur(bw.wait.p99)+" "+bw.name, fmt.Sprintf("%.2f×", q), target, met)
	bf := best(peers, func(x, y contentionResult) bool { return x.fairness > y.fairness })
	t.add(where+", smallest share", fmt.Sprintf("%.2f", mine.fairness), fmt.Sprintf("%.2f %s", bf.fairness, bf.name), "",
		fmt.Sprintf("≥ %.1f", targetShare), yesNo(mine.fairness >= targetShare))
}

// print writes the run's header and tables for a terminal.
func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "\n%s\n", r.header())
	for _, t := range r.tables() {
		t.text(w)
	}
}

func (r *report) header() string {
	return fmt.Sprintf("%s, %s, GOMAXPROCS %d, %s, redis-server %s; load average %s before, %s after; took %v\n\n%s",
		r.started.UTC().Format("2006-01-02 15:04 UTC"), runtime.Version(), runtime.GOMAXPROCS(0), cpuModel(),
		r.redisVersion, r.loadBefore, r.loadAfter, r.elapsed.Round(time.Second), versions())
}

// versions lists the versions of the libraries compared.
func versions() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var vs []string
	for _, m := range bi.Deps {
		switch m.Path {
		case "github.com/go-redsync/redsync/v4", "github.com/bsm/redislock", "github.com/redis/rueidis",
			"github.com/redis/go-redis/v9", "go.etcd.io/etcd/client/v3", "go.etcd.io/etcd/server/v3",
			"github.com/jackc/pgx/v5":
			vs = append(vs, m.Path+" "+m.Version)
		}
	}
	return "Libraries: " + strings.Join(vs, ", ")
}

// Markers of the generated part of BENCHMARKS.md; the text around them is
// kept.
const (
	beginMarker = "<!-- bench:begin (generated by `cd bench && go run .`; edit outside these markers) -->"
	endMarker   = "<!-- bench:end -->"
)

// writeMarkdown writes the results between the markers of path, keeping
// the rest of the file, or creates the file.
func (r *report) writeMarkdown(path string) error {
	var gen bytes.Buffer
	fmt.Fprintf(&gen, "%s\n\nReproduce with:\n\n```\n%s\n```\n\n%s\n", beginMarker, r.command, r.header())
	for _, t := range r.tables() {
		t.markdown(&gen)
	}
	fmt.Fprintf(&gen, "\n%s", endMarker)

	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	text := string(old)
	i, j := strings.Index(text, "<!-- bench:begin"), strings.Index(text, endMarker)
	var out string
	if i >= 0 && j > i {
		out = text[:i] + gen.String() + text[j+len(endMarker):]
	} else {
		out = "# Benchmarks\n\n" + gen.String() + "\n"
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

// loadAverage returns the 1, 5 and 15 minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// cpuModel returns the processor's name.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return runtime.GOARCH
}
