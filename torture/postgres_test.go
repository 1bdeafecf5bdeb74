package torture

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	_ "github.com/distlock/distlock/backends/pglocker" // postgres://
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/pgtest"
)

// The PostgreSQL configurations: a durable server (fsync and synchronous
// commits on, PostgreSQL's defaults), and one whose commits return before
// their WAL is written (synchronous_commit=off), which a crash of the
// server's processes makes forget its last commits.
var (
	durablePostgres = &config{name: "postgres", deploy: func(t *testing.T) *deployment {
		return pgDeployment(t, pgtest.Start(t, pgtest.WithFsync()))
	}}

	asyncPostgres = &config{name: "postgres-async", deploy: func(t *testing.T) *deployment {
		return pgDeployment(t, pgtest.Start(t, pgtest.WithFsync(), pgtest.WithSetting("synchronous_commit=off")))
	}}
)

func pgDeployment(t *testing.T, srv *pgtest.Server) *deployment {
	d := &deployment{lease: redisLease, pg: srv}
	d.newBackend = func(t *testing.T, l *links, i int) driver.Backend { return d.pgBackend(t, l, i) }
	return d
}

// pgBackend is client i's backend on the PostgreSQL server, through a
// proxy, opened from a URL as a program would.
func (d *deployment) pgBackend(t *testing.T, l *links, i int) driver.Backend {
	t.Helper()
	p := l.proxy(t, i, d.pg.Addr())
	b, err := driver.Open(context.Background(), d.pg.URL(p.Addr())+"&connect_timeout=1&table=torture")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var (
	// pgStopFault pauses every process of the PostgreSQL server with
	// SIGSTOP past a lease and resumes them.
	pgStopFault = fault{name: "sigstop", inject: func(_ *testing.T, d *deployment, r *run, until time.Time) {
		for between(300*time.Millisecond, 600*time.Millisecond, until) {
			whileHeld(d, r)
			d.pg.Stop()
			r.strike("server stopped")
			time.Sleep(outage(d))
			d.pg.Cont()
		}
	}}

	// pgKillFault kills every process of the PostgreSQL server with
	// SIGKILL, as a crash would, and restarts it from its data directory
	// (crash recovery replays the WAL) after a short downtime.
	pgKillFault = fault{name: "kill9", inject: func(_ *testing.T, d *deployment, r *run, until time.Time) {
		for between(400*time.Millisecond, 800*time.Millisecond, until) {
			whileHeld(d, r)
			d.pg.Kill()
			r.strike("server killed")
			time.Sleep(time.Duration(20+rand.IntN(150)) * time.Millisecond)
			d.pg.Restart()
		}
	}}
)
