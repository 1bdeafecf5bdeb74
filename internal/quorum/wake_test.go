package quorum

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAStuckWaiterHearsTheMembersThatRefusedIt: a turn watch passes on the
// releases of the members that refused its waiter's last attempt, only
// while the waiter is stuck, watching the other members from the first
// time it is; a stuck waiter backs off from a millisecond to a second, and
// starts over at a release it hears or once in line; a failed attempt's
// own releases do not wake it; after the watch is
// removed, nothing is passed on and the other members' watch is stopped.
func TestAStuckWaiterHearsTheMembersThatRefusedIt(t *testing.T) {
	var ws wakes
	var woken, watches, stops atomic.Int32
	fires := make(chan func(int), 1)
	w := &waker{ctx: context.Background(), fn: func() { woken.Add(1) },
		watch: func(_ context.Context, fire func(int)) (func(), error) {
			watches.Add(1)
			fires <- fire
			return func() { stops.Add(1) }, nil
		}}
	remove := ws.add("k", "o", w)
	start := time.Now()
	refused := []bool{false, false, true} // member 1 was taken, member 2 refused

	var waits []time.Duration
	for i := range 12 {
		waits = append(waits, ws.stuck("k", "o", start.Add(time.Duration(i)*time.Millisecond), refused))
	}
	assert.Equal(t, time.Millisecond, waits[0])
	assert.Equal(t, 2*time.Millisecond, waits[1])
	assert.Equal(t, time.Second, waits[11], "the back-off stops at a second")
	fire := <-fires
	require.Eventually(t, func() bool { w.mu.Lock(); defer w.mu.Unlock(); return w.stop != nil }, time.Second, time.Millisecond)
	assert.Equal(t, int32(1), watches.Load(), "the other members are watched once")

	fire(1)
	assert.Equal(t, int32(0), woken.Load(), "the release of a member the waiter took is its own")
	fire(2)
	assert.Equal(t, int32(1), woken.Load(), "a stuck waiter hears the members that refused it")
	assert.Equal(t, time.Millisecond, ws.stuck("k", "o", start.Add(time.Second), refused), "a release heard starts the back-off over")
	ws.releasing("k", "o")
	fire(2)
	assert.Equal(t, int32(1), woken.Load(), "a failed attempt's own releases do not wake its waiter")
	ws.stuck("k", "o", start.Add(time.Second), refused)
	ws.inLine("k", "o")
	fire(2)
	assert.Equal(t, int32(1), woken.Load(), "a waiter in line hears only its turns")
	assert.Equal(t, time.Millisecond, ws.stuck("k", "o", start.Add(time.Second), refused), "the back-off starts over after a wait in line")
	fire(2)
	assert.Equal(t, int32(2), woken.Load())

	remove()
	assert.Equal(t, int32(1), stops.Load(), "removing the turn watch stops the other members' watch")
	fire(2)
	assert.Equal(t, int32(2), woken.Load(), "nothing is passed on once the watch is removed")
	ws.stuck("k", "o", start.Add(2*time.Second), refused)
	assert.Equal(t, int32(1), watches.Load(), "a removed watch is not armed again")
}

// TestAWaiterBackInLineStopsWatchingTheOtherMembers: once a waiter has not
// been stuck for othersLinger, its turn watch stops watching the other
// members, whose releases would otherwise reach every waiter that was ever
// stuck; stuck again, it watches them again. A waiter stuck again within
// the linger keeps the watch it has.
func TestAWaiterBackInLineStopsWatchingTheOtherMembers(t *testing.T) {
	var ws wakes
	var watches, stops atomic.Int32
	w := &waker{ctx: context.Background(), fn: func() {},
		watch: func(context.Context, func(int)) (func(), error) {
			watches.Add(1)
			return func() { stops.Add(1) }, nil
		}}
	remove := ws.add("k", "o", w)
	defer remove()
	now := time.Now()
	refused := []bool{false, true, true}
	watching := func() bool { w.mu.Lock(); defer w.mu.Unlock(); return w.stop != nil }

	ws.stuck("k", "o", now, refused)
	require.Eventually(t, watching, time.Second, time.Millisecond)
	ws.inLine("k", "o")
	ws.stuck("k", "o", now, refused)
	ws.inLine("k", "o")
	time.Sleep(othersLinger / 2)
	ws.stuck("k", "o", now, refused) // within the linger: the same watch
	ws.inLine("k", "o")
	assert.Equal(t, int32(1), watches.Load())
	assert.Equal(t, int32(0), stops.Load(), "a waiter stuck within the linger keeps its watch")

	require.Eventually(t, func() bool { return stops.Load() == 1 }, 3*othersLinger, 5*time.Millisecond,
		"a waiter in line for the linger stops watching the other members")
	assert.False(t, watching())
	ws.stuck("k", "o", now, refused)
	require.Eventually(t, watching, time.Second, time.Millisecond)
	assert.Equal(t, int32(2), watches.Load(), "stuck again, it watches them again")
}
