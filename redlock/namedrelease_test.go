package redlock_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
)

// releases is a mem client that records how each release named its hold:
// by token (UnlockHold), or by owner alone (Unlock, recorded as 0).
type releases struct {
	*memlocker.Client
	mu     sync.Mutex
	tokens []uint64
}

func (r *releases) record(token uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tokens = append(r.tokens, token)
}

func (r *releases) Unlock(ctx context.Context, key, owner string) error {
	r.record(0)
	return r.Client.Unlock(ctx, key, owner)
}

func (r *releases) UnlockHold(ctx context.Context, key, owner string, token uint64) error {
	r.record(token)
	return r.Client.UnlockHold(ctx, key, owner, token)
}

func (r *releases) seen() []uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]uint64(nil), r.tokens...)
}

// TestALostMemberGrantIsReleasedByToken: a member whose grant's reply was
// lost holds the lock under a token the RedLock never heard. Its release,
// which undoes the failed attempt, names that hold by the token the member
// reports: a release naming the owner alone, reaching the member late,
// could drop the owner's next hold there.
func TestALostMemberGrantIsReleasedByToken(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(3)
	rs := make([]*releases, 3)
	bs := make([]driver.Backend, 3)
	for i, c := range stores.Clients() {
		rs[i] = &releases{Client: c}
		bs[i] = rs[i]
	}
	rl := newRL(t, bs)
	owner := locker.NewOwner()

	rs[0].TimeoutNext(1)   // the attempt takes member 0, and its reply is lost
	rs[1].FailNext(1, nil) // member 1 is not asked
	_, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
	require.Error(t, err)
	assert.Equal(t, quorumtest.Repeat("", 3), stores.Holders(t, "k"), "the failed attempt was undone")
	tokens := rs[0].seen()
	require.Len(t, tokens, 1, "member 0 was released once")
	assert.NotZero(t, tokens[0], "the lost grant's release names its hold")
	assert.Empty(t, rs[1].seen(), "member 1 holds nothing")
}
