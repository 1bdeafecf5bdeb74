package torture

import (
	"math/rand/v2"
	"testing"
	"time"
)

// fault strikes a deployment again and again until a deadline, from the
// test's goroutine (the server helpers fail the test from there), and
// leaves every server running and every link healed when it returns.
type fault struct {
	name string
	// slow stretches the scenario's run by this factor (0: 1), for faults
	// that strike seldom.
	slow int
	// pauser makes client 0 pause past its lease now and then; the
	// pauses are the fault.
	pauser bool
	// keepMutex makes every client keep one Mutex for the whole run.
	keepMutex bool
	// lostUnlocks makes every client lose one Unlock in two (see
	// loseUnlock); the losses are the fault.
	lostUnlocks bool
	inject      func(t *testing.T, d *deployment, r *run, until time.Time)
}

// between sleeps a random time in [lo, hi), or until until, and reports
// whether there is time left for another strike.
func between(lo, hi time.Duration, until time.Time) bool {
	d := lo + rand.N(hi-lo)
	if left := time.Until(until); left < d {
		time.Sleep(max(left, 0))
		return false
	}
	time.Sleep(d)
	return time.Now().Before(until)
}

// whileHeld waits, up to a lease, until a long holder is inside the
// resource, so that the next strike finds the lock held.
func whileHeld(d *deployment, r *run) {
	for give := time.Now().Add(d.lease); !r.res.held() && time.Now().Before(give); {
		time.Sleep(time.Millisecond)
	}
}

// outage is how long a server stays stopped or a link cut: longer than a
// lease, so that holders cut off lose their leases.
func outage(d *deployment) time.Duration { return d.lease + 400*time.Millisecond }

var (
	noFault = fault{name: "none", inject: func(_ *testing.T, _ *deployment, _ *run, until time.Time) {
		time.Sleep(time.Until(until))
	}}

	// pauseFault: client 0 sleeps past its lease every third hold.
	pauseFault = fault{name: "pause", pauser: true, inject: noFault.inject}

	// lostUnlockFault: every client re-locks its one Mutex after Unlocks
	// whose outcome it cannot know, which may leave its hold on the store.
	lostUnlockFault = fault{name: "lost-unlock", keepMutex: true, lostUnlocks: true, inject: noFault.inject}

	// rwLostUnlockFault is lostUnlockFault for a read-write lock, run
	// three times as long: a lost release of a write hold is followed by
	// a write (see player.rewrite), and lost releases slow every client
	// down, so that in four seconds readers may never be seen to share.
	rwLostUnlockFault = fault{name: "lost-unlock", keepMutex: true, lostUnlocks: true, slow: 3, inject: noFault.inject}

	// cutFault cuts one client's connections (to every server, or to a
	// random minority of a RedLock's), keeps them cut past a lease or
	// briefly, and heals them.
	cutFault = fault{name: "cut", inject: func(_ *testing.T, d *deployment, r *run, until time.Time) {
		for between(200*time.Millisecond, 500*time.Millisecond, until) {
			victim := rand.IntN(*flagClients)
			ps := r.links.of(victim)
			if len(d.redis) == 5 { // a RedLock: cut from one to three members
				rand.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
				ps = ps[:1+rand.IntN(3)]
			}
			for _, p := range ps {
				p.Cut()
			}
			hold := outage(d)
			if rand.IntN(2) == 0 {
				hold = 100 * time.Millisecond
			}
			r.strike("client %d cut from %d servers for %v", victim, len(ps), hold)
			time.Sleep(hold)
			for _, p := range ps {
				p.Heal()
			}
		}
	}}

	// stopFault pauses Redis servers with SIGSTOP past a lease and
	// resumes them with SIGCONT: the one server, or one or two of five.
	stopFault = fault{name: "sigstop", inject: func(_ *testing.T, d *deployment, r *run, until time.Time) {
		for between(300*time.Millisecond, 600*time.Millisecond, until) {
			victims := d.redis
			if len(victims) == 5 {
				victims = pick(victims, 1+rand.IntN(2))
			}
			whileHeld(d, r)
			for _, s := range victims {
				s.Stop()
			}
			r.strike("%d servers stopped", len(victims))
			time.Sleep(outage(d))
			for _, s := range victims {
				s.Cont()
			}
		}
	}}

	// killFault kills Redis servers with SIGKILL and restarts them after a
	// short downtime: the one server, or one of five at a time, at most
	// two within a restart guard.
	killFault = fault{name: "kill9", inject: func(_ *testing.T, d *deployment, r *run, until time.Time) {
		spacing := [2]time.Duration{400 * time.Millisecond, 800 * time.Millisecond}
		if len(d.redis) == 5 {
			spacing = [2]time.Duration{restartGuard/2 + 100*time.Millisecond, restartGuard}
		}
		for between(spacing[0], spacing[1], until) {
			i := rand.IntN(len(d.redis))
			whileHeld(d, r)
			d.redis[i].Kill()
			r.strike("server %d killed", i)
			time.Sleep(time.Duration(20+rand.IntN(150)) * time.Millisecond)
			d.redis[i].Restart()
		}
	}}

	// killMajorityFault kills three of five Redis servers at once and
	// restarts them: without a restart guard, the forgetful majority lets
	// a second client in while the first holds the lock.
	killMajorityFault = fault{name: "kill9-majority", slow: 2, inject: func(_ *testing.T, d *deployment, r *run, until time.Time) {
		// With a guard, the restarted majority does not vote for a guard's
		// length: wait that out between strikes, or nobody ever gets the
		// lock.
		for between(d.guard+300*time.Millisecond, d.guard+700*time.Millisecond, until) {
			victims := pick(d.redis, 3)
			whileHeld(d, r)
			for _, s := range victims {
				s.Kill()
			}
			r.strike("3 servers killed")
			for _, s := range victims {
				s.Restart()
			}
		}
	}}

	// clockFault makes the mem store's clock jump forward past every
	// lease: the store drops holds their holders still count on.
	clockFault = fault{name: "clock-jump", inject: func(_ *testing.T, d *deployment, r *run, until time.Time) {
		for between(200*time.Millisecond, 500*time.Millisecond, until) {
			whileHeld(d, r)
			d.memClock.Advance(2 * d.lease)
			r.strike("clock +%v", 2*d.lease)
		}
	}}

	// etcdMemberFault stops an etcd member (sometimes the leader) as a
	// crash would, and restarts it from its data.
	etcdMemberFault = fault{name: "member-restart", inject: func(t *testing.T, d *deployment, r *run, until time.Time) {
		for between(300*time.Millisecond, 700*time.Millisecond, until) {
			victim := rand.IntN(d.etcd.Size())
			if rand.IntN(2) == 0 {
				if leader, err := d.etcd.Leader(time.Second); err == nil {
					victim = leader
				}
			}
			d.etcd.Stop(victim)
			r.strike("member %d stopped", victim)
			time.Sleep(outage(d))
			if err := d.etcd.Restart(victim); err != nil {
				t.Fatalf("restarting etcd member %d: %v", victim, err)
			}
		}
	}}

	// rotatingFault strikes one member of the mixed RedLock at a time, in
	// turn: a Redis killed and restarted empty (and kept out by the restart
	// guard), memcached paused, the etcd member stopped and restarted, one
	// client cut from one member. Each strike is over, restart guard
	// included, before the next begins, so that at most one member of five
	// is impaired at any time.
	rotatingFault = fault{name: "rotating", slow: 3, inject: func(t *testing.T, d *deployment, r *run, until time.Time) {
		rotate(d, r, until, rotatingStrikes(t, d, r))
	}}

	// forgetfulFault strikes, one at a time, the members that forget their
	// holds with no restart guard to keep them out of the next quorum:
	// memcached restarted empty, the mem store's clock jumping past every
	// lease. A holder with a bare quorum that includes the struck member
	// is left with a minority, and another owner can win: RedLock promises
	// nothing here (its members must not forget within a lease), and
	// fencing must catch the stale writes.
	forgetfulFault = fault{name: "forgetful", slow: 3, inject: func(t *testing.T, d *deployment, r *run, until time.Time) {
		rotate(d, r, until, []func() time.Duration{
			func() time.Duration {
				r.strike("memcached restarted")
				if err := d.mc.Restart(); err != nil {
					t.Fatal(err)
				}
				return 0
			},
			func() time.Duration {
				r.strike("mem clock +%v", 3*d.lease)
				d.memClock.Advance(3 * d.lease)
				return 0
			},
		})
	}}
)

// rotatingStrikes are the strikes of rotatingFault; each returns how long
// its member stays impaired after it.
func rotatingStrikes(t *testing.T, d *deployment, r *run) []func() time.Duration {
	return []func() time.Duration{
		func() time.Duration {
			i := rand.IntN(len(d.redis))
			r.strike("redis %d killed", i)
			s := d.redis[i]
			s.Kill()
			time.Sleep(100 * time.Millisecond)
			s.Restart()
			return restartGuard
		},
		func() time.Duration {
			r.strike("memcached paused")
			if err := d.mc.Pause(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(outage(d))
			if err := d.mc.Resume(); err != nil {
				t.Fatal(err)
			}
			return 0
		},
		func() time.Duration {
			r.strike("etcd stopped")
			d.etcd.Stop(0)
			time.Sleep(outage(d))
			if err := d.etcd.Restart(0); err != nil {
				t.Fatalf("restarting etcd: %v", err)
			}
			return 0
		},
		func() time.Duration {
			// One member only: a client cut from both Redis members
			// would be left with too few fencing members to win a
			// quorum, and the scenario would test little else.
			victim := rand.IntN(*flagClients)
			ps := pick(r.links.of(victim), 1)
			r.strike("client %d cut from %s", victim, ps[0].Target())
			for _, p := range ps {
				p.Cut()
			}
			time.Sleep(outage(d))
			for _, p := range ps {
				p.Heal()
			}
			return 0
		},
	}
}

// rotate makes the strikes in turn, from a random one, until until: each
// while a lock is held, and the next only once the last has settled and a
// lease's length has passed, so that no hold lives through two strikes.
func rotate(d *deployment, r *run, until time.Time, strikes []func() time.Duration) {
	next := rand.IntN(len(strikes))
	settle := time.Duration(0)
	for between(settle+300*time.Millisecond, settle+600*time.Millisecond, until) {
		whileHeld(d, r)
		settle = max(strikes[next%len(strikes)](), d.lease)
		next++
	}
}

// pick returns n distinct elements of xs, at random.
func pick[T any](xs []T, n int) []T {
	out := append([]T(nil), xs...)
	rand.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:n]
}
