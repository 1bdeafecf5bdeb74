package torture

import "testing"

// scenarios are the configurations under their faults, each with its lock
// (a mutex unless lock says otherwise) and promise, in the order they run: the faults that leave servers restarted
// come last for each configuration, whose servers its scenarios share. See
// the package documentation for the table.
var scenarios = []scenario{
	{config: singleRedis, fault: noFault, exclusive: true},
	{config: singleRedis, fault: cutFault, exclusive: true,
		why: "a cut-off holder's lease ends, by its own clock, before the server frees the key"},
	{config: singleRedis, fault: stopFault, exclusive: true,
		why: "the server's expiry counts from when it ran the call, after the holder's attempt began"},
	{config: singleRedis, fault: pauseFault, exclusive: true,
		why: "valid leases never overlap; the paused holder's late write must be rejected"},
	{config: singleRedis, fault: lostUnlockFault, exclusive: true,
		why: "a Mutex gives back the hold a lost Unlock left behind rather than re-enter it"},
	{config: singleRedis, lock: rwLock, fault: noFault, exclusive: true},
	{config: singleRedis, lock: rwLock, fault: cutFault, exclusive: true,
		why: "a cut-off holder's lease ends, by its own clock, before the server frees its hold"},
	{config: singleRedis, lock: rwLock, fault: stopFault, exclusive: true,
		why: "the server's expiry counts from when it ran the call, after the holder's attempt began"},
	{config: singleRedis, lock: rwLock, fault: pauseFault, exclusive: true,
		why: "valid leases never overlap; the paused writer's late write must be rejected"},
	{config: singleRedis, lock: rwLock, fault: rwLostUnlockFault, exclusive: true,
		why: "an RWMutex gives back the write hold a lost Unlock left behind, and a late release names its hold by token"},
	{config: singleRedis, fault: killFault, exclusive: false,
		why: "a restart without persistence forgets the lock; fencing must catch the stale writes"},
	{config: singleRedis, lock: rwLock, fault: killFault, exclusive: false,
		why: "a restart without persistence forgets the holds and the counter (readers then get older tokens); fencing must catch the stale writes"},

	{config: persistentRedis, fault: killFault, exclusive: true,
		why: "with appendfsync always the lock and its expiry survive the restart"},

	{config: replicated, fault: failoverFault, exclusive: true,
		why: "acquisitions are acknowledged by the replica; a Mutex gives back the released hold a failover resurrects rather than re-enter it"},

	{config: redLock, fault: noFault, exclusive: true},
	{config: redLock, fault: cutFault, exclusive: true,
		why: "a client cut from a majority cannot renew and loses its lease first"},
	{config: redLock, fault: stopFault, exclusive: true,
		why: "at most two of five members stall"},
	{config: redLock, fault: pauseFault, exclusive: true,
		why: "valid leases never overlap; the paused holder's late write must be rejected"},
	{config: redLock, fault: lostUnlockFault, exclusive: true,
		why: "a Mutex gives back the holds a lost Unlock left behind on any member rather than re-enter them"},
	{config: redLock, lock: rwLock, fault: noFault, exclusive: true},
	{config: redLock, lock: rwLock, fault: cutFault, exclusive: true,
		why: "a client cut from a majority cannot renew and loses its lease first"},
	{config: redLock, lock: rwLock, fault: rwLostUnlockFault, exclusive: true,
		why: "an RWMutex gives back the write holds a lost Unlock left behind on any member, and every member release names its hold by token"},
	{config: redLock, fault: killFault, exclusive: true,
		why: "one member restarts at a time and does not vote within the restart guard"},
	{config: redLock, lock: rwLock, fault: killFault, exclusive: true,
		why: "one member restarts at a time and does not vote within the restart guard, so every quorum has members that kept the last write's token"},
	{config: redLock, fault: killMajorityFault, exclusive: true,
		why: "the restart guard keeps a forgetful majority from voting for a second owner"},

	{config: unguardedRedLock, fault: killMajorityFault, exclusive: false,
		why: "without the restart guard a forgetful majority grants the lock to a second owner"},

	{config: mixed, fault: noFault, exclusive: true},
	{config: mixed, fault: rotatingFault, exclusive: true,
		why: "one member of five is impaired at a time, and a restarted Redis is kept out by the restart guard"},
	{config: mixed, fault: forgetfulFault, exclusive: false,
		why: "a member that forgets a bare quorum's hold with no restart guard (memcached restarted, a clock jump) frees the lock; fencing must catch the stale writes"},

	{config: etcdCluster, fault: noFault, exclusive: true},
	{config: etcdCluster, fault: cutFault, exclusive: true,
		why: "a cut-off holder's lease ends, by its own clock, before etcd's does"},
	{config: etcdCluster, lock: rwLock, fault: noFault, exclusive: true},
	{config: etcdCluster, lock: rwLock, fault: cutFault, exclusive: true,
		why: "a cut-off holder's lease ends, by its own clock, before etcd's does"},
	{config: etcdCluster, fault: etcdMemberFault, exclusive: true,
		why: "leases survive a member's loss and are extended when the leader changes"},

	{config: multiLock, lock: semaphoreLock, fault: noFault, exclusive: true},
	{config: multiLock, lock: semaphoreLock, fault: cutFault, exclusive: true,
		why: "a client cut from its members cannot renew there and loses its lease first"},

	{config: memStore, fault: clockFault, exclusive: false,
		why: "a store whose clock jumps forward ends leases early; fencing must catch the stale writes"},

	{config: durablePostgres, fault: noFault, exclusive: true},
	{config: durablePostgres, fault: cutFault, exclusive: true,
		why: "a cut-off holder's lease ends, by its own clock, before the server's lease, which began later"},
	{config: durablePostgres, fault: pgStopFault, exclusive: true,
		why: "the server's lease counts from when it ran the statement, after the holder's attempt began"},
	{config: durablePostgres, fault: pauseFault, exclusive: true,
		why: "valid leases never overlap; the paused holder's late write must be rejected"},
	{config: durablePostgres, fault: lostUnlockFault, exclusive: true,
		why: "a Mutex gives back the hold a lost Unlock left behind rather than re-enter it"},
	{config: durablePostgres, fault: pgKillFault, exclusive: true,
		why: "a committed lease and the token sequence survive the crash (fsync, synchronous commits)"},

	{config: asyncPostgres, fault: pgKillFault, exclusive: false,
		why: "with synchronous_commit=off a crash loses the last commits, leases among them, and the token sequence's last advances with them: tokens may repeat, so fencing is not promised either", tokensMayFall: true},
}

// TestTorture runs every scenario, the scenarios of one configuration on
// one deployment of its servers; see the package documentation.
func TestTorture(t *testing.T) {
	var order []*config
	byConfig := make(map[*config][]scenario)
	for _, s := range scenarios {
		if byConfig[s.config] == nil {
			order = append(order, s.config)
		}
		byConfig[s.config] = append(byConfig[s.config], s)
	}
	for _, c := range order {
		t.Run(c.name, func(t *testing.T) {
			d := c.deploy(t)
			for _, s := range byConfig[c] {
				t.Run(s.label(), func(t *testing.T) { runScenario(t, d, s) })
			}
		})
	}
}
