// Package redistest starts real redis-server processes for tests: single
// servers, a master with replicas, Sentinels and Redis Clusters, each on
// free loopback ports and in a temporary directory of its own, and injects
// real faults into them (kill, pause, restart on the same port).
//
//	srv := redistest.Start(t)                       // no persistence
//	durable := redistest.Start(t, redistest.WithAppendOnly())
//	replica := redistest.StartReplica(t, srv)       // synced when it returns
//	sentinel := redistest.StartSentinel(t, srv, "mymaster")
//	cluster := redistest.StartCluster(t, 3)         // cluster_state:ok when it returns
//	client := redis.NewClient(&redis.Options{Addr: srv.Addr()})
//	srv.Stop(); srv.Cont()                          // SIGSTOP, SIGCONT
//	srv.Restart()                                   // SIGKILL, then the same port again
//
// Every server a test starts is killed when the test ends (t.Cleanup), and
// by the kernel if the test process dies. Servers run without persistence
// (--save "" --appendonly no) unless WithAppendOnly is given.
//
// When the redis-server binary is missing, the test is skipped with an
// install hint, or fails when the CI environment variable is set: a CI run
// must not pass by skipping.
//
// The package speaks just enough of the Redis protocol (Server.Do) to check
// readiness and state, and imports no client library; tests make their own
// clients from Server.Addr and Cluster.Addrs.
package redistest
