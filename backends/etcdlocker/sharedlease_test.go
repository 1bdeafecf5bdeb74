package etcdlocker_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/backends/etcdlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/locker"
)

// manualClock is a clock that stands still until the test moves it.
type manualClock struct {
	base   time.Time
	offset atomic.Int64
}

func newManualClock() *manualClock { return &manualClock{base: time.Now()} }

func (c *manualClock) now() time.Time            { return c.base.Add(time.Duration(c.offset.Load())) }
func (c *manualClock) advance(d time.Duration)   { c.offset.Add(int64(d)) }
func (c *manualClock) option() etcdlocker.Option { return etcdlocker.WithClock(c.now) }

// A shared lease counts from its grant: a hold on it reports in Validity
// how much of it is left when that is less than the lease asked for, and a
// lease past its window (a tenth of its length, at most a second) is not
// handed out any more.
func TestSharedLeaseValidity(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	clock := newManualClock()
	counter := newCallCounter()
	b := newClientBackend(t, counter.client(t, c), clock.option())
	lock := func(ttl time.Duration) driver.Grant {
		t.Helper()
		counter.reset()
		g, err := b.TryLock(critical(ctx), driver.Request{Key: "k", Owner: "o", TTL: ttl})
		require.NoError(t, err)
		require.True(t, g.Acquired)
		require.NoError(t, b.Unlock(ctx, "k", "o"))
		return g
	}

	g := lock(10 * time.Second)
	assert.Equal(t, 1, counter.critical()[grantMethod], "the first hold grants the lease")
	assert.Zero(t, g.Validity, "a lease granted during the attempt lasts the whole lease")
	require.Equal(t, 1, etcdlocker.SharedLeases(b, 10*time.Second))

	clock.advance(300 * time.Millisecond)
	g = lock(10 * time.Second)
	assert.Equal(t, map[string]int{txnMethod: 1}, counter.critical(), "the hold shares the lease")
	assert.Equal(t, 9700*time.Millisecond, g.Validity, "a lease granted 300 ms ago has 9.7 s of its 10 s left")

	// A lease asked for 9.5 s is 10 s long: 300 ms of age still leaves the
	// whole lease asked for.
	g = lock(9500 * time.Millisecond)
	assert.Equal(t, map[string]int{txnMethod: 1}, counter.critical(), "the hold shares the lease")
	assert.Zero(t, g.Validity, "the rounding covers the lease's age")

	clock.advance(1200 * time.Millisecond)
	g = lock(10 * time.Second)
	assert.Equal(t, 1, counter.critical()[grantMethod], "a lease past its window must not be shared: %v", counter.critical())
	assert.Zero(t, g.Validity)

	require.NoError(t, b.Close())
	assertNoLeases(ctx, t, c)
}

// Refused attempts write nothing and share one lease: a waiter polling a
// held lock grants no lease per attempt.
func TestRefusedAttemptsShareALease(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	counter := newCallCounter()
	holder := newBackend(t, c)
	waiter := newClientBackend(t, counter.client(t, c), newManualClock().option())

	held, err := holder.TryLock(ctx, driver.Request{Key: "k", Owner: "holder", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, held.Acquired)
	const attempts = 20
	for range attempts {
		g, err := waiter.TryLock(ctx, driver.Request{Key: "k", Owner: "waiter", TTL: time.Minute})
		require.NoError(t, err)
		require.False(t, g.Acquired)
		assert.Positive(t, g.Remaining, "the holder's remaining lease")
	}
	total := counter.total()
	assert.Equal(t, 1, total[grantMethod], "%d refused attempts share one lease: %v", attempts, total)
	assert.Zero(t, total[revokeMethod], "refused attempts revoke nothing: %v", total)

	st, err := holder.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "holder", st.Owner, "the refused attempts changed nothing")
	assert.Equal(t, held.Token, st.Token)
	require.NoError(t, holder.Unlock(ctx, "k", "holder"))
	counter.reset()
	g, err := waiter.TryLock(critical(ctx), driver.Request{Key: "k", Owner: "waiter", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired, "the waiter takes the released lock")
	assert.Equal(t, map[string]int{txnMethod: 1}, counter.critical(), "on the lease its refused attempts shared")
	require.NoError(t, waiter.Unlock(ctx, "k", "waiter"))

	require.NoError(t, waiter.Close())
	require.NoError(t, holder.Close())
	assertNoLeases(ctx, t, c)
}

// keyLease returns the lease the etcd key k is bound to, and its value.
func keyLease(ctx context.Context, t *testing.T, cli *clientv3.Client, k string) (clientv3.LeaseID, string) {
	t.Helper()
	resp, err := cli.Get(ctx, k)
	require.NoError(t, err)
	require.Len(t, resp.Kvs, 1, "key %s", k)
	return clientv3.LeaseID(resp.Kvs[0].Lease), string(resp.Kvs[0].Value)
}

// leaseLeft returns the seconds lease id has left, or -1 when it is gone.
func leaseLeft(ctx context.Context, t *testing.T, cli *clientv3.Client, id clientv3.LeaseID) int64 {
	t.Helper()
	resp, err := cli.TimeToLive(ctx, id)
	require.NoError(t, err)
	return resp.TTL
}

// Keys locked together share a lease, which no single key's Unlock,
// ForceUnlock or Expire renews or revokes: every other key on it stays held
// as long as it was going to. Expire moves its key to a lease of its own.
// Once no key is on it and it is no longer handed out, the backend revokes
// it.
func TestSharedLeaseOutlivesEachKey(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	clock := newManualClock()
	b, err := etcdlocker.New(c.Client(t), clock.option())
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	other := newBackend(t, c)
	cli := c.Client(t)

	for _, k := range []string{"a", "b", "c", "d"} {
		g, err := b.TryLock(ctx, driver.Request{Key: k, Owner: "o", TTL: 30 * time.Second})
		require.NoError(t, err)
		require.True(t, g.Acquired)
	}
	shared, value := keyLease(ctx, t, cli, "distlock/a")
	assert.True(t, strings.HasPrefix(value, "distlock1 shared\n"), "the value says the lease is shared: %q", value)
	for _, k := range []string{"b", "c", "d"} {
		id, _ := keyLease(ctx, t, cli, "distlock/"+k)
		require.Equal(t, shared, id, "keys locked together share the lease")
	}
	before := leaseLeft(ctx, t, cli, shared)

	require.NoError(t, b.Unlock(ctx, "a", "o"))
	ok, err := b.ForceUnlock(ctx, "b")
	require.NoError(t, err)
	require.True(t, ok)
	time.Sleep(1100 * time.Millisecond) // so that a renewal would show
	require.NoError(t, b.Expire(ctx, "c", "o", 30*time.Second))
	own, value := keyLease(ctx, t, cli, "distlock/c")
	assert.NotEqual(t, shared, own, "Expire moves the key to a lease of its own")
	assert.True(t, strings.HasPrefix(value, "distlock1\n"), "a lease of the key's own: %q", value)
	require.NoError(t, b.Expire(ctx, "c", "o", 30*time.Second), "a lease of its own is renewed in place")
	id, _ := keyLease(ctx, t, cli, "distlock/c")
	assert.Equal(t, own, id)
	// Re-entry moves the key back to a shared lease; its own lease goes.
	g, err := b.TryLock(ctx, driver.Request{Key: "c", Owner: "o", TTL: 30 * time.Second})
	require.NoError(t, err)
	require.Equal(t, 2, g.Holds)
	id, _ = keyLease(ctx, t, cli, "distlock/c")
	assert.Equal(t, shared, id)
	require.Eventually(t, func() bool { return leaseLeft(ctx, t, cli, own) < 0 }, 10*time.Second, 10*time.Millisecond,
		"the key's own lease must be revoked once the key left it")
	require.NoError(t, b.Expire(ctx, "c", "o", 30*time.Second))
	own, _ = keyLease(ctx, t, cli, "distlock/c")
	require.NotEqual(t, shared, own)

	left := leaseLeft(ctx, t, cli, shared)
	assert.Positive(t, left, "the shared lease survives the unlock, force unlock and move of its keys")
	assert.Less(t, left, before, "nothing renewed the shared lease")
	st, err := other.Inspect(ctx, "d")
	require.NoError(t, err)
	assert.True(t, st.Held, "the key left on the shared lease stays held")

	// The backend stops handing the lease out; once its last key is
	// released, the lease is revoked.
	clock.advance(5 * time.Second)
	g, err = b.TryLock(ctx, driver.Request{Key: "e", Owner: "o", TTL: 30 * time.Second})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	id, _ = keyLease(ctx, t, cli, "distlock/e")
	assert.NotEqual(t, shared, id, "a lease past its window is not handed out")
	assert.Positive(t, leaseLeft(ctx, t, cli, shared), "a key is still on the old lease")
	require.NoError(t, b.Unlock(ctx, "d", "o"))
	require.Eventually(t, func() bool { return leaseLeft(ctx, t, cli, shared) < 0 }, 10*time.Second, 10*time.Millisecond,
		"a lease no key is on any more must be revoked")

	for _, k := range []string{"c", "c", "e"} {
		require.NoError(t, b.Unlock(ctx, k, "o"))
	}
	require.NoError(t, b.Close())
	require.NoError(t, other.Close())
	assertNoLeases(ctx, t, c)
}

// Another backend that deletes a key on a shared lease cannot know which
// keys share it: it lets the lease be, and the other keys stay held. The
// backend that granted the lease, not knowing that key is gone, leaves the
// lease to run out instead of revoking it.
func TestForeignForceUnlockLeavesSharedLease(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b, err := etcdlocker.New(c.Client(t), newManualClock().option())
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	other := newBackend(t, c)
	cli := c.Client(t)
	for _, k := range []string{"x", "y"} {
		g, err := b.TryLock(ctx, driver.Request{Key: k, Owner: "o", TTL: time.Minute})
		require.NoError(t, err)
		require.True(t, g.Acquired)
	}
	shared, _ := keyLease(ctx, t, cli, "distlock/x")

	ok, err := other.ForceUnlock(ctx, "x")
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, other.Close()) // its background revocations are done
	st, err := b.Inspect(ctx, "y")
	require.NoError(t, err)
	assert.True(t, st.Held, "a force unlock of one key must leave the key sharing its lease")
	assert.Positive(t, leaseLeft(ctx, t, cli, shared))

	require.NoError(t, b.Unlock(ctx, "y", "o"))
	require.NoError(t, b.Close())
	assert.Positive(t, leaseLeft(ctx, t, cli, shared), "as far as b knows, x may still be on the lease")
}

// Unlock guards its write with the revision of the backend's own last write
// of the key; when the key changed since, elsewhere, it must find out and
// act on the key as it is, never on the one it remembers. No lease it lets
// go of is another hold's.
func TestUnlockAfterChangeElsewhere(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	a, b := newBackend(t, c), newBackend(t, c)

	// The same owner re-enters through another client, which moves the key
	// to a lease of its own.
	first, err := a.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, first.Acquired)
	again, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.Equal(t, 2, again.Holds)
	require.NoError(t, a.Unlock(ctx, "k", "o"), "a's memory of the key is stale, not wrong")
	st, err := b.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.True(t, st.Held)
	assert.Equal(t, 1, st.Holds, "one of two holds dropped")
	require.NoError(t, b.Unlock(ctx, "k", "o"))
	st, err = b.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.False(t, st.Held)

	// The lock is forced away and taken by another owner: the first
	// owner's Unlock must leave it alone.
	mine, err := a.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, mine.Acquired)
	forced, err := b.ForceUnlock(ctx, "k")
	require.NoError(t, err)
	require.True(t, forced)
	theirs, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "p", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, theirs.Acquired)
	assert.ErrorIs(t, a.Unlock(ctx, "k", "o"), locker.ErrNotHeld)
	assert.ErrorIs(t, a.Expire(ctx, "k", "o", time.Minute), locker.ErrNotHeld)

	// Close finishes a's background revocations: none may touch p's lease.
	require.NoError(t, a.Close())
	st, err = b.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "p", st.Owner, "another owner's hold survives a stale Unlock")
	assert.Equal(t, theirs.Token, st.Token)
	assert.Greater(t, st.Remaining, 30*time.Second, "p's lease must not have been revoked")
	require.NoError(t, b.Expire(ctx, "k", "p", time.Minute), "p's lease must still be renewable")
	require.NoError(t, b.Unlock(ctx, "k", "p"))
}

// A lock attempt whose reply was lost may have bound its key to the shared
// lease: the backend must never revoke that lease, not after its other keys
// are released, not on Close.
func TestUnknownOutcomePinsSharedLease(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	p := proxied(t, c)
	cli, err := clientv3.New(etcdtest.ClientConfig("http://" + p.Addr()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = cli.Close() })
	clock := newManualClock()
	b, err := etcdlocker.New(cli, clock.option())
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	direct := c.Client(t)

	g, err := b.TryLock(ctx, driver.Request{Key: "a", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	shared, _ := keyLease(ctx, t, direct, "distlock/a")

	p.StallReplies() // the server runs the transaction; its reply is lost
	_, err = b.TryLock(testContext(t, 700*time.Millisecond), driver.Request{Key: "b", Owner: "o", TTL: time.Minute})
	assertUnknown(t, err, "TryLock")
	p.Heal()
	id, _ := keyLease(ctx, t, direct, "distlock/b")
	require.Equal(t, shared, id, "the lost attempt bound its key to the shared lease")

	require.NoError(t, b.Unlock(ctx, "a", "o"))
	clock.advance(10 * time.Second) // the lease is no longer handed out
	g, err = b.TryLock(ctx, driver.Request{Key: "c", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	require.NoError(t, b.Unlock(ctx, "c", "o"))
	require.NoError(t, b.Close())
	assert.Positive(t, leaseLeft(ctx, t, direct, shared), "a lease a key may be bound to must not be revoked")
	resp, err := direct.Get(ctx, "distlock/b")
	require.NoError(t, err)
	assert.Len(t, resp.Kvs, 1, "the lost attempt's lock stays until its lease runs out")
}
