// Package pgtest starts real PostgreSQL servers for tests (initdb and
// postgres from Debian's postgresql package), each on a free loopback port
// and in a temporary directory of its own, and injects real faults into
// them: kill -9 of every server process, pause, restart on the same port.
//
//	srv := pgtest.Start(t)                    // fsync off: fast, survives kill -9 all the same
//	durable := pgtest.Start(t, pgtest.WithFsync())
//	pool, _ := pgxpool.New(ctx, srv.URL("postgres"))
//	srv.Stop(); srv.Cont()                    // SIGSTOP, SIGCONT to every server process
//	srv.Restart()                             // SIGKILL, then the same port and data again
//
// PostgreSQL refuses to run as root, and CI runs the tests as root: there
// the servers run as an unprivileged user, "postgres" if it exists, else one
// the package creates (useradd --system), else nobody.
//
// The superuser "postgres" connects from loopback without a password; every
// other role needs its password (scram-sha-256), so tests can check what a
// wrong one does. When the binaries are missing, the test is skipped with an
// install hint, or fails when the CI environment variable is set: a CI run
// must not pass by skipping. The package imports no client library; tests
// make their own clients from Server.URL.
package pgtest
