package torture

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/tcpproxy"
)

// replicaAckTimeout bounds how long an acquisition waits for the replica
// to acknowledge it (WithReplicaAck): the replica answers within a
// millisecond, unless it is cut off from the primary.
const replicaAckTimeout = 100 * time.Millisecond

// syncTimeout bounds how long a restarted server takes to follow the
// primary.
const syncTimeout = 15 * time.Second

// replicated is a Redis primary and one replica without persistence.
// Clients talk to whichever server is primary now and have every
// acquisition acknowledged by the replica (WithReplicaAck), so that a
// granted hold survives a failover; releases are not acknowledged, so a
// replica cut off from its primary can miss one. The replica follows the
// primary through a proxy (a feed), which a fault cuts.
var replicated = &config{name: "redis-replica", deploy: func(t *testing.T) *deployment {
	d := &deployment{lease: redisLease, redis: []*redistest.Server{redistest.Start(t), redistest.Start(t)}}
	for _, s := range d.redis {
		p, err := tcpproxy.Start(s.Addr())
		if err != nil {
			t.Fatalf("feed from %s: %v", s.Addr(), err)
		}
		t.Cleanup(func() { _ = p.Close() })
		d.feeds = append(d.feeds, p)
	}
	d.follow(t, 1, 0)
	d.newBackend = d.replicatedBackend
	return d
}}

// replicatedBackend is client i's backend on the replicated pair: a proxy
// of its own to each server, and new connections always to the primary of
// the moment, as through an address that a failover moves.
func (d *deployment) replicatedBackend(t *testing.T, l *links, i int) driver.Backend {
	t.Helper()
	var ps []*tcpproxy.Proxy
	for _, s := range d.redis {
		ps = append(ps, l.proxy(t, i, s.Addr()))
	}
	dialer := net.Dialer{Timeout: 300 * time.Millisecond}
	c := redis.NewClient(&redis.Options{
		Addr: ps[0].Addr(),
		Dialer: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, ps[d.primary.Load()].Addr())
		},
		ContextTimeoutEnabled: true,
		MaxRetries:            -1,
	})
	b, err := redislocker.New(c, redislocker.WithOwnedClient(), redislocker.WithPrefix("torture"),
		redislocker.WithReplicaAck(1, replicaAckTimeout))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// follow makes server replica a replica of server primary, through the
// primary's feed, and waits until the primary counts it for WAIT.
func (d *deployment) follow(t *testing.T, replica, primary int) {
	t.Helper()
	host, port, err := net.SplitHostPort(d.feeds[primary].Addr())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.redis[replica].Do("REPLICAOF", host, port); err != nil {
		t.Fatalf("REPLICAOF on server %d: %v", replica, err)
	}
	c := redis.NewClient(&redis.Options{Addr: d.redis[primary].Addr()})
	defer c.Close()
	// The replica counts only once it has synced and acknowledges what
	// the primary streams: probe with a write of the probe's own.
	const probe = "torture:replication-probe"
	ctx := context.Background()
	for give := time.Now().Add(syncTimeout); ; time.Sleep(20 * time.Millisecond) {
		wait := redis.NewIntCmd(ctx, "wait", 1, 200)
		_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, probe, "1", 0)
			_ = p.Process(ctx, wait)
			p.Del(ctx, probe)
			return nil
		})
		if err == nil && wait.Val() >= 1 {
			return
		}
		if time.Now().After(give) {
			t.Fatalf("server %d does not follow server %d within %v (last error: %v)", replica, primary, syncTimeout, err)
		}
	}
}

// failoverFault promotes a replica that missed the primary's last
// writes: once a holder is inside, the replica's feed is cut; the holder
// leaves and releases on the primary alone; the primary is killed and the
// replica, which still has the released hold, promoted. The old primary
// comes back empty and follows the new one. Holds granted before the cut
// are on the replica (acknowledged), and none can be granted after it (no
// acknowledgement), so exclusion holds; the holder that released must not
// re-enter its resurrected hold when it locks its Mutex again.
var failoverFault = fault{name: "failover", keepMutex: true, inject: func(t *testing.T, d *deployment, r *run, until time.Time) {
	resurrected := 0
	defer func() {
		if resurrected == 0 {
			r.violation("no failover resurrected a released hold: the scenario tested nothing")
		}
	}()
	for between(400*time.Millisecond, 800*time.Millisecond, until) {
		p := int(d.primary.Load())
		q := 1 - p
		whileHeld(d, r)
		d.feeds[p].Cut()
		for give := time.Now().Add(d.lease); r.res.held() && time.Now().Before(give); {
			time.Sleep(time.Millisecond)
		}
		// The holder left the resource; give its Unlock the moment it
		// takes to reach the primary.
		time.Sleep(20 * time.Millisecond)
		d.redis[p].Kill()
		if _, err := d.redis[q].Do("REPLICAOF", "NO", "ONE"); err != nil {
			t.Fatalf("promoting server %d: %v", q, err)
		}
		came := "no hold came back"
		if d.heldOn(t, q, r.key) {
			resurrected++
			came = "a released hold came back"
		}
		d.primary.Store(int32(q))
		r.strike("server %d killed after its replica missed its last writes; server %d promoted: %s", p, q, came)
		d.feeds[p].Heal()
		d.redis[p].Restart()
		d.follow(t, p, q)
	}
}}

// heldOn reports whether server i has the lock held, by anyone.
func (d *deployment) heldOn(t *testing.T, i int, key string) bool {
	t.Helper()
	b, err := redislocker.New(redis.NewClient(&redis.Options{Addr: d.redis[i].Addr()}),
		redislocker.WithOwnedClient(), redislocker.WithPrefix("torture"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	st, err := b.Inspect(context.Background(), key)
	if err != nil {
		t.Fatalf("inspecting server %d: %v", i, err)
	}
	return st.Held
}
