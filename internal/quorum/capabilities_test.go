package quorum

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

// core returns the combinator inside a value New or NewKeys returned.
func core(b driver.Backend) *combinator { return b.(nested).self() }

// only names the capabilities of a member: a mem client passes its
// driver.Backend methods and those.
type only struct {
	notify, inspect, force bool
}

// member returns a mem client with the capabilities asked for.
func (o only) member() driver.Backend {
	c := memlocker.New()
	switch {
	case o.notify && o.inspect && o.force:
		return struct {
			driver.Backend
			driver.Notifier
			driver.Inspector
			driver.ForceUnlocker
		}{c, c, c, c}
	case o.notify && o.inspect:
		return struct {
			driver.Backend
			driver.Notifier
			driver.Inspector
		}{c, c, c}
	case o.notify && o.force:
		return struct {
			driver.Backend
			driver.Notifier
			driver.ForceUnlocker
		}{c, c, c}
	case o.inspect && o.force:
		return struct {
			driver.Backend
			driver.Inspector
			driver.ForceUnlocker
		}{c, c, c}
	case o.notify:
		return struct {
			driver.Backend
			driver.Notifier
		}{c, c}
	case o.inspect:
		return struct {
			driver.Backend
			driver.Inspector
		}{c, c}
	case o.force:
		return struct {
			driver.Backend
			driver.ForceUnlocker
		}{c, c}
	}
	return struct{ driver.Backend }{c}
}

// TestCapabilitiesByType: a combinator is a Notifier when one member
// notifies, an Inspector and a ForceUnlocker when every member is, always
// a BatchExpirer and Granular, and never a Fencer; and each capability it
// has works.
func TestCapabilitiesByType(t *testing.T) {
	ctx := context.Background()
	full := only{notify: true, inspect: true, force: true}
	for mask := range 8 {
		lacking := only{notify: mask&1 != 0, inspect: mask&2 != 0, force: mask&4 != 0}
		t.Run(fmt.Sprintf("%+v", lacking), func(t *testing.T) {
			b, err := New(Majority, []driver.Backend{full.member(), lacking.member(), full.member()}, DefaultSettings(Majority))
			require.NoError(t, err)
			defer b.Close()
			_, notifies := b.(driver.Notifier)
			_, inspects := b.(driver.Inspector)
			_, forces := b.(driver.ForceUnlocker)
			_, fences := b.(driver.Fencer)
			_, batches := b.(driver.BatchExpirer)
			_, granular := b.(driver.Granular)
			assert.True(t, notifies, "two members notify")
			assert.Equal(t, lacking.inspect, inspects)
			assert.Equal(t, lacking.force, forces)
			assert.False(t, fences, "fencing is for nesting, through the engine")
			assert.True(t, batches)
			assert.True(t, granular)

			g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
			require.NoError(t, err)
			require.True(t, g.Acquired)
			if inspects {
				st, err := b.(driver.Inspector).Inspect(ctx, "k")
				require.NoError(t, err)
				assert.Equal(t, "o", st.Owner)
			}
			if forces {
				held, err := b.(driver.ForceUnlocker).ForceUnlock(ctx, "k")
				require.NoError(t, err)
				assert.True(t, held)
			} else {
				require.NoError(t, b.Unlock(ctx, "k", "o"))
			}
		})
	}
	none := only{}
	b, err := New(All, []driver.Backend{none.member(), none.member()}, DefaultSettings(All))
	require.NoError(t, err)
	defer b.Close()
	_, notifies := b.(driver.Notifier)
	assert.False(t, notifies, "no member notifies")
	one := only{notify: true}
	b2, err := New(All, []driver.Backend{none.member(), one.member()}, DefaultSettings(All))
	require.NoError(t, err)
	defer b2.Close()
	_, notifies = b2.(driver.Notifier)
	assert.True(t, notifies, "one member notifies")
}

// TestNestedFencing: a combinator with fencing members is fenced as the
// member of another, through the engine; one without is not a fencing
// member. Fence checks its input before any member call.
func TestNestedFencing(t *testing.T) {
	ctx := context.Background()
	inner, err := New(All, []driver.Backend{memlocker.New(), memlocker.New()}, DefaultSettings(All))
	require.NoError(t, err)
	defer inner.Close()
	f := newTarget(inner, "k", "inner").fencer
	require.NotNil(t, f)
	assert.ErrorIs(t, f.Fence(ctx, "k", "", 1), driver.ErrInvalid, "empty owner")
	assert.ErrorIs(t, f.Fence(ctx, "k", "o", 0), driver.ErrInvalid, "zero token")
	assert.ErrorIs(t, f.Fence(ctx, "k", "o", 40), driver.ErrNotHeld)
	g, err := inner.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	require.NoError(t, f.Fence(ctx, "k", "o", g.Token+40))
	st, err := inner.(driver.Inspector).Inspect(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, g.Token+40, st.Token, "every member carries the raised token")

	bare, err := New(All, []driver.Backend{only{}.member(), only{}.member()}, DefaultSettings(All))
	require.NoError(t, err)
	defer bare.Close()
	assert.Nil(t, newTarget(bare, "k", "bare").fencer, "no member can fence")
}

// TestKeysWatch: a multi-key combinator watches the keys whose store can
// notify, whatever key it is given, and is no Notifier when none can.
func TestKeysWatch(t *testing.T) {
	ctx := context.Background()
	a, b := memlocker.New(), memlocker.New()
	mk, err := NewKeys(All, []Member{{a, "a"}, {only{}.member(), "b"}, {b, "b"}}, DefaultSettings(All))
	require.NoError(t, err)
	defer mk.Close()
	released := make(chan struct{}, 4)
	stop, err := mk.(driver.Notifier).Watch(ctx, "ignored", func() {
		select {
		case released <- struct{}{}:
		default:
		}
	})
	require.NoError(t, err)
	defer stop()
	_, err = b.TryLock(ctx, driver.Request{Key: "b", Owner: "x", TTL: time.Minute})
	require.NoError(t, err)
	require.NoError(t, b.Unlock(ctx, "b", "x"))
	select {
	case <-released:
	case <-time.After(5 * time.Second):
		t.Fatal("the release of one key was not heard")
	}
	_, inspects := mk.(driver.Inspector)
	assert.False(t, inspects, "a key's store cannot inspect")
	assert.Equal(t, "multilock(a, b, b)", fmt.Sprint(mk))

	none, err := NewKeys(All, []Member{{only{}.member(), "a"}, {only{}.member(), "b"}}, DefaultSettings(All))
	require.NoError(t, err)
	defer none.Close()
	_, notifies := none.(driver.Notifier)
	assert.False(t, notifies)
}
