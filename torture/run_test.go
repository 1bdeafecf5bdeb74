package torture

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// run is one scenario in progress: the kind of lock, its name and lease,
// the shared resource, and what the clients recorded.
type run struct {
	lock  *primitive
	key   string
	lease time.Duration
	start time.Time
	links links
	// wallClock says that some server keeps its leases by the wall clock
	// (see skew).
	wallClock bool

	stop   atomic.Bool
	faults atomic.Int32
	// heals are the late heals of links that held requests back (see
	// loseUnlock); the run waits for them before it ends.
	heals sync.WaitGroup
	res   resource
	hist  history

	mu         sync.Mutex
	violations []string
	strikes    []string
}

func newRun(lock *primitive, key string, lease time.Duration) *run {
	return &run{lock: lock, key: key, lease: lease, start: time.Now()}
}

// now is the time since the run started, by the monotonic clock.
func (r *run) now() time.Duration { return time.Since(r.start) }

// clock is the current time, for comparing with lease deadlines.
func (r *run) clock() time.Time { return time.Now() }

// since converts a time to an offset from the run's start.
func (r *run) since(t time.Time) time.Duration { return t.Sub(r.start) }

// skew is how far the wall clock had moved ahead of the monotonic clock at
// t since the run started, when the run's servers keep their leases by
// this machine's wall clock (Redis and PostgreSQL do; etcd, memcached and
// the mem store count time monotonically), and 0 otherwise. The wall clock
// can step or slew (an NTP step, a virtual machine restored from a
// snapshot) where the monotonic clock does not: gaining, it ends such
// servers' leases early, which is the clock-jump fault that no lock
// promises exclusion under (see audit.clockOverlaps).
func (r *run) skew(t time.Time) time.Duration {
	if !r.wallClock {
		return 0
	}
	return t.Round(0).Sub(r.start.Round(0)) - t.Sub(r.start)
}

// skewNow is the skew now, read twice, with the larger reading if high is
// set and else the smaller. time.Now reads the two clocks one after the
// other, so a thread descheduled between them skews a reading by as long
// as it was away (a 40-minute watch on this machine saw readings 250 µs and
// 420 µs off); a hold's skew at its Lock call is read high and at its
// return low, so that one such reading of the two cannot excuse an
// overlap (see clockStepped).
func (r *run) skewNow(high bool) time.Duration {
	a, b := r.skew(time.Now()), r.skew(time.Now())
	if high {
		return max(a, b)
	}
	return min(a, b)
}

func (r *run) stopped() bool { return r.stop.Load() }

func (r *run) countFault() { r.faults.Add(1) }

// strike records a fault as it strikes, for the log.
func (r *run) strike(format string, args ...any) {
	r.countFault()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.strikes = append(r.strikes, fmt.Sprintf("%v: ", r.now().Round(time.Millisecond))+fmt.Sprintf(format, args...))
}

// violation records a broken rule that is not about exclusion or fencing
// (those the audit finds): it fails the scenario.
func (r *run) violation(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.violations = append(r.violations, fmt.Sprintf(format, args...))
}

// play runs the players until inject returns, then stops them and waits.
func (r *run) playWhile(players []*player, inject func()) {
	var wg sync.WaitGroup
	for _, p := range players {
		wg.Go(func() { r.play(p) })
	}
	inject()
	r.stop.Store(true)
	wg.Wait()
	r.heals.Wait()
}

// scenario is one configuration under one fault, with one kind of lock.
type scenario struct {
	config *config
	// lock is what the clients contend for; nil: a mutex.
	lock  *primitive
	fault fault
	// exclusive says whether the configuration promises the lock's
	// exclusion under this fault (a mutex's: one holder; a read-write
	// lock's: a writer alone, readers as of the last write; a semaphore's:
	// no more permits taken than it has); why says why, or why not.
	exclusive bool
	why       string
	// tokensMayFall says that the fault can take back the last advances
	// of the store's token counter (a crash that loses commits), so that
	// neither rising tokens nor fencing are promised either.
	tokensMayFall bool
}

func (s scenario) primitive() *primitive {
	if s.lock == nil {
		return mutexLock
	}
	return s.lock
}

// label names the scenario within its configuration: the fault, after the
// kind of lock when it is not a mutex.
func (s scenario) label() string {
	if p := s.primitive(); p != mutexLock {
		return p.name + "-" + s.fault.name
	}
	return s.fault.name
}

func (s scenario) name() string { return s.config.name + "/" + s.label() }

// outcome of a scenario: its run, its audit and its table row.
type result struct {
	run    *run
	audit  audit
	row    resultRow
	linOK  bool
	linMsg string
}

// execute lets clients of the deployment contend while the fault strikes,
// audits the history, and checks linearizability where the scenario
// promises exclusion.
func execute(t *testing.T, d *deployment, s scenario) result {
	if *flagClients < 1 || *flagClients > maxClients {
		t.Fatalf("-torture.clients=%d: it takes 1 to %d", *flagClients, maxClients)
	}
	r := newRun(s.primitive(), "torture/"+s.name(), d.lease)
	r.wallClock = len(d.redis) > 0 || d.pg != nil
	players := make([]*player, *flagClients)
	for i := range players {
		players[i] = &player{id: i, store: d.store(t, &r.links, i), pauser: i == 0 && s.fault.pauser,
			keep: s.fault.keepMutex, lossy: s.fault.lostUnlocks}
	}
	r.start = time.Now()
	until := time.Now().Add(scenarioDuration() * time.Duration(max(s.fault.slow, 1)))
	r.playWhile(players, func() { s.fault.inject(t, d, r, until) })
	took := time.Since(r.start)

	holds := r.hist.snapshot()
	res := result{run: r, audit: check(holds, r.res.log()), linOK: true}
	res.row = resultRow{
		config: s.config.name, lock: r.lock.name, fault: s.fault.name, exclusive: s.exclusive,
		faults: int(r.faults.Load()), audit: res.audit, errs: r.hist.errs, gaveUp: r.hist.gaveUp, took: took,
		lin: "n/a (no promise)",
	}
	if s.exclusive {
		res.linOK, res.linMsg = checkLinearizable(t, holds)
		res.row.lin = "yes"
		if !res.linOK {
			res.row.lin = "NO"
		}
	}
	a := res.audit
	t.Logf("%s: %d holds (at most %d inside at once), %d writes, %d rejected, %d faults, %d unknown outcomes (e.g. %v), %d waits gave up, Done lag up to %v, %d overlaps after clock steps",
		s.name(), a.acquired, a.peak, a.writes, a.rejected, res.row.faults, r.hist.errs, r.hist.firstErr, r.hist.gaveUp, a.maxDoneLag, a.clockOverlaps)
	for _, e := range a.examples {
		t.Log(e)
	}
	return res
}

// runScenario executes a scenario, adds its row to the table, and fails
// the test on every broken promise.
func runScenario(t *testing.T, d *deployment, s scenario) {
	res := execute(t, d, s)
	results.add(res.row)
	a, r := res.audit, res.run
	failIf(t, !res.linOK, "history %s", res.linMsg)
	failIf(t, a.acquired == 0, "no client ever got the lock")
	failIf(t, s.fault.name != "none" && res.row.faults == 0, "the fault never struck")
	failIf(t, !s.tokensMayFall && a.staleAccepted > 0, "%d stale writes accepted: fencing failed", a.staleAccepted)
	failIf(t, !s.tokensMayFall && a.badTokens > 0, "%d pairs of holds whose tokens do not rise", a.badTokens)
	failIf(t, a.noToken > 0, "%d holds granted without a fencing token (token 0)", a.noToken)
	failIf(t, s.exclusive && a.overlaps > 0, "%d holds entered beside holds they must exclude, but %s promises exclusion under %s (%s)",
		a.overlaps, s.config.name, s.fault.name, s.why)
	failIf(t, r.lock != mutexLock && a.peak < 2, "no two holds were ever inside at once: the scenario tested no sharing")
	failIf(t, s.exclusive && a.staleReads > 0, "%d read holds with a token older than a write before them, but %s promises exclusion under %s (%s)",
		a.staleReads, s.config.name, s.fault.name, s.why)
	failIf(t, s.fault.pauser && a.pausedRejected == 0,
		"no paused holder's late write was turned away: the scenario did not test fencing")
	r.mu.Lock()
	defer r.mu.Unlock()
	failIf(t, len(r.violations) > 0, "violations: %s", strings.Join(r.violations, "; "))
	if t.Failed() || len(a.examples) > 0 {
		t.Logf("faults: %s", strings.Join(r.strikes, "; "))
	}
}

func failIf(t *testing.T, cond bool, format string, args ...any) {
	t.Helper()
	if cond {
		t.Errorf(format, args...)
	}
}
