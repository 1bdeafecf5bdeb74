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
func TestALostMemberGrantIsReleasedByToken(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(3)
	rs := make([]*storetest.Releases, 3)
	bs := make([]driver.Backend, 3)
	for i, c := range stores.Clients() {
		rs[i] = storetest.NewReleases(c)
		bs[i] = rs[i]
	}
	rl := newRL(t, bs)
	owner := locker.NewOwner()

	rs[0].TimeoutNext(1)   // the attempt takes member 0, and its reply is lost
	rs[1].FailNext(1, nil) // member 1 is not asked
	_, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
	require.Error(t, err)
	assert.Equal(t, quorumtest.Repeat("", 3), stores.Holders(t, "k"), "the failed attempt was undone")
	tokens := rs[0].Seen()
	require.Len(t, tokens, 1, "member 0 was released once")
	assert.NotZero(t, tokens[0], "the lost grant's release names its hold")
	assert.Empty(t, rs[1].Seen(), "member 1 holds nothing")
}
