package redlock_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
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
		opts    []redlock.Option
	}{
		{"no members", nil, nil},
		{"one member", []driver.Backend{c}, nil},
		{"nil member", []driver.Backend{c, nil, other}, nil},
		{"typed nil member", []driver.Backend{c, (*memlocker.Client)(nil), other}, nil},
		{"the same client twice", []driver.Backend{c, c, other}, nil},
		{"two clients of one store", []driver.Backend{c, shared.Client(), other}, nil},
		{"a store shared with a nested combinator", []driver.Backend{c, nested, other}, nil},
		{"zero member timeout", []driver.Backend{c, other, third}, []redlock.Option{redlock.WithMemberTimeout(0)}},
		{"negative drift factor", []driver.Backend{c, other, third}, []redlock.Option{redlock.WithDriftFactor(-0.01)}},
		{"drift factor of one half", []driver.Backend{c, other, third}, []redlock.Option{redlock.WithDriftFactor(0.5)}},
		{"negative restart guard", []driver.Backend{c, other, third}, []redlock.Option{redlock.WithRestartGuard(-1)}},
		{"nil clock", []driver.Backend{c, other, third}, []redlock.Option{redlock.WithClock(nil)}},
		{"nil option", []driver.Backend{c, other, third}, []redlock.Option{nil}},
	}
	for _, tc := range cases {
		_, err := redlock.New(tc.members, tc.opts...)
		assert.ErrorIs(t, err, locker.ErrInvalid, tc.name)
	}
}

func TestQuorumSize(t *testing.T) {
	for n, want := range map[int]int{2: 2, 3: 2, 4: 3, 5: 3, 6: 4, 7: 4} {
		_, _, rl := memRL(t, n)
		assert.Equal(t, want, rl.Needed(), "members: %d", n)
		assert.Len(t, rl.Members(), n)
	}
}
