package redlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// TestALostMemberGrantIsReleasedByToken: a member whose grant's reply was
// lost holds the lock under a token the RedLock never heard. Its release,
// which undoes the failed attempt, names that hold by the token the member
// reports: a release naming the owner alone, reaching the member late,
// could drop the owner's next hold there.
//
// So on the RedLock's views of shared locks too, by the token the member
// reports for the owner's hold in the view's mode.
func TestALostMemberGrantIsReleasedByToken(t *testing.T) {
	for _, sh := range []driver.Share{{}, {Mode: driver.Write}, {Mode: driver.Permits, Limit: 1, Permits: 1}} {
		t.Run(shareName(sh), func(t *testing.T) {
			ctx := context.Background()
			stores := quorumtest.NewMem(3)
			rs := make([]*storetest.Releases, 3)
			bs := make([]driver.Backend, 3)
			for i, c := range stores.Clients() {
				rs[i] = storetest.NewReleases(c)
				bs[i] = rs[i]
			}
			b := newRL(t, bs)
			if sh.Mode != 0 {
				v, err := b.(driver.Sharer).Share(sh)
				require.NoError(t, err)
				b = v
			}
			owner := locker.NewOwner()

			rs[0].TimeoutNext(1)   // the attempt takes member 0, and its reply is lost
			rs[1].FailNext(1, nil) // member 1 is not asked
			_, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
			require.Error(t, err)
			var member driver.Backend = rs[0].Client
			if sh.Mode != 0 {
				member, err = rs[0].Client.Share(sh)
				require.NoError(t, err)
			}
			g, err := member.TryLock(ctx, driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Minute})
			require.NoError(t, err)
			assert.True(t, g.Acquired, "the failed attempt was undone on member 0")
			tokens := rs[0].Seen()
			require.Len(t, tokens, 1, "member 0 was released once")
			assert.NotZero(t, tokens[0], "the lost grant's release names its hold")
			assert.Empty(t, rs[1].Seen(), "member 1 holds nothing")
		})
	}
}

// shareName names a view of a test, "mutex" for none.
func shareName(sh driver.Share) string {
	if sh.Mode == 0 {
		return "mutex"
	}
	return sh.Mode.String()
}

// TestAReadReleaseInspectsNothing: a read hold of a lock never written
// carries token 0, which is no sign of a lost reply: its release is one
// Unlock per member, with no Inspect first.
func TestAReadReleaseInspectsNothing(t *testing.T) {
	ctx := context.Background()
	_, cs, rl := memRL(t, 3)
	read, err := rl.(driver.Sharer).Share(driver.Share{Mode: driver.Read})
	require.NoError(t, err)
	owner := locker.NewOwner()
	g, err := read.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	require.Zero(t, g.Token, "a lock never written")
	require.NoError(t, read.Unlock(ctx, "k", owner))
	for i, c := range cs {
		assert.Zero(t, c.Calls("inspect"), "member %d", i)
		assert.Equal(t, 1, c.Calls("unlock"), "member %d", i)
	}
}
