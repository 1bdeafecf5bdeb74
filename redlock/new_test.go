package redlock_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/multilock"
	"github.com/distlock/distlock/redlock"
)

func TestNewRejectsBadConfiguration(t *testing.T) {
	shared := memlocker.NewStore()
	c := shared.Client()
	other, third := memlocker.New(), memlocker.New()
	nested, err := multilock.New([]driver.Backend{shared.Client(), memlocker.New()})
	require.NoError(t, err)

	cases := []struct {
		name    string
		members []driver.Backend
		opts    []combine.Option
	}{
		{"no members", nil, nil},
		{"one member", []driver.Backend{c}, nil},
		{"nil member", []driver.Backend{c, nil, other}, nil},
		{"typed nil member", []driver.Backend{c, (*memlocker.Client)(nil), other}, nil},
		{"the same client twice", []driver.Backend{c, c, other}, nil},
		{"two clients of one store", []driver.Backend{c, shared.Client(), other}, nil},
		{"a store shared with a nested combinator", []driver.Backend{c, nested, other}, nil},
		{"zero member timeout", []driver.Backend{c, other, third}, []combine.Option{combine.WithMemberTimeout(0)}},
		{"negative drift factor", []driver.Backend{c, other, third}, []combine.Option{combine.WithDriftFactor(-0.01)}},
		{"drift factor of one half", []driver.Backend{c, other, third}, []combine.Option{combine.WithDriftFactor(0.5)}},
		{"negative restart guard", []driver.Backend{c, other, third}, []combine.Option{combine.WithRestartGuard(-1)}},
		{"nil clock", []driver.Backend{c, other, third}, []combine.Option{combine.WithClock(nil)}},
		{"nil option", []driver.Backend{c, other, third}, []combine.Option{nil}},
	}
	for _, tc := range cases {
		_, err := redlock.New(tc.members, tc.opts...)
		assert.ErrorIs(t, err, locker.ErrInvalid, tc.name)
	}
}

// TestQuorumSize: N members need N/2+1 of them: the lock is taken while
// another owner holds N-(N/2+1) members, and refused when it holds one
// more.
func TestQuorumSize(t *testing.T) {
	ctx := context.Background()
	for n, want := range map[int]int{2: 2, 3: 2, 4: 3, 5: 3, 6: 4, 7: 4} {
		stores, _, rl := memRL(t, n)
		assert.Len(t, strings.Split(fmt.Sprint(rl), ", "), n, "members: %d", n)
		others := make([]int, 0, n)
		for i := range n - want {
			others = append(others, i)
		}
		stores.Take(t, "k", "x", time.Minute, others...)
		g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
		require.NoError(t, err)
		assert.True(t, g.Acquired, "members: %d, %d held by another", n, n-want)
		require.NoError(t, rl.Unlock(ctx, "k", "o"))
		stores.Take(t, "k", "x", time.Minute, n-want)
		g, err = rl.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
		require.NoError(t, err)
		assert.False(t, g.Acquired, "members: %d, %d held by another", n, n-want+1)
	}
}
