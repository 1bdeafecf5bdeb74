// Package torture is distlock's torture suite: it has no code of its own,
// only tests. Several clients, each with connections and a locker.Store of
// its own as a separate process would have, contend for one lock through
// the public API (the Store's Mutexes, RWMutexes or Semaphores) while real
// faults hit real servers, and a shared resource checks what the lock
// promised.
//
// # What is checked
//
// Every hold enters a shared resource that records when it was inside, and
// write holds (a Mutex's, an RWMutex's Lock) write to it with the hold's
// fencing token. The resource accepts a write only if its token is at
// least the highest it has accepted, as a fenced store would. Of an
// RWMutex's holds one in four writes and the rest read; a Semaphore of 3
// permits is acquired one or two permits at a time. After each run the
// suite checks, from the recorded history and not from the lock's own
// word:
//
//   - overlaps: a hold that entered the resource beside holds it must
//     exclude: a write hold beside any hold, a read hold beside a write
//     hold, a semaphore's hold when the permits inside and its own exceed
//     the semaphore's. A hold counts as inside from the return of Lock
//     until it leaves or its lease ends by Lease.Deadline, whichever comes
//     first; a holder past its deadline is a stale holder, which is
//     fencing's business, not exclusion's. A shared lock's run must also
//     have had two holds inside at once, or it tested no sharing. Redis
//     and PostgreSQL keep their leases by this machine's wall clock, and
//     the deadlines are kept by its monotonic clock: when the wall clock gained
//     on the monotonic one, between the start of a hold's Lock and the
//     return of the Lock that entered beside it, at least as much as the
//     two overlapped, the overlap is a clock jump's, which ends leases
//     early, and is counted apart ("clock overlaps"), not as an overlap.
//     Virtual machines restored from a snapshot step or slew their wall
//     clock: in one run soon after a restore, the wall clock gained 25 ms
//     on the monotonic one in 5 s, and a Redis server let readers in
//     0.4 ms and 1.1 ms before two writers' deadlines.
//   - stale writes accepted: a write accepted after a write of a hold that
//     began acquiring only after this one had the lock. Fencing must reject
//     every such write; one accepted fails the run, in every scenario but
//     one whose fault can take back the token counter's last advances
//     (postgres-async), where tokens, and so fencing, are not promised.
//   - token order: a hold that began acquiring after another was granted
//     must carry a higher token, and every hold must carry a token (token 0
//     means none). A violation fails the run. Read holds are apart: they
//     carry the lock's counter as it is, the last write's token (0 before
//     any write).
//   - stale reads: a read hold that began acquiring after a write hold was
//     granted must carry at least the write's token, so that readers see a
//     version no older than the last write before them (and so every write
//     that left before they began). A violation fails a run that promises
//     exclusion: a store that forgets its counter hands readers older
//     tokens, while its writers' tokens may still rise.
//   - linearizability: the history of Acquire (returning the token) and
//     Release operations, checked with porcupine against a sequential
//     lock of the run's kind whose tokens rise (a read must carry at least
//     the last write's token; a semaphore's holds whose attempts overlap
//     may share one, as a combinator hands them out). A lease lost (Unlock reports ErrLost or
//     ErrNotHeld) is a release somewhere between the acquisition and that
//     report; an Unlock whose outcome is unknown is a release at an unknown
//     time after it was called. The check runs only where the scenario
//     promises exclusion: elsewhere overlaps are expected and the history
//     is not the lock's. On failure porcupine's visualisation of the history
//     is written to an HTML file (in the test's artifact directory under
//     go test -artifacts, else in -torture.out) whose path the failure
//     names.
//   - Done: a lease whose deadline passed must close Lease.Done (or have
//     been renewed late); the table shows how late it closed at most.
//
// The checks themselves are tested on deliberately broken locks (one that
// grants everyone, one that hands every holder the same token, a
// read-write lock whose readers never see the writers, one whose reads
// carry no token, a semaphore that admits a permit too many): they must
// find the overlaps, the stale writes and reads, and the non-linearizable
// histories.
//
// # Promises
//
// Which configuration promises its lock's exclusion under which fault (a
// scenario that promises it fails on any overlap or stale read); rows are
// a Mutex's unless they name rw (an RWMutex) or semaphore:
//
//	configuration                  fault                            exclusion
//	redis: 1 server, no AOF        none                             yes
//	redis                          a client's connections cut       yes: the holder's lease ends, by its own clock, before the server frees the key
//	redis                          SIGSTOP/SIGCONT the server       yes: the server's expiry counts from when it ran the call
//	redis                          holder paused past its lease     yes for valid leases; the paused holder's late write must be rejected
//	redis                          lost unlocks: links cut,         yes: a Mutex gives back the hold its lost Unlock left behind rather than re-enter it,
//	                               replies stalled, or requests     and a release that arrives late names its hold by token (driver.HoldUnlocker), so it
//	                               held back until after the next   drops no later hold
//	                               Lock, during Unlock
//	redis                          rw: none, cut, SIGSTOP, holder   yes, for the reasons a mutex's are; the paused writer's late write must be rejected
//	                                 paused, lost unlocks
//	redis                          kill -9, restart (empty)         NO: the restarted server forgot the lock; fencing must catch the stale writes
//	redis                          rw: kill -9, restart (empty)     NO: the holds and the counter are forgotten (readers get older tokens); fencing must catch the stale writes
//	redis-aof: appendfsync always  kill -9, restart                 yes: the lock and its expiry survive the restart
//	redis-replica: primary and     failover: the primary killed     yes: every grant is on the replica; a Mutex gives back the released hold the promoted replica still has
//	  replica, acquisitions        after its replica missed a
//	  acknowledged by it           release, the replica promoted
//	redlock: 5 Redis, no AOF,      none, cut, SIGSTOP 1-2 members,  yes
//	  restart guard                holder paused
//	redlock                        lost unlocks on 1-5 members      yes: the Mutex gives back the holds left behind on any member, and the RedLock names
//	                                                                each member's hold by its token in every release
//	redlock                        kill -9 one member at a time     yes: a minority forgets, and a restarted member does not vote within the guard
//	redlock                        kill -9 three of five at once    yes: the restart guard keeps the forgetful majority out
//	redlock                        rw: none, cut, kill -9 one       yes: a read majority and a write majority share a member, and a restarted
//	                                 member at a time, lost unlocks   member does not vote within the guard
//	redlock-noguard                kill -9 three of five at once    NO: a forgetful majority grants the lock to a second owner
//	multilock: 3 Redis, no AOF     semaphore: none, cut             yes: a hold needs every member, and each member bounds the permits
//	mixed: RedLock of 2 Redis,     none; rotating faults, one       yes: one member of five is impaired at a time
//	  etcd, memcached, mem           member at a time (Redis killed,    and a restarted Redis waits out the restart guard
//	                                 memcached paused, etcd stopped,
//	                                 a client cut from one member)
//	mixed                          forgetful members: memcached     NO: a member that forgets a bare quorum's hold,
//	                                 restarted empty, mem clock jump  with no guard, frees the lock; fencing must catch it
//	etcd: 3 members                none, cut, member stop+restart   yes: leases survive a member's loss and are extended on leader change
//	etcd                           rw: none, cut                    yes: a cut-off holder's lease ends, by its own clock, before etcd's does
//	mem: clock driven in real time clock jumps forward              NO: the store ends leases early; fencing must catch the stale writes
//	postgres: 1 server, fsync and   none, cut, SIGSTOP, holder       yes: the server's lease begins after the holder's attempt, by the server's clock
//	  synchronous commits on         paused, lost unlocks
//	postgres                       kill -9 of every server process, yes: committed leases and the token sequence survive crash recovery
//	                                 restart
//	postgres-async:                kill -9, restart                 NO: the crash loses the last commits, leases and the sequence's last advances among them; tokens may repeat, so fencing is not promised either
//	  synchronous_commit=off
//
// The mixed RedLock has fencing members (Redis, mem) and members that
// cannot fence (etcd, memcached): an attempt whose quorum holds too few
// fencing members fails rather than grant a hold without a token, so every
// configuration must carry a token on every hold.
//
// In the lost-unlock and failover scenarios each client keeps one Mutex
// (or RWMutex, whose write holds then have one owner), and so one owner,
// for the whole run (elsewhere every acquisition takes a new handle): a
// store may then still have a hold that the client's last Unlock meant to
// end. A Mutex that re-entered that hold would report a hold count of
// two, which the client reports as a violation, and carry the old hold's
// token, which the token-order and linearizability checks catch. After a
// lost release of a write hold the client's next hold writes too, so that
// the release, if it arrives late, meets that hold: it must not drop it.
//
// # Running
//
// Without -torture.duration each scenario runs four seconds (the rotating,
// forgetful and read-write lost-unlock ones twelve, kill9-majority eight)
// and the whole package stays within a few minutes on two cores. For a
// long run pass, for example, -torture.duration=2m and a -timeout to
// match. TestMain prints the table of every run to standard
// output (go test shows it with -v, or when run in this directory), and
// writes it to table.txt in -torture.out (default: the system's temporary
// directory, distlock-torture).
package torture
