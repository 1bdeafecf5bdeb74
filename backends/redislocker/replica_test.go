package redislocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// assertNoSentinel checks that err, an unknown outcome or a replica
// failure, is none of the errors callers branch on.
func assertNoSentinel(t *testing.T, err error) {
	t.Helper()
	assert.True(t, locker.IsUnknown(err), "no sentinel expected: %v", err)
}

func TestReplicaAck(t *testing.T) {
	master := redistest.Start(t)
	replica := redistest.StartReplica(t, master)
	ctx := context.Background()
	b := newBackend(t, master.Addr(), redislocker.WithReplicaAck(1, 300*time.Millisecond))
	inspector := newBackend(t, master.Addr())

	o := locker.NewOwner()
	g, err := b.TryLock(ctx, driver.Request{Key: "acked", Owner: o, TTL: time.Minute})
	require.NoError(t, err, "one replica is up and acknowledges")
	require.True(t, g.Acquired)
	info, err := replica.Info("replication")
	require.NoError(t, err)
	assert.Equal(t, "slave", info["role"])
	onReplica, _ := readState(t, replica, "distlock:{acked}")
	assert.Equal(t, o, onReplica.Owner, "the acknowledged hold is on the replica")

	// A paused replica acknowledges nothing: the hold is given back.
	replica.Stop()
	o2 := locker.NewOwner()
	_, err = b.TryLock(ctx, driver.Request{Key: "unacked", Owner: o2, TTL: time.Minute})
	require.Error(t, err)
	assert.ErrorIs(t, err, redislocker.ErrReplicaAck)
	assertNoSentinel(t, err)
	st, err := inspector.Inspect(ctx, "unacked")
	require.NoError(t, err)
	assert.False(t, st.Held, "an unacknowledged hold must be released")

	m, err := storetest.Of(t, b).Mutex("unacked-mutex")
	require.NoError(t, err)
	_, err = m.TryLock(ctx, locker.WithLease(time.Minute))
	assert.ErrorIs(t, err, redislocker.ErrReplicaAck, "the Mutex passes the replica failure on")
	assert.NotErrorIs(t, err, locker.ErrNotAcquired)

	// A refused attempt is not a replica failure.
	_, err = inspector.TryLock(ctx, driver.Request{Key: "taken", Owner: o, TTL: time.Minute})
	require.NoError(t, err)
	g, err = b.TryLock(ctx, driver.Request{Key: "taken", Owner: o2, TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, g.Acquired)

	replica.Cont()
	g, err = b.TryLock(ctx, driver.Request{Key: "after-cont", Owner: o2, TTL: time.Minute})
	require.NoError(t, err, "acknowledgements resume with the replica")
	assert.True(t, g.Acquired)

	// A grant counts only once replicas have it: the turn only wakes the
	// waiter, whose claim waits for them.
	turns := make(chan driver.Grant, 8)
	stop, err := b.WatchTurn(ctx, "handed", o2, func(g driver.Grant) { turns <- g })
	require.NoError(t, err)
	defer stop()
	<-turns // the subscription is active
	holder := locker.NewOwner()
	_, err = inspector.TryLock(ctx, driver.Request{Key: "handed", Owner: holder, TTL: time.Minute})
	require.NoError(t, err)
	g, err = b.TryLock(ctx, driver.Request{Key: "handed", Owner: o2, TTL: time.Minute, Patience: time.Minute})
	require.NoError(t, err)
	require.False(t, g.Acquired)
	require.NoError(t, inspector.Unlock(ctx, "handed", holder))
	assert.Equal(t, driver.Grant{}, <-turns, "with replica acknowledgement a turn carries no grant")
	g, err = b.TryLock(ctx, driver.Request{Key: "handed", Owner: o2, TTL: time.Minute, Patience: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, 1, g.Holds, "the acknowledged claim of the grant")
}

// TestFailoverKeepsAckedLock promotes the replica after an acknowledged
// acquisition: the new master has the lock and its token counter.
func TestFailoverKeepsAckedLock(t *testing.T) {
	master := redistest.Start(t)
	replica := redistest.StartReplica(t, master)
	ctx := context.Background()
	b := newBackend(t, master.Addr(), redislocker.WithReplicaAck(1, 2*time.Second))

	o := locker.NewOwner()
	g, err := b.TryLock(ctx, driver.Request{Key: "failover", Owner: o, TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)

	master.Kill()
	_, err = replica.Do("REPLICAOF", "NO", "ONE")
	require.NoError(t, err)
	promoted := newBackend(t, replica.Addr())

	st, err := promoted.Inspect(ctx, "failover")
	require.NoError(t, err)
	assert.True(t, st.Held, "the acknowledged lock survives the failover")
	assert.Equal(t, o, st.Owner)
	assert.Equal(t, g.Token, st.Token)
	other, err := promoted.TryLock(ctx, driver.Request{Key: "failover", Owner: locker.NewOwner(), TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, other.Acquired, "another owner is refused on the new master")

	require.NoError(t, promoted.Unlock(ctx, "failover", o))
	next, err := promoted.TryLock(ctx, driver.Request{Key: "failover", Owner: locker.NewOwner(), TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, next.Acquired)
	assert.Greater(t, next.Token, g.Token, "tokens keep rising on the new master")
}

// TestReplicaAckOnCluster asks for a replica on a Cluster that has none:
// the acquisition goes to the slot's master and is given back.
func TestReplicaAckOnCluster(t *testing.T) {
	cluster := redistest.StartCluster(t, 3)
	ctx := context.Background()
	client := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cluster.Addrs(), ContextTimeoutEnabled: true})
	b, err := redislocker.New(client, redislocker.WithOwnedClient(), redislocker.WithReplicaAck(1, 50*time.Millisecond))
	require.NoError(t, err)
	defer b.Close()
	plain := newClusterBackend(t, cluster.Addrs())
	for _, key := range []string{"a", "b", "c", "{odd}"} {
		_, err := b.TryLock(ctx, driver.Request{Key: key, Owner: locker.NewOwner(), TTL: time.Minute})
		assert.ErrorIs(t, err, redislocker.ErrReplicaAck, "key %q", key)
		st, err := plain.Inspect(ctx, key)
		require.NoError(t, err)
		assert.False(t, st.Held, "key %q: the unacknowledged hold was given back", key)
	}
}
